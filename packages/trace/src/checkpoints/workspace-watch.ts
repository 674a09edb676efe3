/**
 * Which workspace paths changed since the last checkpoint, from the kernel (inotify through
 * Node's `fs.watch`, one non-recursive watch per folder, managed here) instead of an lstat of
 * every path: a checkpoint after a tool call then looks only at the paths named here.
 *
 * Ordering (why `drain` is enough): libuv keeps ONE inotify instance per event loop, so every
 * watch of this process shares one kernel queue, which is first in, first out. A write is
 * queued as an event when its system call completes; a tool call has ended only after its
 * writes completed (a command's process has exited, and its files were closed before its exit
 * was reported). `drain` then creates and removes a marker file in a folder of the store that
 * is watched in the same instance: its event is queued after every event of the call, and libuv
 * reads the queue in order and hands each event to JavaScript synchronously, so once the
 * marker's event arrives every earlier event has been delivered. The shared instance is not
 * assumed: `start` checks in /proc/self/fdinfo that the marker folder and the workspace are
 * watched by the same inotify descriptor. (A marker in a separately read queue — another
 * instance, a worker thread's loop — would prove nothing.)
 *
 * Anything uncertain makes the next checkpoint a full scan (`uncertain`): a watch error, a
 * marker that never arrives, a burst of events as large as the kernel queue (libuv drops the
 * queue-overflow event silently, but an overflow needs a full queue, read in one poll phase),
 * a `.gitignore` change, or a workspace folder itself renamed or removed. It is off (always
 * full scans) off Linux, above `maxFolders` watches, or when the check above fails. Writes that
 * inotify never reports (through mmap, or through a hard link from outside the workspace) are
 * seen by the full scan at each task's start.
 */
import { closeSync, lstatSync, openSync, readdirSync, readFileSync, readlinkSync, unlinkSync, watch, type FSWatcher } from "node:fs";
import { randomBytes } from "node:crypto";
import { basename, join } from "node:path";

/** What a checkpoint learns from the watch: the paths to look at again, or that it must scan everything. */
export type WatchedChanges = { kind: "paths"; paths: Set<string> } | { kind: "full"; why: string };

const DEFAULT_MAX_FOLDERS = 20_000;
/** How long a marker may take to come back before the watch is deemed broken (a fallback, never a wait for work). */
const MARKER_TIMEOUT_MS = 5_000;

export class WorkspaceWatch {
  readonly #workspace: string;
  readonly #markerDir: string;
  readonly #maxFolders: number;
  readonly #burstLimit: number;
  /** Watched folders by workspace path ("" is the root), with the inode they were watched at. */
  readonly #folders = new Map<string, { watcher: FSWatcher; ino: number }>();
  #markerWatcher: FSWatcher | undefined;
  #dirty = new Set<string>();
  #uncertain: string | undefined = "no scan yet";
  #off: string | undefined;
  #burst = 0;
  #burstReset = false;
  readonly #waiting = new Map<string, () => void>();
  readonly #tag = randomBytes(4).toString("hex");
  #seq = 0;

  constructor(workspace: string, markerDir: string, options: { maxFolders?: number } = {}) {
    this.#workspace = workspace;
    this.#markerDir = markerDir;
    this.#maxFolders = options.maxFolders ?? DEFAULT_MAX_FOLDERS;
    this.#burstLimit = Math.floor(readNumber("/proc/sys/fs/inotify/max_queued_events", 16_384) / 2);
    if (process.platform !== "linux") this.#off = `file watching is used on Linux only (this is ${process.platform})`;
  }

  /** Why the watch is off (every checkpoint scans the whole workspace), if it is. */
  get off(): string | undefined {
    return this.#off;
  }

  /** Number of folders watched now (a test's view of the handles held). */
  get watchedFolders(): number {
    return this.#folders.size + (this.#markerWatcher === undefined ? 0 : 1);
  }

  /**
   * Watch `path` (a workspace folder, "" for the root) before it is read, so nothing made in
   * it after the read goes unseen. Called by the scans for every folder they enter.
   */
  watchFolder(path: string, ino: number): void {
    if (this.#off !== undefined) return;
    const known = this.#folders.get(path);
    if (known !== undefined && known.ino === ino) return;
    if (known !== undefined) this.forgetFolder(path);
    if (this.#folders.size >= this.#maxFolders) return this.#turnOff(`more than ${this.#maxFolders} folders to watch`);
    if (this.#markerWatcher === undefined && !this.#startMarker()) return;
    const full = path === "" ? this.#workspace : join(this.#workspace, ...path.split("/"));
    let watcher: FSWatcher;
    try {
      watcher = watch(full, { persistent: false }, (_event, name) => this.#onEvent(path, name));
    } catch (error) {
      this.#uncertain = `a folder could not be watched (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
      return;
    }
    watcher.on("error", () => this.#lose(path, "a folder's watch failed"));
    this.#folders.set(path, { watcher, ino });
    if (path === "") this.#checkSharedQueue(ino);
  }

  /** Stop watching `path` and every folder below it (removed, renamed, or now ignored). */
  forgetFolder(path: string): void {
    const prefix = `${path}/`;
    for (const [folder, { watcher }] of this.#folders) {
      if (folder === path || path === "" || folder.startsWith(prefix)) {
        watcher.close();
        this.#folders.delete(folder);
      }
    }
  }

  /** After a full scan: stop watching folders it did not enter (gone, or ignored now). */
  keepOnly(folders: ReadonlyMap<string, unknown>): void {
    for (const folder of [...this.#folders.keys()]) if (!folders.has(folder)) this.forgetFolder(folder);
  }

  /** Whether `path` is watched at inode `ino` (a folder replaced by another is not). */
  watches(path: string, ino: number): boolean {
    return this.#folders.get(path)?.ino === ino;
  }

  /**
   * Every event caused by what has already happened is delivered (see the file's comment),
   * then the changes since the last call are handed over and the next ones start afresh.
   */
  async takeChanges(): Promise<WatchedChanges> {
    if (this.#off !== undefined) return { kind: "full", why: this.#off };
    if (this.#uncertain === undefined) await this.#drain();
    const paths = this.#dirty;
    this.#dirty = new Set();
    const why = this.#uncertain;
    // A full scan re-watches every folder it enters: from now on the watch is trusted again.
    this.#uncertain = undefined;
    return why !== undefined ? { kind: "full", why } : { kind: "paths", paths };
  }

  /** The next checkpoint must scan everything (its caller failed half-way, say). */
  distrust(why: string): void {
    this.#uncertain ??= why;
  }

  /** Close every watch (the session ends). Idempotent. */
  close(): void {
    this.forgetFolder("");
    this.#markerWatcher?.close();
    this.#markerWatcher = undefined;
    for (const wake of this.#waiting.values()) wake();
    this.#waiting.clear();
    this.#off ??= "closed";
  }

  #onEvent(folder: string, name: string | Buffer | null): void {
    this.#countBurst();
    if (name === null) return this.#lose(folder, "an event without a name");
    const text = typeof name === "string" ? name : name.toString("utf8");
    const path = folder === "" ? text : `${folder}/${text}`;
    this.#dirty.add(path);
    // An event about the watched folder itself carries the folder's own name (libuv): it may
    // have been removed or moved away, and a folder made in its place can even get its inode
    // back, so its watch is not trusted any more: the next checkpoint scans it whole.
    const own = folder === "" ? basename(this.#workspace) : folder.slice(folder.lastIndexOf("/") + 1);
    if (own === text) {
      if (folder === "") this.#uncertain ??= "the workspace folder itself changed";
      else {
        this.#dirty.add(folder);
        const known = this.#folders.get(folder);
        if (known !== undefined) known.ino = -1;
      }
    }
    if (text === ".gitignore") this.#uncertain ??= "a .gitignore changed";
  }

  #countBurst(): void {
    this.#burst += 1;
    if (this.#burst >= this.#burstLimit) this.#uncertain ??= "a burst of events as large as the kernel's queue (it may have overflowed)";
    if (!this.#burstReset) {
      this.#burstReset = true;
      setImmediate(() => {
        this.#burst = 0;
        this.#burstReset = false;
      });
    }
  }

  #lose(folder: string, why: string): void {
    this.#uncertain ??= `${why} (${folder === "" ? "the workspace" : folder})`;
  }

  #turnOff(why: string): void {
    this.close();
    this.#off = why;
  }

  #startMarker(): boolean {
    try {
      this.#markerWatcher = watch(this.#markerDir, { persistent: false }, (_event, name) => {
        this.#countBurst();
        const text = name === null ? "" : name.toString();
        const wake = this.#waiting.get(text);
        if (wake !== undefined) {
          this.#waiting.delete(text);
          // Not inside libuv's pass over the events it read: the checkpoint that follows adds
          // and closes watches, which libuv must not see while it walks its watch lists.
          setImmediate(wake);
        }
      });
      this.#markerWatcher.on("error", () => this.#lose("", "the marker folder's watch failed"));
      return true;
    } catch (error) {
      this.#turnOff(`the marker folder cannot be watched (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
      return false;
    }
  }

  /** The marker and the workspace must share one inotify queue, else the marker proves nothing. */
  #checkSharedQueue(workspaceIno: number): void {
    let markerIno: number;
    try {
      markerIno = lstatSync(this.#markerDir).ino;
    } catch {
      return this.#turnOff("the marker folder is gone");
    }
    const wanted = [markerIno, workspaceIno].map((n) => `ino:${n.toString(16)} `);
    try {
      for (const fd of readdirSync("/proc/self/fd")) {
        let target: string;
        try {
          target = readlinkSync(`/proc/self/fd/${fd}`);
        } catch {
          continue;
        }
        if (target !== "anon_inode:inotify") continue;
        const info = readFileSync(`/proc/self/fdinfo/${fd}`, "utf8");
        if (wanted.every((w) => info.includes(w))) return;
      }
    } catch {
      // no /proc: cannot tell
    }
    this.#turnOff("the marker and the workspace are not watched through one inotify queue");
  }

  async #drain(): Promise<void> {
    const name = `drain-${process.pid}-${this.#tag}-${++this.#seq}`;
    let timer: NodeJS.Timeout | undefined;
    let arrived = false;
    const seen = new Promise<void>((resolve) => {
      this.#waiting.set(name, () => {
        arrived = true;
        resolve();
      });
      timer = setTimeout(resolve, MARKER_TIMEOUT_MS);
    });
    const marker = join(this.#markerDir, name);
    try {
      closeSync(openSync(marker, "wx", 0o600));
      unlinkSync(marker);
    } catch (error) {
      this.#waiting.delete(name);
      clearTimeout(timer);
      this.#uncertain ??= `the drain marker could not be written (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
      return;
    }
    await seen;
    clearTimeout(timer);
    this.#waiting.delete(name);
    if (!arrived && this.#off === undefined) this.#uncertain ??= "the drain marker's event never arrived";
  }
}

function readNumber(path: string, fallback: number): number {
  try {
    const n = Number(readFileSync(path, "utf8").trim());
    return Number.isFinite(n) && n > 0 ? n : fallback;
  } catch {
    return fallback;
  }
}
