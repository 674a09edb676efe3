/**
 * The session's details panel (SPEC §10 side panel "details"): its background processes
 * (what `exec_command` left running, with a link when one serves a local page) with Kill
 * and Remove, and where its trace is (download, and the Traces page). The process list is
 * fetched when the panel opens, when the task state changes, on Refresh, and every few
 * seconds while a task runs (processes come and go with the agent's commands).
 */
import { createEffect, createSignal, For, on, onCleanup, Show } from "solid-js";
import { A } from "@solidjs/router";
import { errorText } from "../../api/http";
import { killProcess, listProcesses, removeProcess } from "../../api/sessions";
import { traceDownloadUrl } from "../../api/traces";
import type { ProcessInfo, SessionSummary, TaskState } from "../../api/types";
import { Button } from "../../components/ui/Button";
import { Notice } from "../../components/ui/Notice";
import { Spinner } from "../../components/ui/Spinner";
import { relativeTime } from "../../lib/format";

const POLL_MS = 5000;

export function DetailsPanel(props: { session: SessionSummary; taskState: TaskState; onClose(): void }) {
  const [processes, setProcesses] = createSignal<ProcessInfo[] | undefined>(undefined);
  const [error, setError] = createSignal<string | undefined>(undefined);

  const refresh = () => {
    listProcesses(props.session.id).then(
      (p) => {
        setProcesses(p);
        setError(undefined);
      },
      (e: unknown) => setError(errorText(e)),
    );
  };

  createEffect(
    on([() => props.session.id, () => props.taskState], ([, state]) => {
      refresh();
      if (state === "idle") return;
      const timer = setInterval(refresh, POLL_MS);
      onCleanup(() => clearInterval(timer));
    }),
  );

  const act = async (fn: () => Promise<unknown>) => {
    try {
      await fn();
    } catch (e) {
      setError(errorText(e));
    }
    refresh();
  };

  return (
    <section aria-label="Session details" class="flex flex-col gap-3 border-b border-slate-200 bg-slate-50 px-3 py-3 text-sm sm:px-6 dark:border-slate-800 dark:bg-slate-900">
      <div class="flex items-center gap-2">
        <h2 class="flex-1 font-semibold">Processes</h2>
        <Button size="sm" variant="ghost" onClick={refresh}>
          Refresh
        </Button>
        <Button size="sm" variant="ghost" onClick={() => props.onClose()} aria-label="Close details">
          Close
        </Button>
      </div>
      <Show when={error()}>{(e) => <Notice tone="error">{e()}</Notice>}</Show>
      <Show when={processes()} fallback={<Show when={error() === undefined}><Spinner label="Loading processes" /></Show>}>
        {(list) => (
          <Show when={list().length > 0} fallback={<p class="text-xs text-slate-500">No background processes.</p>}>
            <ul aria-label="Background processes" class="flex flex-col gap-1">
              <For each={list()}>
                {(p) => (
                  <li class="flex flex-wrap items-center gap-2 rounded-md border border-slate-200 bg-white px-2 py-1 dark:border-slate-700 dark:bg-slate-950">
                    <span class="font-mono text-xs">{p.id}</span>
                    <span class={`rounded px-1.5 text-xs ${p.status === "running" ? "bg-green-100 text-green-800 dark:bg-green-900 dark:text-green-100" : "bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-200"}`}>
                      {p.status}
                      {p.exitCode !== undefined && p.exitCode !== null ? ` (${p.exitCode})` : ""}
                    </span>
                    <span class="min-w-0 flex-1 truncate font-mono text-xs" title={p.command}>
                      {p.label !== "" ? p.label : p.command}
                    </span>
                    <Show when={p.serviceUrl}>
                      {(url) => (
                        <a href={url()} target="_blank" rel="noreferrer noopener" class="text-xs text-blue-700 underline dark:text-blue-300">
                          {url()}
                        </a>
                      )}
                    </Show>
                    <span class="text-xs text-slate-500">{relativeTime(p.started)}</span>
                    <Show
                      when={p.status === "running"}
                      fallback={
                        <Button size="sm" onClick={() => void act(() => removeProcess(props.session.id, p.id))} aria-label={`Remove ${p.id}`}>
                          Remove
                        </Button>
                      }
                    >
                      <Button size="sm" variant="danger" onClick={() => void act(() => killProcess(props.session.id, p.id))} aria-label={`Kill ${p.id}`}>
                        Kill
                      </Button>
                    </Show>
                  </li>
                )}
              </For>
            </ul>
          </Show>
        )}
      </Show>
      <div class="flex flex-wrap items-center gap-3 text-xs">
        <span class="font-semibold">Trace</span>
        <a href={traceDownloadUrl(props.session.projectId, props.session.agentId, props.session.id)} download="" class="text-blue-700 underline dark:text-blue-300">
          Download JSONL
        </a>
        <A href="/traces" class="text-blue-700 underline dark:text-blue-300">
          Open the Traces page
        </A>
      </div>
    </section>
  );
}
