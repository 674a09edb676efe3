/**
 * The agent's Memory tab: what the agent remembers across sessions (`agent_state/memory/`).
 * Scopes on the left (`user`, and one per workspace, labelled with its folder), the chosen
 * scope's files, and the chosen file's text; the owner can delete a file. Export saves every
 * memory file as one JSON document; Import sends such a document back in one of three
 * modes (skip existing files, overwrite them, or replace the whole folder, which the server
 * makes the page confirm). When the system prompt lacks `{{MEMORY}}` the tab offers to add it.
 */
import { useEffect, useRef, useState } from "react";
import { ApiError, errorText } from "../../api/http";
import { deleteMemoryFile, importMemory, listMemoryFiles, listMemoryScopes, memoryExportUrl, readMemoryFile } from "../../api/memory";
import type { MemoryFile, MemoryImportMode, MemoryScope } from "../../api/types";
import { Button } from "../../components/ui/Button";
import { SelectField } from "../../components/ui/Field";
import { Notice } from "../../components/ui/Notice";
import { fileText } from "../../lib/file-data";
import { PlaceholderOffer } from "./PlaceholderOffer";

const MODES: { value: MemoryImportMode; label: string }[] = [
  { value: "skip", label: "Keep existing files (add new ones)" },
  { value: "overwrite", label: "Overwrite files of the same name" },
  { value: "replace", label: "Replace all memory" },
];

export function MemoryPanel({ projectId, agentId, readOnly, systemConfig, onConfig }: { projectId: string; agentId: string; readOnly: boolean; systemConfig: string; onConfig(text: string): void }) {
  const [scopes, setScopes] = useState<MemoryScope[]>([]);
  const [scope, setScope] = useState<string | undefined>(undefined);
  const [files, setFiles] = useState<{ path: string; size: number }[]>([]);
  const [open, setOpen] = useState<MemoryFile | undefined>(undefined);
  const [mode, setMode] = useState<MemoryImportMode>("skip");
  const [confirming, setConfirming] = useState<{ payload: unknown; message: string } | undefined>(undefined);
  const [message, setMessage] = useState<{ tone: "success" | "error"; text: string } | undefined>(undefined);
  const fileRef = useRef<HTMLInputElement>(null);

  const loadScopes = () =>
    listMemoryScopes(projectId, agentId).then(
      (s) => {
        setScopes(s);
        setScope((cur) => (cur !== undefined && s.some((x) => x.key === cur) ? cur : s[0]?.key));
      },
      (e: unknown) => setMessage({ tone: "error", text: errorText(e) }),
    );
  useEffect(() => {
    setOpen(undefined);
    void loadScopes();
  }, [projectId, agentId]); // `loadScopes` reads only these two

  useEffect(() => {
    if (scope === undefined) {
      setFiles([]);
      return;
    }
    let live = true;
    listMemoryFiles(projectId, agentId, scope).then(
      (f) => live && setFiles(f.filter((x) => x.path !== ".workspace")),
      (e: unknown) => live && setMessage({ tone: "error", text: errorText(e) }),
    );
    return () => {
      live = false;
    };
  }, [projectId, agentId, scope, scopes]);

  const show = async (path: string) => {
    try {
      setOpen(await readMemoryFile(projectId, agentId, path));
    } catch (e) {
      setMessage({ tone: "error", text: errorText(e) });
    }
  };

  const remove = async (path: string) => {
    if (!window.confirm(`Delete ${path}? The agent forgets what it holds.`)) return;
    try {
      await deleteMemoryFile(projectId, agentId, path);
      setOpen(undefined);
      await loadScopes();
    } catch (e) {
      setMessage({ tone: "error", text: errorText(e) });
    }
  };

  const send = async (payload: unknown, confirm: boolean) => {
    setMessage(undefined);
    try {
      const r = await importMemory(projectId, agentId, payload, mode, confirm);
      setConfirming(undefined);
      setMessage({ tone: "success", text: `Imported: ${r.written} file${r.written === 1 ? "" : "s"} written, ${r.skipped} kept as they were.` });
      await loadScopes();
    } catch (e) {
      if (e instanceof ApiError && e.code === "confirm_required") setConfirming({ payload, message: e.message });
      else setMessage({ tone: "error", text: errorText(e) });
    }
  };

  const pick = async (file: File | undefined) => {
    if (file === undefined) return;
    let payload: unknown;
    try {
      payload = JSON.parse(await fileText(file));
    } catch {
      setMessage({ tone: "error", text: `${file.name} is not a memory export (not JSON).` });
      return;
    }
    await send(payload, false);
  };

  const current = scopes.find((s) => s.key === scope);
  return (
    <div className="flex flex-col gap-3">
      <PlaceholderOffer projectId={projectId} agentId={agentId} section="memory" systemConfig={systemConfig} readOnly={readOnly} onConfig={onConfig} what="the memory index" />
      <div className="grid grid-cols-1 gap-3 md:grid-cols-[14rem_14rem_1fr]">
        <section aria-label="Memory scopes">
          <h3 className="mb-1 text-xs font-semibold tracking-wide text-slate-500 uppercase">Scopes</h3>
          <ul className="rounded-md border border-slate-200 dark:border-slate-800">
            {scopes.length === 0 && <li className="px-2 py-1 text-sm text-slate-500">No memory yet.</li>}
            {scopes.map((s) => (
              <li key={s.key}>
                <button type="button" aria-pressed={s.key === scope} onClick={() => { setScope(s.key); setOpen(undefined); }} className={`w-full px-2 py-1 text-left text-sm ${s.key === scope ? "bg-blue-50 font-semibold dark:bg-slate-800" : "hover:bg-slate-50 dark:hover:bg-slate-900"}`}>
                  <div className="truncate font-mono text-xs">{s.key}</div>
                  <div className="truncate text-xs text-slate-500">{s.workspace ?? "all workspaces"} · {s.files} file{s.files === 1 ? "" : "s"}</div>
                </button>
              </li>
            ))}
          </ul>
        </section>
        <section aria-label="Memory files">
          <h3 className="mb-1 text-xs font-semibold tracking-wide text-slate-500 uppercase">Files</h3>
          {current?.workspace != null && (
            <p className="mb-1 truncate font-mono text-xs text-slate-500" title={current.workspace}>
              {current.workspace}
            </p>
          )}
          <ul className="rounded-md border border-slate-200 dark:border-slate-800">
            {files.length === 0 && <li className="px-2 py-1 text-sm text-slate-500">No files.</li>}
            {files.map((f) => {
              const path = `${scope ?? ""}/${f.path}`;
              return (
                <li key={f.path}>
                  <button type="button" aria-pressed={open?.path === path} onClick={() => void show(path)} className={`w-full truncate px-2 py-1 text-left font-mono text-xs ${open?.path === path ? "bg-blue-50 font-semibold dark:bg-slate-800" : "hover:bg-slate-50 dark:hover:bg-slate-900"}`}>
                    {f.path}
                  </button>
                </li>
              );
            })}
          </ul>
        </section>
        <section aria-label="Memory file" className="min-w-0">
          {open === undefined ? (
            <p className="text-sm text-slate-500">Pick a file to read it.</p>
          ) : (
            <div className="flex flex-col gap-2">
              <div className="flex items-center gap-2">
                <span className="min-w-0 flex-1 truncate font-mono text-xs">{open.path}</span>
                {!readOnly && (
                  <Button size="sm" variant="danger" onClick={() => void remove(open.path)}>
                    Delete
                  </Button>
                )}
              </div>
              <pre className="max-h-96 overflow-auto rounded-md bg-slate-50 p-2 text-xs whitespace-pre-wrap dark:bg-slate-900">{open.encoding === "utf8" ? open.content : "(binary file)"}</pre>
            </div>
          )}
        </section>
      </div>
      <section aria-label="Export and import" className="flex flex-wrap items-end gap-2">
        <a href={memoryExportUrl(projectId, agentId)} download className="inline-flex items-center rounded-md border border-slate-300 px-3 py-1.5 text-sm font-medium hover:bg-slate-50 dark:border-slate-600 dark:hover:bg-slate-800">
          Export memory
        </a>
        {!readOnly && (
          <>
            <SelectField label="Import mode" value={mode} onValue={setMode} options={MODES} className="w-72" />
            <Button onClick={() => fileRef.current?.click()}>Import memory…</Button>
            <input ref={fileRef} type="file" accept="application/json,.json" className="hidden" aria-label="Memory export file" onChange={(e) => { void pick(e.target.files?.[0]); e.target.value = ""; }} />
          </>
        )}
      </section>
      {confirming !== undefined && (
        <Notice tone="warning">
          <p>{confirming.message}</p>
          <div className="mt-2 flex gap-2">
            <Button size="sm" variant="danger" onClick={() => void send(confirming.payload, true)}>
              Replace all memory
            </Button>
            <Button size="sm" onClick={() => setConfirming(undefined)}>
              Cancel
            </Button>
          </div>
        </Notice>
      )}
      {message !== undefined && <Notice tone={message.tone}>{message.text}</Notice>}
    </div>
  );
}
