/**
 * The agent's Memory tab: what the agent remembers across sessions (`agent_state/memory/`).
 * Scopes on the left (`user`, and one per workspace, labelled with its folder), the chosen
 * scope's files, and the chosen file's text; the owner can delete a file. Export saves every
 * memory file as one JSON document; Import sends such a document back in one of three
 * modes (skip existing files, overwrite them, or replace the whole folder, which the server
 * makes the page confirm). When the system prompt lacks `{{MEMORY}}` the tab offers to add it.
 */
import { createEffect, createSignal, For, on, onCleanup, Show } from "solid-js";
import { ApiError, errorText } from "../../api/http";
import { deleteMemoryFile, importMemory, listMemoryFiles, listMemoryScopes, memoryExportUrl, readMemoryFile } from "../../api/memory";
import type { MemoryFile, MemoryImportMode, MemoryScope } from "../../api/types";
import { Button } from "../../components/ui/Button";
import { SelectField } from "../../components/ui/Field";
import { Notice } from "../../components/ui/Notice";
import { Spinner } from "../../components/ui/Spinner";
import { fileText } from "../../lib/file-data";
import { PlaceholderOffer } from "./PlaceholderOffer";

const MODES: { value: MemoryImportMode; label: string }[] = [
  { value: "skip", label: "Keep existing files (add new ones)" },
  { value: "overwrite", label: "Overwrite files of the same name" },
  { value: "replace", label: "Replace all memory" },
];

export function MemoryPanel(props: { projectId: string; agentId: string; readOnly: boolean; systemConfig: string; onConfig(text: string): void }) {
  const [scopes, setScopes] = createSignal<MemoryScope[] | undefined>(undefined);
  const [scope, setScope] = createSignal<string | undefined>(undefined);
  const [files, setFiles] = createSignal<{ path: string; size: number }[]>([]);
  const [open, setOpen] = createSignal<MemoryFile | undefined>(undefined);
  const [mode, setMode] = createSignal<MemoryImportMode>("skip");
  const [confirming, setConfirming] = createSignal<{ payload: unknown; message: string } | undefined>(undefined);
  const [message, setMessage] = createSignal<{ tone: "success" | "error"; text: string } | undefined>(undefined);
  let fileInput: HTMLInputElement | undefined;

  const loadScopes = () =>
    listMemoryScopes(props.projectId, props.agentId).then(
      (s) => {
        setScopes(s);
        setScope((cur) => (cur !== undefined && s.some((x) => x.key === cur) ? cur : s[0]?.key));
      },
      (e: unknown) => {
        setScopes([]);
        setMessage({ tone: "error", text: errorText(e) });
      },
    );
  createEffect(
    on([() => props.projectId, () => props.agentId], () => {
      setOpen(undefined);
      void loadScopes();
    }),
  );

  createEffect(
    on([scope, scopes], ([key]) => {
      if (key === undefined) {
        setFiles([]);
        return;
      }
      let live = true;
      listMemoryFiles(props.projectId, props.agentId, key).then(
        (f) => live && setFiles(f.filter((x) => x.path !== ".workspace")),
        (e: unknown) => live && setMessage({ tone: "error", text: errorText(e) }),
      );
      onCleanup(() => (live = false));
    }),
  );

  const show = async (path: string) => {
    try {
      setOpen(await readMemoryFile(props.projectId, props.agentId, path));
    } catch (e) {
      setMessage({ tone: "error", text: errorText(e) });
    }
  };

  const remove = async (path: string) => {
    if (!window.confirm(`Delete ${path}? The agent forgets what it holds.`)) return;
    try {
      await deleteMemoryFile(props.projectId, props.agentId, path);
      setOpen(undefined);
      await loadScopes();
    } catch (e) {
      setMessage({ tone: "error", text: errorText(e) });
    }
  };

  const send = async (payload: unknown, confirm: boolean) => {
    setMessage(undefined);
    try {
      const r = await importMemory(props.projectId, props.agentId, payload, mode(), confirm);
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

  const current = () => scopes()?.find((s) => s.key === scope());
  return (
    <div class="flex flex-col gap-3">
      <PlaceholderOffer projectId={props.projectId} agentId={props.agentId} section="memory" systemConfig={props.systemConfig} readOnly={props.readOnly} onConfig={(t) => props.onConfig(t)} what="the memory index" />
      <div class="grid grid-cols-1 gap-3 md:grid-cols-[14rem_14rem_1fr]">
        <section aria-label="Memory scopes">
          <h3 class="mb-1 text-xs font-semibold tracking-wide text-slate-500 uppercase">Scopes</h3>
          <Show when={scopes()} fallback={<Spinner label="Loading memory" />}>
            {(list) => (
              <ul class="rounded-md border border-slate-200 dark:border-slate-800">
                <Show when={list().length === 0}>
                  <li class="px-2 py-1 text-sm text-slate-500">No memory yet.</li>
                </Show>
                <For each={list()}>
                  {(s) => (
                    <li>
                      <button
                        type="button"
                        aria-pressed={s.key === scope()}
                        onClick={() => {
                          setScope(s.key);
                          setOpen(undefined);
                        }}
                        class={`w-full px-2 py-1 text-left text-sm ${s.key === scope() ? "bg-blue-50 font-semibold dark:bg-slate-800" : "hover:bg-slate-50 dark:hover:bg-slate-900"}`}
                      >
                        <div class="truncate font-mono text-xs">{s.key}</div>
                        <div class="truncate text-xs text-slate-500">
                          {s.workspace ?? "all workspaces"} · {s.files} file{s.files === 1 ? "" : "s"}
                        </div>
                      </button>
                    </li>
                  )}
                </For>
              </ul>
            )}
          </Show>
        </section>
        <section aria-label="Memory files">
          <h3 class="mb-1 text-xs font-semibold tracking-wide text-slate-500 uppercase">Files</h3>
          <Show when={current()?.workspace}>
            {(ws) => (
              <p class="mb-1 truncate font-mono text-xs text-slate-500" title={ws()}>
                {ws()}
              </p>
            )}
          </Show>
          <ul class="rounded-md border border-slate-200 dark:border-slate-800">
            <Show when={files().length === 0}>
              <li class="px-2 py-1 text-sm text-slate-500">No files.</li>
            </Show>
            <For each={files()}>
              {(f) => {
                const path = () => `${scope() ?? ""}/${f.path}`;
                return (
                  <li>
                    <button
                      type="button"
                      aria-pressed={open()?.path === path()}
                      onClick={() => void show(path())}
                      class={`w-full truncate px-2 py-1 text-left font-mono text-xs ${open()?.path === path() ? "bg-blue-50 font-semibold dark:bg-slate-800" : "hover:bg-slate-50 dark:hover:bg-slate-900"}`}
                    >
                      {f.path}
                    </button>
                  </li>
                );
              }}
            </For>
          </ul>
        </section>
        <section aria-label="Memory file" class="min-w-0">
          <Show when={open()} fallback={<p class="text-sm text-slate-500">Pick a file to read it.</p>}>
            {(file) => (
              <div class="flex flex-col gap-2">
                <div class="flex items-center gap-2">
                  <span class="min-w-0 flex-1 truncate font-mono text-xs">{file().path}</span>
                  <Show when={!props.readOnly}>
                    <Button size="sm" variant="danger" onClick={() => void remove(file().path)}>
                      Delete
                    </Button>
                  </Show>
                </div>
                <pre class="max-h-96 overflow-auto rounded-md bg-slate-50 p-2 text-xs whitespace-pre-wrap dark:bg-slate-900">{file().encoding === "utf8" ? file().content : "(binary file)"}</pre>
              </div>
            )}
          </Show>
        </section>
      </div>
      <section aria-label="Export and import" class="flex flex-wrap items-end gap-2">
        <a href={memoryExportUrl(props.projectId, props.agentId)} download="" class="inline-flex items-center rounded-md border border-slate-300 px-3 py-1.5 text-sm font-medium hover:bg-slate-50 dark:border-slate-600 dark:hover:bg-slate-800">
          Export memory
        </a>
        <Show when={!props.readOnly}>
          <SelectField label="Import mode" value={mode()} onValue={setMode} options={MODES} class="w-72" />
          <Button onClick={() => fileInput?.click()}>Import memory…</Button>
          <input
            ref={fileInput}
            type="file"
            accept="application/json,.json"
            class="hidden"
            aria-label="Memory export file"
            onChange={(e) => {
              void pick(e.currentTarget.files?.[0]);
              e.currentTarget.value = "";
            }}
          />
        </Show>
      </section>
      <Show when={confirming()}>
        {(c) => (
          <Notice tone="warning">
            <p>{c().message}</p>
            <div class="mt-2 flex gap-2">
              <Button size="sm" variant="danger" onClick={() => void send(c().payload, true)}>
                Replace all memory
              </Button>
              <Button size="sm" onClick={() => setConfirming(undefined)}>
                Cancel
              </Button>
            </div>
          </Notice>
        )}
      </Show>
      <Show when={message()}>{(m) => <Notice tone={m().tone}>{m().text}</Notice>}</Show>
    </div>
  );
}
