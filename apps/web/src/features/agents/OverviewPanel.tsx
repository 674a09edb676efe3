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
import { useEffect, useRef, useState } from "react";
import { kernelUpdate, resetAgentConfig } from "../../api/agents";
import { ApiError, errorText } from "../../api/http";
import { importSnapshot, listSnapshots, snapshotExportUrl } from "../../api/snapshots";
import type { AgentConfig, SnapshotInfo } from "../../api/types";
import { Button } from "../../components/ui/Button";
import { Notice } from "../../components/ui/Notice";
import { formatDateTime, formatTokens } from "../../lib/format";
import { fileBase64 } from "../../lib/file-data";

interface PendingImport {
  name: string;
  data: string;
  message: string;
}

export function OverviewPanel({ projectId, agentId, readOnly, onConfig }: { projectId: string; agentId: string; readOnly: boolean; onConfig(c?: Partial<AgentConfig>): void }) {
  const [version, setVersion] = useState<number | null>(null);
  const [snapshots, setSnapshots] = useState<SnapshotInfo[]>([]);
  const [pending, setPending] = useState<PendingImport | undefined>(undefined);
  const [message, setMessage] = useState<{ tone: "success" | "error" | "info"; text: string } | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const fileRef = useRef<HTMLInputElement>(null);

  const load = () =>
    listSnapshots(projectId, agentId).then(
      (s) => {
        setVersion(s.version);
        setSnapshots(s.snapshots);
      },
      (e: unknown) => setMessage({ tone: "error", text: errorText(e) }),
    );
  useEffect(() => {
    void load();
  }, [projectId, agentId]); // `load` reads only these two

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
        const r = await importSnapshot(projectId, agentId, data, confirm);
        setPending(undefined);
        setMessage({ tone: "success", text: `Imported ${name}: the agent is now at version ${r.version}${r.snapshot !== null ? ` (the previous state was saved as ${r.snapshot})` : ""}.` });
        onConfig();
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
    <div className="flex flex-col gap-4">
      <section aria-labelledby="ov-snapshots" className="flex flex-col gap-2">
        <h3 id="ov-snapshots" className="text-sm font-semibold">
          Snapshots {version !== null && <span className="font-normal text-slate-500">· current version {version}</span>}
        </h3>
        <p className="text-sm text-slate-600 dark:text-slate-400">A snapshot is the whole agent_state folder (prompt, AGENTS.md, skills, memory, schedules) without the vault.</p>
        <div className="flex flex-wrap gap-2">
          <a href={snapshotExportUrl(projectId, agentId)} download className="inline-flex items-center rounded-md border border-slate-300 px-3 py-1.5 text-sm font-medium hover:bg-slate-50 dark:border-slate-600 dark:hover:bg-slate-800">
            Export snapshot
          </a>
          {!readOnly && (
            <>
              <Button onClick={() => fileRef.current?.click()} disabled={busy}>
                Import snapshot…
              </Button>
              <input ref={fileRef} type="file" accept=".gz,.tgz,application/gzip" className="hidden" aria-label="Snapshot file" onChange={(e) => { void pick(e.target.files?.[0]); e.target.value = ""; }} />
            </>
          )}
        </div>
        {pending !== undefined && (
          <Notice tone="warning">
            <p>{pending.message}</p>
            <div className="mt-2 flex gap-2">
              <Button variant="danger" size="sm" onClick={() => void upload(pending.name, pending.data, true)} disabled={busy}>
                Replace with {pending.name}
              </Button>
              <Button size="sm" onClick={() => setPending(undefined)}>
                Cancel
              </Button>
            </div>
          </Notice>
        )}
        {snapshots.length > 0 && (
          <ul aria-label="Saved snapshots" className="flex flex-col gap-1 text-sm">
            {snapshots.map((s) => (
              <li key={s.name} className="flex gap-3 font-mono text-xs">
                <span>{s.name}</span>
                <span className="text-slate-500">{formatTokens(s.size)}B</span>
                <span className="text-slate-500">{formatDateTime(s.mtimeMs)}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      {!readOnly && (
        <section aria-labelledby="ov-kernel" className="flex flex-col gap-2">
          <h3 id="ov-kernel" className="text-sm font-semibold">
            Configuration
          </h3>
          <div className="flex flex-wrap gap-2">
            <Button
              disabled={busy}
              onClick={() =>
                void run(async () => {
                  const r = await kernelUpdate(projectId, agentId);
                  onConfig({ systemConfig: r.systemConfig });
                  setMessage(r.added.length === 0 ? { tone: "info", text: "The configuration already has every current setting." } : { tone: "success", text: `Added ${r.added.length} missing setting${r.added.length > 1 ? "s" : ""}: ${r.added.join(", ")}.` });
                })
              }
            >
              Kernel update
            </Button>
            <Button
              variant="danger"
              disabled={busy}
              onClick={() => {
                if (!window.confirm("Restore the default system_config.yaml and AGENTS.md? Your edits to both are lost (name, description and version are kept).")) return;
                void run(async () => {
                  onConfig(await resetAgentConfig(projectId, agentId));
                  setMessage({ tone: "success", text: "Defaults restored." });
                });
              }}
            >
              Restore defaults
            </Button>
          </div>
        </section>
      )}
      {message !== undefined && <Notice tone={message.tone}>{message.text}</Notice>}
    </div>
  );
}
