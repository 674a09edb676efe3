/**
 * The workspace at the scrubber's cursor (issue 29): which files the event under the cursor
 * changed since the previous event and a unified diff of each, in one request per cursor move
 * (the checkpoint changes route compares the two checkpoints on the server), and "Restore files to here" for the session's creator,
 * an owner or the admin (the server refuses anyone else too). Restoring asks first, is done
 * in place by the server, and is undoable: the answer names the record whose files were
 * there before, and "Undo this restore" restores to it. A refusal over edits made outside the
 * session names the files and offers "Restore anyway".
 *
 * A session recorded without checkpoints answers 400 for its files: the panel says so
 * instead of showing an error.
 */
import { createEffect, createSignal, For, on, onCleanup, Show } from "solid-js";
import { getWorkspaceChanges, restoreFiles, type FilesRestored } from "../../api/checkpoints";
import { ApiError, errorText } from "../../api/http";
import { getSession } from "../../api/sessions";
import { Button } from "../../components/ui/Button";
import { Dialog } from "../../components/ui/Dialog";
import { Notice } from "../../components/ui/Notice";
import { Spinner } from "../../components/ui/Spinner";

/** Diffs fetched for one event at most; the rest are listed by name. */
const DIFFS_SHOWN = 20;

export interface FilesPanelProps {
  sessionId: string;
  /** The cursor's position and its number in the scrubber (for the dialog's words). */
  position: string;
  eventNumber: number;
  /** The previous event's position; undefined at the first event. */
  previous: string | undefined;
}

interface FileChange {
  path: string;
  diff: string;
}

interface FilesAtCursor {
  changes: FileChange[];
  more: number;
  total: number;
}

async function loadChanges(sessionId: string, position: string, previous: string | undefined): Promise<FilesAtCursor | "none"> {
  try {
    const at = await getWorkspaceChanges(sessionId, position, previous ?? position, DIFFS_SHOWN);
    return { changes: at.changes, more: at.more, total: at.total };
  } catch (e) {
    if (e instanceof ApiError && e.status === 400 && /no workspace checkpoint/.test(e.message)) return "none";
    throw e;
  }
}

function lineClass(line: string): string {
  if (line.startsWith("+++") || line.startsWith("---")) return "text-slate-500";
  if (line.startsWith("+")) return "bg-green-50 text-green-900 dark:bg-green-950 dark:text-green-100";
  if (line.startsWith("-")) return "bg-red-50 text-red-900 dark:bg-red-950 dark:text-red-100";
  if (line.startsWith("@@")) return "text-blue-700 dark:text-blue-300";
  return "";
}

function DiffView(props: { change: FileChange }) {
  return (
    <figure aria-label={`Diff of ${props.change.path}`} class="min-w-0">
      <figcaption class="font-mono text-xs font-semibold">{props.change.path}</figcaption>
      <pre class="max-h-72 overflow-auto rounded border border-slate-200 p-1 font-mono text-xs dark:border-slate-700">
        <For each={props.change.diff.replace(/\n$/, "").split("\n")}>{(line) => <div class={lineClass(line)}>{line === "" ? " " : line}</div>}</For>
      </pre>
    </figure>
  );
}

export function FilesPanel(props: FilesPanelProps) {
  // Plain signals, not resources: a resource read under the page's Suspense would blank the
  // page (and drop the scrubber's focus) each time the cursor moves.
  const [version, setVersion] = createSignal(0);
  const [shownFiles, setShownFiles] = createSignal<FilesAtCursor | "none" | undefined>(undefined);
  // The position the shown files are for: while the next one loads, the last stays, dimmed.
  const [shownFor, setShownFor] = createSignal<string | undefined>(undefined);
  const stale = () => shownFor() !== props.position;
  const [filesError, setFilesError] = createSignal<string | undefined>(undefined);
  const [mayRestore, setMayRestore] = createSignal(false);
  createEffect(
    on([() => props.sessionId, () => props.position, () => props.previous, version], ([sessionId, position, previous]) => {
      let live = true;
      loadChanges(sessionId, position, previous).then(
        (loaded) => {
          if (!live) return;
          setShownFiles(loaded);
          setShownFor(position);
          setFilesError(undefined);
        },
        (e: unknown) => live && setFilesError(errorText(e)),
      );
      onCleanup(() => (live = false));
    }),
  );
  createEffect(
    on(
      () => props.sessionId,
      (id) => {
        let live = true;
        setMayRestore(false);
        getSession(id).then(
          (s) => live && setMayRestore(s?.commands?.mayControl === true),
          () => undefined,
        );
        onCleanup(() => (live = false));
      },
    ),
  );
  const [confirming, setConfirming] = createSignal(false);
  const [busy, setBusy] = createSignal(false);
  const [restored, setRestored] = createSignal<FilesRestored | undefined>(undefined);
  const [restoreError, setRestoreError] = createSignal<{ message: string; outside: boolean } | undefined>(undefined);

  const restore = async (at: string | number, force = false) => {
    setConfirming(false);
    setBusy(true);
    setRestoreError(undefined);
    try {
      setRestored(await restoreFiles(props.sessionId, at, force));
      setVersion((v) => v + 1);
    } catch (e) {
      setRestoreError({ message: errorText(e), outside: e instanceof ApiError && e.status === 409 && (e.code === "outside_changes" || /outside the session/.test(e.message)) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-label="Files at the cursor" aria-busy={stale() ? "true" : "false"} class="flex min-w-0 flex-col gap-2 rounded-md border border-slate-200 p-2 dark:border-slate-700">
      <div class="flex flex-wrap items-center gap-2">
        <h3 class="flex-1 text-sm font-semibold">Files at event {props.eventNumber}</h3>
        <Show when={mayRestore() && shownFiles() !== "none"}>
          <Button size="sm" variant="secondary" disabled={busy()} onClick={() => setConfirming(true)}>
            {busy() ? "Restoring…" : "Restore files to here"}
          </Button>
        </Show>
      </div>
      <Show when={shownFiles() === undefined && filesError() === undefined}>
        <Spinner label="Loading the files" />
      </Show>
      <Show when={filesError()}>{(e) => <Notice tone="error">The files could not be loaded: {e()}</Notice>}</Show>
      <Show when={filesError() === undefined ? shownFiles() : undefined}>
        {(at) => (
          <Show when={at() !== "none" ? (at() as FilesAtCursor) : undefined} fallback={<p class="text-sm text-slate-500">This session has no workspace checkpoints: its files were not recorded.</p>}>
            {(shown) => (
              <div class={`flex min-w-0 flex-col gap-2 ${stale() ? "opacity-60" : ""}`}>
                <p class="text-sm" aria-label="Files changed at this event">
                  {shown().changes.length + shown().more === 0
                    ? `No file changed at this event (${shown().total} in the workspace).`
                    : `${shown().changes.length + shown().more} file${shown().changes.length + shown().more === 1 ? "" : "s"} changed at this event: ${shown()
                        .changes.map((c) => c.path)
                        .join(", ")}${shown().more > 0 ? ` and ${shown().more} more` : ""}`}
                </p>
                <For each={shown().changes}>{(change) => <DiffView change={change} />}</For>
              </div>
            )}
          </Show>
        )}
      </Show>
      <Show when={restored()}>
        {(r) => (
          <Notice tone="success">
            <span>
              Files restored: {r().written.length} written, {r().removed.length} removed{r().notRestored.length > 0 ? `, ${r().notRestored.length} left as they are (${r().notRestored.map((n) => `${n.path}: ${n.reason}`).join("; ")})` : ""}.
              <Show when={r().undoRecord}>{(u) => ` Record ${u()} holds the files from before: restoring to it undoes this.`}</Show>
            </span>
            <Show when={r().undoRecord}>
              {(u) => (
                <Button size="sm" variant="ghost" class="ml-2" disabled={busy()} onClick={() => void restore(u())}>
                  Undo this restore
                </Button>
              )}
            </Show>
          </Notice>
        )}
      </Show>
      <Show when={restoreError()}>
        {(e) => (
          <Notice tone="error">
            <span>Could not restore the files: {e().message}</span>
            <Show when={e().outside}>
              <Button size="sm" variant="danger" class="ml-2" disabled={busy()} onClick={() => void restore(props.position, true)}>
                Restore anyway
              </Button>
            </Show>
          </Notice>
        )}
      </Show>
      <Show when={confirming()}>
        <Dialog title="Restore the files?" onClose={() => setConfirming(false)}>
          <p class="mb-3 text-sm">
            The workspace's files go back to how they were at event {props.eventNumber}, in place: files written since are overwritten or removed. The current files are recorded first, so
            you can undo this.
          </p>
          <div class="flex justify-end gap-2">
            <Button size="sm" variant="secondary" onClick={() => setConfirming(false)}>
              Cancel
            </Button>
            <Button size="sm" variant="primary" onClick={() => void restore(props.position)}>
              Restore files
            </Button>
          </div>
        </Dialog>
      </Show>
    </section>
  );
}
