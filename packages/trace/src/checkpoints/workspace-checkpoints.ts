/**
 * One workspace's checkpoints over an agent's store: `take` scans the workspace, makes the new
 * blobs and the tree durable (one pack, one fsync) and returns the tree id and the paths that
 * changed since the last checkpoint, for the caller to append as a `workspace_checkpoint`
 * event; it returns nothing when nothing changed. `restore` puts a tree back in place, `read`
 * and `treeOf` answer what a checkpoint holds. The store is shared by every session of the
 * agent (`<agent>/checkpoints/`), so a file is stored once however many sessions see it.
 */
import { changedPaths, foldersAbove, loadTree, storeTree, type Tree, type TreeEntry } from "./tree.js";
import { DEFAULT_CHECKPOINT_IGNORE } from "./ignore-rules.js";
import { PackStore } from "./pack-store.js";
import { restoreTree, type RestoreReport } from "./restore.js";
import { scanWorkspace, type StatCache } from "./scan.js";

/** Files above 10 MiB are recorded by hash and size only. */
export const DEFAULT_CHECKPOINT_MAX_FILE_BYTES = 10 * 1024 * 1024;

export interface CheckpointSettings {
  /** Gitignore lines applied before the workspace's own `.gitignore` (default node_modules/ and .git/). */
  ignore?: readonly string[];
  maxFileBytes?: number;
}

export interface CheckpointTaken {
  tree: string;
  changed: string[];
  /** Bytes the checkpoint added to the store (compressed new blobs and the tree). */
  storedBytes: number;
}

const EMPTY: Tree = new Map();

export class WorkspaceCheckpoints {
  readonly store: PackStore;
  readonly workspace: string;
  readonly #ignore: readonly string[];
  readonly #maxFileBytes: number;
  #cache: StatCache = new Map();
  #last: { id: string; tree: Tree; folders?: Map<string, string> } | undefined;

  constructor(storeDir: string, workspace: string, settings: CheckpointSettings = {}) {
    this.store = new PackStore(storeDir);
    this.workspace = workspace;
    this.#ignore = settings.ignore ?? DEFAULT_CHECKPOINT_IGNORE;
    this.#maxFileBytes = settings.maxFileBytes ?? DEFAULT_CHECKPOINT_MAX_FILE_BYTES;
  }

  /** The last checkpoint's tree id (seeded from the trace on resume), if any. */
  get lastTree(): string | undefined {
    return this.#last?.id;
  }

  /** Continue from a checkpoint the trace names (resume): changes are counted from it. */
  seed(treeId: string): void {
    this.#last = { id: treeId, tree: this.treeOf(treeId) };
  }

  /** Scan, store and return the new checkpoint; undefined when the tree is the last one. */
  take(): CheckpointTaken | undefined {
    const pending = this.store.pending();
    const { tree, cache } = scanWorkspace({ workspace: this.workspace, ignore: this.#ignore, maxFileBytes: this.#maxFileBytes }, this.#cache, pending);
    const changed = changedPaths(this.#last?.tree ?? EMPTY, tree);
    if (this.#last !== undefined && changed.length === 0) {
      pending.commit();
      this.#cache = cache;
      return undefined;
    }
    const previous = this.#last?.folders;
    const { id, folders } = storeTree(tree, (bytes) => pending.add(bytes), previous === undefined ? undefined : { ids: previous, dirty: foldersAbove(changed) });
    const storedBytes = pending.bytes;
    pending.commit();
    this.#cache = cache;
    this.#last = { id, tree, folders };
    return { tree: id, changed, storedBytes };
  }

  /** Paths that differ between the workspace now and the last checkpoint (stores nothing new for good). */
  changedSinceLast(): string[] {
    const pending = this.store.pending();
    const { tree } = scanWorkspace({ workspace: this.workspace, ignore: this.#ignore, maxFileBytes: this.#maxFileBytes }, this.#cache, pending);
    return changedPaths(this.#last?.tree ?? EMPTY, tree);
  }

  treeOf(treeId: string): Tree {
    if (treeId === this.#last?.id) return this.#last.tree;
    return loadTree(treeId, (id) => this.store.read(id));
  }

  /** One file's bytes in a checkpoint; undefined when the path is not a file there. */
  read(treeId: string, path: string): { entry: TreeEntry; bytes: Buffer | undefined } | undefined {
    const entry = this.treeOf(treeId).get(path);
    if (entry === undefined) return undefined;
    if (entry.kind !== "file" || entry.over === true) return { entry, bytes: undefined };
    return { entry, bytes: this.store.read(entry.hash) };
  }

  /**
   * Put the workspace back to `treeId`. The caller takes a checkpoint before (so the rewind can
   * be undone) and after (the state it restored, as the trace's next fact).
   */
  restore(treeId: string): RestoreReport {
    const target = this.treeOf(treeId);
    const pending = this.store.pending();
    const { tree: current } = scanWorkspace({ workspace: this.workspace, ignore: this.#ignore, maxFileBytes: this.#maxFileBytes }, this.#cache, pending);
    pending.commit();
    return restoreTree(this.workspace, this.store, target, current);
  }
}
