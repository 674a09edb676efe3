/**
 * Choosing a workspace folder on the server through its directory browser (`P/dirs`):
 * a dialog that lists sub-folders of the current path, with "Up" and "Use this folder".
 * An empty workspace means the server creates a temporary one for the session.
 */
import { useEffect, useState } from "react";
import { errorText } from "../../api/http";
import { listDirs } from "../../api/projects";
import type { DirListing } from "../../api/types";
import { Button } from "../../components/ui/Button";
import { Dialog } from "../../components/ui/Dialog";
import { Notice } from "../../components/ui/Notice";
import { Spinner } from "../../components/ui/Spinner";
import { Icon } from "../../components/ui/Icon";

export function WorkspacePicker({ projectId, start, onPick, onClose }: { projectId: string; start: string | undefined; onPick(path: string): void; onClose(): void }) {
  const [path, setPath] = useState<string | undefined>(start === "" ? undefined : start);
  const [listing, setListing] = useState<DirListing | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);

  useEffect(() => {
    let live = true;
    setError(undefined);
    listDirs(projectId, path).then(
      (l) => live && setListing(l),
      (e: unknown) => live && setError(errorText(e)),
    );
    return () => {
      live = false;
    };
  }, [projectId, path]);

  const join = (dir: string) => `${(listing?.path ?? "").replace(/\/$/, "")}/${dir}`;

  return (
    <Dialog title="Choose a workspace folder" onClose={onClose} wide>
      <p className="mb-2 font-mono text-xs break-all text-slate-600 dark:text-slate-400" aria-live="polite">
        {listing?.path ?? path ?? "…"}
      </p>
      {error !== undefined && <Notice tone="error">{error}</Notice>}
      {listing === undefined && error === undefined ? (
        <Spinner label="Loading folders" />
      ) : (
        <ul aria-label="Folders" className="max-h-80 overflow-auto rounded border border-slate-200 dark:border-slate-800">
          {listing?.parent != null && (
            <li>
              <button type="button" className="w-full px-3 py-1.5 text-left text-sm hover:bg-slate-100 dark:hover:bg-slate-800" onClick={() => setPath(listing.parent ?? undefined)}>
                <Icon name="up" className="mr-1 h-4 w-4 align-[-3px]" /> Up
              </button>
            </li>
          )}
          {listing?.dirs.map((d) => (
            <li key={d}>
              <button type="button" className="w-full px-3 py-1.5 text-left font-mono text-sm hover:bg-slate-100 dark:hover:bg-slate-800" onClick={() => setPath(join(d))}>
                <Icon name="folder" className="mr-1 h-4 w-4 align-[-3px] text-amber-500" /> {d}
              </button>
            </li>
          ))}
          {listing?.dirs.length === 0 && <li className="px-3 py-1.5 text-sm text-slate-500">No sub-folders</li>}
        </ul>
      )}
      <div className="mt-3 flex justify-end gap-2">
        <Button onClick={onClose}>Cancel</Button>
        <Button variant="primary" disabled={listing === undefined} onClick={() => listing !== undefined && onPick(listing.path)}>
          Use this folder
        </Button>
      </div>
    </Dialog>
  );
}
