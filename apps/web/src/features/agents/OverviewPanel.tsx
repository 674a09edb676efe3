/**
 * The agent's Overview tab: its version and saved snapshots, and the three whole-state
 * actions. Export downloads `v<version>.tar.gz` (agent_state without the vault; the server
 * keeps a copy). Import uploads such an archive; when its version is not newer than the
 * agent's the server answers 409 and the tab asks for a second, explicit confirmation
 * before replacing the state (the current state is saved as a snapshot first either way).
 * Kernel update fills settings the agent's config lacks with today's defaults and lists
 * them; Restore defaults rewrites system_config.yaml and AGENTS.md (name, description and
 * version kept). `onConfig` hands the page the new file texts (none: reload them).
 */
import { createEffect, createSignal, For, on, Show } from "solid-js";
import { kernelUpdate, resetAgentConfig } from "../../api/agents";
import { ApiError, errorText } from "../../api/http";
import { importSnapshot, listSnapshots, snapshotExportUrl } from "../../api/snapshots";
import type { AgentConfig, SnapshotInfo } from "../../api/types";
import { Button } from "../../components/ui/Button";
import { Notice } from "../../components/ui/Notice";
import { Spinner } from "../../components/ui/Spinner";
import { formatDateTime, formatTokens } from "../../lib/format";
import { fileBase64 } from "../../lib/file-data";

interface PendingImport {
  name: string;
  data: string;
  message: string;
}

export function OverviewPanel(props: { projectId: string; agentId: string; readOnly: boolean; onConfig(c?: Partial<AgentConfig>): void }) {
  const [version, setVersion] = createSignal<number | null>(null);
  const [snapshots, setSnapshots] = createSignal<SnapshotInfo[] | undefined>(undefined);
  const [pending, setPending] = createSignal<PendingImport | undefined>(undefined);
  const [message, setMessage] = createSignal<{ tone: "success" | "error" | "info"; text: string } | undefined>(undefined);
  const [busy, setBusy] = createSignal(false);
  let fileInput: HTMLInputElement | undefined;

  const load = () =>
    listSnapshots(props.projectId, props.agentId).then(
      (s) => {
        setVersion(s.version);
        setSnapshots(s.snapshots);
      },
      (e: unknown) => {
        setSnapshots([]);
        setMessage({ tone: "error", text: errorText(e) });
      },
    );
  createEffect(on([() => props.projectId, () => props.agentId], () => void load()));

  const run = async (fn: () => Promise<void>) => {
    setBusy(true);
    setMessage(undefined);
    try {
      await fn();
    } catch (e) {
      setMessage({ tone: "error", text: errorText(e) });
    } finally {
      setBusy(false);
    }
  };

  const upload = (name: string, data: string, confirm: boolean) =>
    run(async () => {
      try {
        const r = await importSnapshot(props.projectId, props.agentId, data, confirm);
        setPending(undefined);
        setMessage({ tone: "success", text: `Imported ${name}: the agent is now at version ${r.version}${r.snapshot !== null ? ` (the previous state was saved as ${r.snapshot})` : ""}.` });
        props.onConfig();
        await load();
      } catch (e) {
        if (e instanceof ApiError && e.code === "confirm_required") setPending({ name, data, message: e.message });
        else throw e;
      }
    });

  const pick = async (file: File | undefined) => {
    if (file === undefined) return;
    const data = await fileBase64(file);
    await upload(file.name, data, false);
  };

  return (
    <div class="flex flex-col gap-4">
      <section aria-labelledby="ov-snapshots" class="flex flex-col gap-2">
        <h3 id="ov-snapshots" class="text-sm font-semibold">
          Snapshots{" "}
          <Show when={version() !== null}>
            <span class="font-normal text-slate-500">· current version {version()}</span>
          </Show>
        </h3>
        <p class="text-sm text-slate-600 dark:text-slate-400">A snapshot is the whole agent_state folder (prompt, AGENTS.md, skills, memory, schedules) without the vault.</p>
        <div class="flex flex-wrap gap-2">
          <a href={snapshotExportUrl(props.projectId, props.agentId)} download="" class="inline-flex items-center rounded-md border border-slate-300 px-3 py-1.5 text-sm font-medium hover:bg-slate-50 dark:border-slate-600 dark:hover:bg-slate-800">
            Export snapshot
          </a>
          <Show when={!props.readOnly}>
            <Button onClick={() => fileInput?.click()} disabled={busy()}>
              Import snapshot…
            </Button>
            <input
              ref={fileInput}
              type="file"
              accept=".gz,.tgz,application/gzip"
              class="hidden"
              aria-label="Snapshot file"
              onChange={(e) => {
                void pick(e.currentTarget.files?.[0]);
                e.currentTarget.value = "";
              }}
            />
          </Show>
        </div>
        <Show when={pending()}>
          {(p) => (
            <Notice tone="warning">
              <p>{p().message}</p>
              <div class="mt-2 flex gap-2">
                <Button variant="danger" size="sm" onClick={() => void upload(p().name, p().data, true)} disabled={busy()}>
                  Replace with {p().name}
                </Button>
                <Button size="sm" onClick={() => setPending(undefined)}>
                  Cancel
                </Button>
              </div>
            </Notice>
          )}
        </Show>
        <Show when={snapshots()} fallback={<Spinner label="Loading snapshots" />}>
          {(list) => (
            <Show when={list().length > 0} fallback={<p class="text-xs text-slate-500">No saved snapshots yet.</p>}>
              <ul aria-label="Saved snapshots" class="flex flex-col gap-1 text-sm">
                <For each={list()}>
                  {(s) => (
                    <li class="flex gap-3 font-mono text-xs">
                      <span>{s.name}</span>
                      <span class="text-slate-500">{formatTokens(s.size)}B</span>
                      <span class="text-slate-500">{formatDateTime(s.mtimeMs)}</span>
                    </li>
                  )}
                </For>
              </ul>
            </Show>
          )}
        </Show>
      </section>
      <Show when={!props.readOnly}>
        <section aria-labelledby="ov-kernel" class="flex flex-col gap-2">
          <h3 id="ov-kernel" class="text-sm font-semibold">
            Configuration
          </h3>
          <div class="flex flex-wrap gap-2">
            <Button
              disabled={busy()}
              onClick={() =>
                void run(async () => {
                  const r = await kernelUpdate(props.projectId, props.agentId);
                  props.onConfig({ systemConfig: r.systemConfig });
                  setMessage(
                    r.added.length === 0
                      ? { tone: "info", text: "The configuration already has every current setting." }
                      : { tone: "success", text: `Added ${r.added.length} missing setting${r.added.length > 1 ? "s" : ""}: ${r.added.join(", ")}.` },
                  );
                })
              }
            >
              Kernel update
            </Button>
            <Button
              variant="danger"
              disabled={busy()}
              onClick={() => {
                if (!window.confirm("Restore the default system_config.yaml and AGENTS.md? Your edits to both are lost (name, description and version are kept).")) return;
                void run(async () => {
                  props.onConfig(await resetAgentConfig(props.projectId, props.agentId));
                  setMessage({ tone: "success", text: "Defaults restored." });
                });
              }}
            >
              Restore defaults
            </Button>
          </div>
        </section>
      </Show>
      <Show when={message()}>{(m) => <Notice tone={m().tone}>{m().text}</Notice>}</Show>
    </div>
  );
}
