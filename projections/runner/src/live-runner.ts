/**
 * The live runner: keeps a projections database following the traces while a host (the
 * server) runs, so sessions run by the CLI or the SDK appear without the host running them.
 *
 * A pass brings every projection up to the end of every trace file (ProjectionStore.catchUp).
 * Passes are triggered by file-system events on the data root's trace folders (fs.watch,
 * refreshed every pass as folders appear) and by a polling timer, the fallback where watching
 * is unavailable or misses an event. Triggers arriving during a pass coalesce into one more.
 *
 * The database may be deleted at any time: a pass that finds the file gone closes its handle,
 * rebuilds into a fresh file and swaps it in; one that finds a different file (rebuilt by
 * someone else) reopens it. Readers go through `read()`, which waits while that happens.
 * A failing pass is reported to `onError` and retried on the next trigger; it never stops the host.
 */
import { existsSync, statSync, watch, type FSWatcher } from "node:fs";
import type { Kysely } from "kysely";
import type { Projection } from "./contract.js";
import { rebuildProjections } from "./rebuild.js";
import { ProjectionStore } from "./store.js";
import { traceDirectories } from "./trace-folders.js";

export interface LiveRunnerOptions {
  root: string;
  file: string;
  projections: readonly Projection[];
  /** How often to look for changes without a file-system event. Default 1000 ms. */
  pollIntervalMs?: number;
  onError?: (error: unknown) => void;
}

function inodeOf(file: string): number | undefined {
  try {
    return statSync(file).ino;
  } catch {
    return undefined;
  }
}

export class LiveProjectionRunner {
  readonly #options: LiveRunnerOptions;
  #store: Promise<ProjectionStore>;
  #inode: number | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = false;
  #timer: NodeJS.Timeout | undefined;
  readonly #watchers = new Map<string, FSWatcher>();

  private constructor(options: LiveRunnerOptions, store: Promise<ProjectionStore>) {
    this.#options = options;
    this.#store = store;
  }

  /** Opens (or builds, when missing) the database, catches up once, then follows the traces. */
  static async start(options: LiveRunnerOptions): Promise<LiveProjectionRunner> {
    const runner = new LiveProjectionRunner(options, LiveProjectionRunner.#openOrBuild(options));
    await runner.#store;
    runner.#inode = inodeOf(options.file);
    await runner.refresh();
    const interval = options.pollIntervalMs ?? 1000;
    runner.#timer = setInterval(() => void runner.refresh(), interval);
    runner.#timer.unref();
    return runner;
  }

  static async #openOrBuild(o: LiveRunnerOptions): Promise<ProjectionStore> {
    if (!existsSync(o.file)) await rebuildProjections({ root: o.root, file: o.file, projections: o.projections });
    return ProjectionStore.open({ file: o.file, root: o.root, projections: o.projections });
  }

  /** Runs a query against the current database (waiting while it is being rebuilt or reopened). */
  async read<T>(query: (db: Kysely<any>) => Promise<T>): Promise<T> {
    const store = await this.#store;
    return query(store.db);
  }

  /** The current store (waiting while it is being rebuilt or reopened). */
  async store(): Promise<ProjectionStore> {
    return this.#store;
  }

  /** A pass that starts after this call; resolves when it (and any it coalesced) has finished. */
  refresh(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    if (this.#running !== undefined) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      try {
        do {
          this.#again = false;
          await this.#pass();
        } while (this.#again && !this.#stopped);
      } finally {
        this.#running = undefined;
      }
    })();
    return this.#running;
  }

  async #pass(): Promise<void> {
    try {
      await this.#followFileIdentity();
      const store = await this.#store;
      await store.catchUp();
      this.#watchFolders();
    } catch (error) {
      (this.#options.onError ?? ((e) => process.stderr.write(`projections: ${e instanceof Error ? e.message : String(e)}\n`)))(error);
    }
  }

  /** Rebuilds when the file was deleted, reopens when it was replaced. */
  async #followFileIdentity(): Promise<void> {
    const now = inodeOf(this.#options.file);
    if (now !== undefined && now === this.#inode) return;
    const old = await this.#store;
    const next = (async () => {
      await old.close();
      return LiveProjectionRunner.#openOrBuild(this.#options);
    })();
    this.#store = next;
    await next;
    this.#inode = inodeOf(this.#options.file);
  }

  #watchFolders(): void {
    const wanted = new Set([this.#options.root, ...traceDirectories(this.#options.root)]);
    for (const [dir, w] of this.#watchers) {
      if (!wanted.has(dir) || !existsSync(dir)) {
        w.close();
        this.#watchers.delete(dir);
      }
    }
    for (const dir of wanted) {
      if (this.#watchers.has(dir)) continue;
      try {
        const w = watch(dir, { persistent: false }, () => void this.refresh());
        w.on("error", () => {
          w.close();
          this.#watchers.delete(dir);
        });
        this.#watchers.set(dir, w);
      } catch {
        // Watching is unavailable here (limits, platform): the polling timer covers this folder.
      }
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    for (const w of this.#watchers.values()) w.close();
    this.#watchers.clear();
    await this.#running;
    await (await this.#store).close();
  }
}
