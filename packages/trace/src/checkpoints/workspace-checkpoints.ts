/**
 * One workspace's checkpoints over an agent's store: `take` scans the workspace, makes the new
 * blobs and the tree durable (one pack, one fsync) and returns the tree id and the paths that
 * changed since the last checkpoint, for the caller to append as a `workspace_checkpoint`
 * event; it returns nothing when nothing changed. `restore` puts a tree back in place, `read`
 * and `treeOf` answer what a checkpoint holds. The store is shared by every session of the
 * agent (`<agent>/checkpoints/`), so a file is stored once however many sessions see it.
 *
 * With `watch()` (a session does it), `takeChanged` asks a file watch which paths changed
 * since the last scan and looks only at those (`changed-scan.ts`); whenever the watch cannot
 * vouch for that (`workspace-watch.ts`), or `full` is asked (each task's start), it scans the
 * whole workspace like `take`. `close()` ends the watch.
 */
import { changedPaths, foldersAbove, loadTree, storeTree, type Tree, type TreeEntry } from "./tree.js";
import { DEFAULT_CHECKPOINT_IGNORE } from "./ignore-rules.js";
import { PackStore, type PendingPack } from "./pack-store.js";
import { restoreTree, type RestoreReport } from "./restore.js";
import { rescanNamedPaths } from "./changed-scan.js";
import type { RuleSet } from "./ignore-rules.js";
import { scanWorkspace, type ScanOptions, type ScanResult, type StatCache } from "./scan.js";
import { WorkspaceWatch } from "./workspace-watch.js";

/** Files above 10 MiB are recorded by hash and size only. */
export const DEFAULT_CHECKPOINT_MAX_FILE_BYTES = 10 * 1024 * 1024;

export interface CheckpointSettings {
  /** Gitignore lines applied before the workspace's own `.gitignore` (default node_modules/ and .git/). */
  ignore?: readonly string[];
  maxFileBytes?: number;
  /**
   * The session's secrets (vault values and their encoded forms): a blob holding one is
   * sealed, never stored in plain text. Given, the first checkpoint stores the other blobs as
   * they are (no gzip: ~1.3 s less on 200 MB); not given, every blob is gzip'd.
   */
  secrets?: readonly string[];
}

export interface CheckpointTaken {
  tree: string;
  changed: string[];
  /** Bytes the checkpoint added to the store (compressed new blobs and the tree). */
  storedBytes: number;
  /** How the workspace was looked at: every path, or only the paths a file watch named. */
  scan: "full" | "changed-paths";
}

const EMPTY: Tree = new Map();
/** Packs under 1 MiB are merged at close once there are 64 of them. */
const COMPACT_PACKS_BELOW_BYTES = 1 << 20;
const COMPACT_WHEN_PACKS = 64;

export class WorkspaceCheckpoints {
  readonly store: PackStore;
  readonly workspace: string;
  readonly #ignore: readonly string[];
  readonly #maxFileBytes: number;
  #cache: StatCache = new Map();
  /** Each scanned folder's ignore rules, from the last full scan on: set only while the last tree is the last scan's. */
  #rules: Map<string, RuleSet[]> | undefined;
  #last: { id: string; tree: Tree; folders?: Map<string, string> } | undefined;
  #watch: WorkspaceWatch | undefined;

  constructor(storeDir: string, workspace: string, settings: CheckpointSettings = {}) {
    this.store = new PackStore(storeDir, settings.secrets === undefined ? {} : { secrets: settings.secrets });
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
    this.#rules = undefined;
  }

  /**
   * Follow the workspace's changes with a file watch from the next scan on (Linux; elsewhere
   * every checkpoint stays a full scan). Returns why the watch is off, if it is.
   */
  watch(options: { maxFolders?: number } = {}): string | undefined {
    this.#watch ??= new WorkspaceWatch(this.workspace, this.store.tmpDir, options);
    return this.#watch.off;
  }

  /** Why the file watch is off (every checkpoint a full scan); undefined while it is on. */
  get watchOff(): string | undefined {
    return this.#watch === undefined ? "not watching" : this.#watch.off;
  }

  /**
   * Ends the file watch (the session ends): no handle stays open. The small packs its tool
   * calls left (one each) are merged into one once there are many (`PackStore.compact`); a
   * compaction that fails leaves them as they were.
   */
  close(): void {
    this.#watch?.close();
    try {
      this.store.compact({ smallerThan: COMPACT_PACKS_BELOW_BYTES, atLeast: COMPACT_WHEN_PACKS });
    } catch {
      // The packs stay as they are: every blob is still where its index says.
    }
  }

  /** Scan every path, store and return the new checkpoint; undefined when the tree is the last one. */
  take(): CheckpointTaken | undefined {
    // The first checkpoint stores its blobs as they are when the session's secrets are known (a blob
    // holding one is sealed: the vault-canary tests forbid a vault value in plain text under the data
    // root); without that list every blob is gzip'd. See the trace README.
    const pending = this.store.pending(this.#last === undefined && this.store.storesRaw ? "raw" : "compress");
    return settled(pending, () => {
      const scan = scanWorkspace(this.#scanOptions(), this.#cache, pending);
      this.#watch?.keepOnly(scan.rules);
      return this.#record(scan, changedPaths(this.#last?.tree ?? EMPTY, scan.tree), pending, "full");
    });
  }

  /**
   * The checkpoint after a tool call: only the paths the file watch saw change are looked at
   * again; a full scan (as `take`) when there is no watch, it cannot vouch for its list, or
   * `full` is asked.
   */
  async takeChanged(options: { full?: boolean } = {}): Promise<CheckpointTaken | undefined> {
    const watch = this.#watch;
    if (watch === undefined) return this.take();
    const changes = await watch.takeChanges();
    const last = this.#last;
    const rules = this.#rules;
    if (options.full === true || changes.kind === "full" || last === undefined || rules === undefined) return this.take();
    const pending = this.store.pending();
    try {
      const rescanned = settled(pending, () => rescanNamedPaths(this.#scanOptions(), { tree: last.tree as Map<string, TreeEntry>, cache: this.#cache, rules }, changes.paths, watch, pending));
      if (rescanned === "full") return this.take();
      return settled(pending, () => this.#record(rescanned.scan, rescanned.changed, pending, "changed-paths"));
    } catch (error) {
      watch.distrust(`the last checkpoint failed (${error instanceof Error ? error.message : String(error)})`);
      throw error;
    }
  }

  /** Paths that differ between the workspace now and the last checkpoint (stores nothing new for good). */
  changedSinceLast(): string[] {
    const pending = this.store.pending("hash-only");
    const { tree, cache } = scanWorkspace({ workspace: this.workspace, ignore: this.#ignore, maxFileBytes: this.#maxFileBytes }, this.#cache, pending);
    // Kept: the checkpoint that usually follows (a rewind's) then reads no file again. An entry
    // whose blob the store lacks is read again anyway (the stat cache asks the store).
    this.#cache = cache;
    return changedPaths(this.#last?.tree ?? EMPTY, tree);
  }

  #scanOptions(): ScanOptions {
    const watch = this.#watch;
    return {
      workspace: this.workspace,
      ignore: this.#ignore,
      maxFileBytes: this.#maxFileBytes,
      ...(watch === undefined ? {} : { onFolder: (path: string, ino: number) => watch.watchFolder(path, ino) }),
    };
  }

  #record(scan: ScanResult, changed: string[], pending: PendingPack, how: CheckpointTaken["scan"]): CheckpointTaken | undefined {
    const { tree, cache, rules } = scan;
    if (this.#last !== undefined && changed.length === 0) {
      pending.commit();
      this.#cache = cache;
      this.#rules = rules;
      return undefined;
    }
    const previous = this.#last?.folders;
    const { id, folders } = storeTree(tree, (bytes) => pending.add(bytes), previous === undefined ? undefined : { ids: previous, dirty: foldersAbove(changed) });
    const storedBytes = pending.bytes;
    pending.commit();
    this.#cache = cache;
    this.#rules = rules;
    this.#last = { id, tree, folders };
    return { tree: id, changed, storedBytes, scan: how };
  }

  treeOf(treeId: string): Tree {
    if (treeId === this.#last?.id) return this.#last.tree;
    return this.store.reading(() => loadTree(treeId, (id) => this.store.read(id)));
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
    const { tree: current, cache } = settled(pending, () => scanWorkspace({ workspace: this.workspace, ignore: this.#ignore, maxFileBytes: this.#maxFileBytes }, this.#cache, pending));
    pending.commit();
    this.#cache = cache;
    return this.store.reading(() => restoreTree(this.workspace, this.store, target, current));
  }
}

/** `work` with `pending` dropped (its temp file removed) when it throws. */
function settled<T>(pending: PendingPack, work: () => T): T {
  try {
    return work();
  } catch (error) {
    pending.abandon();
    throw error;
  }
}
