/**
 * Choosing a workspace folder on the server through its directory browser (`P/dirs`):
 * a dialog that lists sub-folders of the current path, with "Up" and "Use this folder", and
 * the roots a workspace may lie under (the admin's Settings → Workspace roots, and the agent's
 * own workspaces folder) as buttons to jump to. An empty workspace means the server creates a
 * temporary one for the session.
 */
import { createEffect, createSignal, For, on, onCleanup, Show } from "solid-js";
import { errorText } from "../../api/http";
import { listDirs } from "../../api/projects";
import type { DirListing } from "../../api/types";
import { Button } from "../../components/ui/Button";
import { Dialog } from "../../components/ui/Dialog";
import { Icon } from "../../components/ui/Icon";
import { Notice } from "../../components/ui/Notice";
import { Spinner } from "../../components/ui/Spinner";

export function WorkspacePicker(props: { projectId: string; start: string | undefined; onPick(path: string): void; onClose(): void }) {
  const [path, setPath] = createSignal<string | undefined>(props.start === "" ? undefined : props.start);
  const [listing, setListing] = createSignal<DirListing | undefined>(undefined);
  const [error, setError] = createSignal<string | undefined>(undefined);

  createEffect(
    on([() => props.projectId, path], ([projectId, at]) => {
      let live = true;
      setError(undefined);
      listDirs(projectId, at).then(
        (l) => live && setListing(l),
        (e: unknown) => live && setError(errorText(e)),
      );
      onCleanup(() => (live = false));
    }),
  );

  const join = (dir: string) => `${(listing()?.path ?? "").replace(/\/$/, "")}/${dir}`;

  return (
    <Dialog title="Choose a workspace folder" onClose={() => props.onClose()} wide>
      <p class="mb-2 font-mono text-xs break-all text-slate-600 dark:text-slate-400" aria-live="polite">
        {listing()?.path ?? path() ?? "…"}
      </p>
      <Show when={(listing()?.roots.length ?? 0) > 1}>
        <div role="group" aria-label="Workspace roots" class="mb-2 flex flex-wrap gap-1">
          <For each={listing()?.roots ?? []}>
            {(root) => (
              <button
                type="button"
                aria-pressed={listing()?.path === root}
                class={`max-w-full truncate rounded border px-2 py-0.5 font-mono text-xs ${listing()?.path === root ? "border-blue-500 bg-blue-50 dark:bg-slate-800" : "border-slate-300 hover:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-800"}`}
                onClick={() => setPath(root)}
              >
                {root}
              </button>
            )}
          </For>
        </div>
      </Show>
      <Show when={error()}>{(e) => <Notice tone="error">{e()}</Notice>}</Show>
      <Show when={listing() !== undefined || error() !== undefined} fallback={<Spinner label="Loading folders" />}>
        <ul aria-label="Folders" class="max-h-80 overflow-auto rounded border border-slate-200 dark:border-slate-800">
          <Show when={listing()?.parent}>
            {(parent) => (
              <li>
                <button type="button" class="w-full px-3 py-1.5 text-left text-sm hover:bg-slate-100 dark:hover:bg-slate-800" onClick={() => setPath(parent())}>
                  <Icon name="up" class="mr-1 h-4 w-4 align-[-3px]" /> Up
                </button>
              </li>
            )}
          </Show>
          <For each={listing()?.dirs ?? []}>
            {(d) => (
              <li>
                <button type="button" class="w-full px-3 py-1.5 text-left font-mono text-sm hover:bg-slate-100 dark:hover:bg-slate-800" onClick={() => setPath(join(d))}>
                  <Icon name="folder" class="mr-1 h-4 w-4 align-[-3px] text-amber-500" /> {d}
                </button>
              </li>
            )}
          </For>
          <Show when={listing()?.dirs.length === 0}>
            <li class="px-3 py-1.5 text-sm text-slate-500">No sub-folders</li>
          </Show>
        </ul>
      </Show>
      <div class="mt-3 flex justify-end gap-2">
        <Button onClick={() => props.onClose()}>Cancel</Button>
        <Button
          variant="primary"
          disabled={listing() === undefined}
          onClick={() => {
            const l = listing();
            if (l !== undefined) props.onPick(l.path);
          }}
        >
          Use this folder
        </Button>
      </div>
    </Dialog>
  );
}
