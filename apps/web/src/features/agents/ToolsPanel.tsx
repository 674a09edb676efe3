/**
 * The agent's Tools tab: the builtin tools a session of this agent gets, as a table (name,
 * read or read-write, timeout, what it does, when it is offered), then the MCP servers: the
 * configured ones as the server reads them (secrets as key names only) and the form that
 * adds one and tests its connection (McpPanel); and the agent's hooks, read-only (the owner
 * edits them in system_config.yaml like the rest of the config).
 */
import { createEffect, createSignal, For, on, onCleanup, Show } from "solid-js";
import { getAgentTools } from "../../api/agents";
import { errorText } from "../../api/http";
import type { AgentTools } from "../../api/types";
import { Notice } from "../../components/ui/Notice";
import { Spinner } from "../../components/ui/Spinner";
import { formatDuration } from "../../lib/format";
import { McpPanel } from "./McpPanel";

export function ToolsPanel(props: { projectId: string; agentId: string; yaml: string; savedYaml: string; onYaml(v: string): void; readOnly: boolean }) {
  const [tools, setTools] = createSignal<AgentTools | undefined>(undefined);
  const [error, setError] = createSignal<string | undefined>(undefined);

  createEffect(
    on([() => props.projectId, () => props.agentId, () => props.savedYaml], ([projectId, agentId]) => {
      let live = true;
      setError(undefined);
      getAgentTools(projectId, agentId).then(
        (t) => live && setTools(t),
        (e: unknown) => live && setError(errorText(e)),
      );
      onCleanup(() => (live = false));
    }),
  );

  return (
    <div class="flex flex-col gap-5">
      <section aria-labelledby="tools-builtin">
        <h3 id="tools-builtin" class="mb-2 text-sm font-semibold">
          Builtin tools
        </h3>
        <Show when={error()}>{(e) => <Notice tone="error">{e()}</Notice>}</Show>
        <Show when={tools() === undefined && error() === undefined}>
          <Spinner label="Loading the tools" />
        </Show>
        <Show when={tools()}>
          {(t) => (
            <div class="overflow-x-auto">
              <table class="w-full text-left text-sm">
                <caption class="sr-only">Builtin tools of this agent</caption>
                <thead class="text-xs text-slate-500">
                  <tr>
                    <th class="py-1 pr-3">Tool</th>
                    <th class="py-1 pr-3">Access</th>
                    <th class="py-1 pr-3">Timeout</th>
                    <th class="py-1">What it does</th>
                  </tr>
                </thead>
                <tbody>
                  <For each={t().builtin}>
                    {(tool) => (
                      <tr class="border-t border-slate-200 align-top dark:border-slate-800">
                        <td class="py-1 pr-3 font-mono text-xs whitespace-nowrap">{tool.name}</td>
                        <td class="py-1 pr-3 text-xs">{tool.permission === "r" ? "read" : "read-write"}</td>
                        <td class="py-1 pr-3 text-xs whitespace-nowrap tabular-nums">{formatDuration(tool.timeoutMs)}</td>
                        <td class="py-1 text-xs text-slate-600 dark:text-slate-400">
                          {tool.description.split("\n")[0]}
                          <Show when={tool.condition}>{(c) => <span class="ml-1 rounded bg-slate-100 px-1 dark:bg-slate-800">for {c()}</span>}</Show>
                        </td>
                      </tr>
                    )}
                  </For>
                </tbody>
              </table>
            </div>
          )}
        </Show>
      </section>
      <Show when={(tools()?.mcp.length ?? 0) > 0}>
        <section aria-labelledby="tools-mcp-configured">
          <h3 id="tools-mcp-configured" class="mb-2 text-sm font-semibold">
            Configured MCP servers
          </h3>
          <ul class="flex flex-col gap-1 text-sm">
            <For each={tools()?.mcp ?? []}>
              {(m) => (
                <li class="rounded-md border border-slate-200 px-2 py-1 dark:border-slate-800">
                  <span class="font-mono">{m.name}</span> <span class="text-xs text-slate-500">· {m.transport} · permission {m.permission}</span>
                  <div class="truncate font-mono text-xs text-slate-600 dark:text-slate-400">{m.url ?? [m.command, ...m.args].join(" ")}</div>
                  <Show when={m.envKeys.length > 0 || m.headerKeys.length > 0}>
                    <div class="text-xs text-slate-500">{[...m.envKeys.map((k) => `env ${k}`), ...m.headerKeys.map((k) => `header ${k}`)].join(", ")}</div>
                  </Show>
                </li>
              )}
            </For>
          </ul>
        </section>
      </Show>
      <section aria-labelledby="tools-hooks">
        <h3 id="tools-hooks" class="mb-2 text-sm font-semibold">
          Hooks
        </h3>
        <Show
          when={(tools()?.hooks.length ?? 0) > 0}
          fallback={<p class="text-xs text-slate-500">No hooks. Add a <code class="font-mono">hooks:</code> section to system_config.yaml (Config tab), in Claude Code's settings shape.</p>}
        >
          <ul class="flex flex-col gap-1 text-sm" aria-label="Hooks of this agent (read-only: edit them in system_config.yaml)">
            <For each={tools()?.hooks ?? []}>
              {(h) => (
                <li class="rounded-md border border-slate-200 px-2 py-1 dark:border-slate-800">
                  <span class="font-mono">{h.event}</span>
                  <Show when={h.matcher}>{(m) => <span class="text-xs text-slate-500"> · tools matching {m()}</span>}</Show>
                  <Show when={h.timeoutSeconds}>{(t) => <span class="text-xs text-slate-500"> · timeout {t()} s</span>}</Show>
                  <div class="truncate font-mono text-xs text-slate-600 dark:text-slate-400">{h.command}</div>
                </li>
              )}
            </For>
          </ul>
        </Show>
      </section>
      <McpPanel projectId={props.projectId} agentId={props.agentId} yaml={props.yaml} onYaml={(v) => props.onYaml(v)} readOnly={props.readOnly} />
    </div>
  );
}
