/**
 * The live runner: keeps a projections database following the traces while a host (the
 * server) runs, so sessions run by the CLI or the SDK appear without the host running them.
 *
 * A pass brings every projection up to the end of every trace file (ProjectionStore.catchUp).
 * Passes are triggered by file-system events on the data root's trace folders (fs.watch on
 * the folders `traceDirectories` names, refreshed every pass as folders appear; a burst of events settles for a few milliseconds
 * into one pass) and by a polling timer, the fallback where watching is unavailable or misses
 * an event. Triggers arriving during a pass coalesce into one more.
 *
 * The database may be deleted at any time: a pass that finds the file gone closes its handle,
 * rebuilds into a fresh file and swaps it in; one that finds a different file (rebuilt by
 * someone else) reopens it. Readers go through `read()`, which waits while that happens.
 * A failing pass is reported to `onError` and retried on the next trigger; it never stops the host.
 * On PostgreSQL the "file" is a schema: its oid is its identity, and a schema dropped (or swapped
 * by a rebuild) is handled the same way. `holdsDuty` makes the background passes one node's job.
 */
import { existsSync, watch, type FSWatcher } from "node:fs";
import type { Kysely } from "kysely";
import type { Projection } from "./contract.js";
import { isPostgresTarget } from "./dialect.js";
import { postgresSchemaExists } from "./postgres-rebuild.js";
import { LIVE_SCHEMA } from "./postgres-database.js";
import { rebuildProjections } from "./rebuild.js";
import { ProjectionStore } from "./store.js";
import { traceDirectories } from "./trace-folders.js";

export interface LiveRunnerOptions {
  root: string;
  /** The SQLite file, or a postgres:// URL (the tables in `schema`). */
  file: string;
  /** On PostgreSQL, the schema (default `penguin_projections`). */
  schema?: string | undefined;
  projections: readonly Projection[];
  /** How often to look for changes without a file-system event. Default 1000 ms. */
  pollIntervalMs?: number;
  /** How long a burst of file-system events is gathered into one pass. Default 50 ms. */
  settleMs?: number;
  onError?: (error: unknown) => void;
  /**
   * Whether this process follows the traces in the background now. Several servers on one
   * PostgreSQL pass the cluster duty `projections` (an advisory lock held by one of them, taken
   * over when that one dies): only its holder catches up on the poll timer and file-system
   * events; the others only look at what the holder wrote (their `onCaughtUp` listeners still
   * run). `refresh()` catches up on any node: a read right after this node appended must see it,
   * and the writers' lock plus the checkpoints' compare-and-set apply each line once however
   * many nodes do. Unset: always (one server, SQLite).
   */
  holdsDuty?: () => boolean | Promise<boolean>;
}

export class LiveProjectionRunner {
  readonly #options: LiveRunnerOptions;
  #store: Promise<ProjectionStore>;
  #identity: string | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  readonly #waiters: Array<() => void> = [];
  #stopped = false;
  #following = true;
  #timer: NodeJS.Timeout | undefined;
  #settling: NodeJS.Timeout | undefined;
  readonly #watchers = new Map<string, FSWatcher>();
  readonly #listeners: Array<(store: ProjectionStore) => Promise<void>> = [];

  private constructor(options: LiveRunnerOptions, store: Promise<ProjectionStore>) {
    this.#options = options;
    this.#store = store;
  }

  /** Opens (or builds, when missing) the database, catches up once, then follows the traces. */
  static async start(options: LiveRunnerOptions): Promise<LiveProjectionRunner> {
    const runner = new LiveProjectionRunner(options, LiveProjectionRunner.#openOrBuild(options));
    runner.#identity = await (await runner.#store).database.identity();
    await runner.refresh();
    const interval = options.pollIntervalMs ?? 1000;
    runner.#timer = setInterval(() => runner.#trigger(), interval);
    runner.#timer.unref();
    return runner;
  }

  static async #openOrBuild(o: LiveRunnerOptions): Promise<ProjectionStore> {
    const missing = isPostgresTarget(o.file) ? !(await postgresSchemaExists(o.file, o.schema ?? LIVE_SCHEMA)) : !existsSync(o.file);
    if (missing) await rebuildProjections({ root: o.root, file: o.file, schema: o.schema, projections: o.projections });
    return ProjectionStore.open({ file: o.file, schema: o.schema, root: o.root, projections: o.projections });
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

  /** Called after every pass that caught up, with the current store (a host mirrors what it needs). */
  onCaughtUp(listener: (store: ProjectionStore) => Promise<void>): void {
    this.#listeners.push(listener);
  }

  /** A pass that starts after this call; resolves when it has finished. */
  refresh(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    return new Promise((resolve) => {
      this.#waiters.push(resolve);
      this.#kick();
    });
  }

  /**
   * A background pass soon (gathered with other triggers): it catches up only on the duty's
   * holder, and runs the listeners everywhere. For hints that another node wrote (a cluster's
   * notices): the holder brings the lines in once, the others read the rows it wrote.
   */
  nudge(): void {
    this.#trigger();
  }

  /** Whether this node held the duty at its last pass: its background passes catch up, the others' only look. */
  get following(): boolean {
    return this.#following;
  }

  /** Starts a pass now unless one is running; the callers waiting get the pass after it. */
  #kick(): void {
    if (this.#running !== undefined) return;
    const waiting = this.#waiters.splice(0);
    this.#again = false;
    // A pass someone waits for (refresh) catches up; a background one only on the duty's holder.
    this.#running = this.#pass(waiting.length > 0).finally(() => {
      this.#running = undefined;
      for (const resolve of waiting) resolve();
      if (this.#stopped) {
        for (const resolve of this.#waiters.splice(0)) resolve();
      } else if (this.#waiters.length > 0) {
        this.#kick();
      } else if (this.#again) {
        // Background triggers that came during the pass: after a pause, so a stream of
        // appends never keeps passes running back to back on the host's event loop.
        this.#soon();
      }
    });
  }

  /** A file-system event or the poll timer: a pass soon, gathering a burst into one. */
  #trigger(): void {
    if (this.#stopped) return;
    if (this.#running !== undefined) this.#again = true;
    else this.#soon();
  }

  async #pass(asked: boolean): Promise<void> {
    try {
      await this.#followFileIdentity();
      const store = await this.#store;
      const duty = this.#options.holdsDuty === undefined ? true : await this.#options.holdsDuty();
      this.#following = duty;
      if (asked || duty) await store.catchUp();
      for (const listener of this.#listeners) await listener(store);
      this.#watchFolders();
    } catch (error) {
      (this.#options.onError ?? ((e) => process.stderr.write(`projections: ${e instanceof Error ? e.message : String(e)}\n`)))(error);
    }
  }

  /** Rebuilds when the file (schema) was deleted, reopens when it was replaced. */
  async #followFileIdentity(): Promise<void> {
    const old = await this.#store;
    const now = await old.database.identity();
    if (now !== undefined && now === this.#identity) return;
    const next = (async () => {
      await old.close();
      return LiveProjectionRunner.#openOrBuild(this.#options);
    })();
    this.#store = next;
    this.#identity = await (await next).database.identity();
  }

  /** A pass shortly: a session appending line after line costs one pass per burst, not one per line. */
  #soon(): void {
    if (this.#settling !== undefined || this.#stopped) return;
    this.#settling = setTimeout(() => {
      this.#settling = undefined;
      if (this.#running !== undefined) this.#again = true;
      else this.#kick();
    }, this.#options.settleMs ?? 50);
    this.#settling.unref();
  }

  #watchFolders(): void {
    const wanted = new Set(traceDirectories(this.#options.root));
    for (const [dir, w] of this.#watchers) {
      if (!wanted.has(dir) || !existsSync(dir)) {
        w.close();
        this.#watchers.delete(dir);
      }
    }
    for (const dir of wanted) {
      if (this.#watchers.has(dir)) continue;
      try {
        const w = watch(dir, { persistent: false }, () => this.#trigger());
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
    if (this.#settling !== undefined) clearTimeout(this.#settling);
    for (const w of this.#watchers.values()) w.close();
    this.#watchers.clear();
    await this.#running;
    for (const resolve of this.#waiters.splice(0)) resolve();
    await (await this.#store).close();
  }
}
