/**
 * ReadModelLog: the read-model changes the user feed announced (`session_row`, `usage_totals`),
 * kept on disk with their projection positions (`<root>/read-model-feed.jsonl`), so a client
 * that comes back with `Last-Event-ID` after a server restart gets exactly the changes it
 * missed instead of a snapshot. Derived data like projections.db: deleting it only means the
 * next reconnect from an older position gets a `projection_snapshot` again.
 *
 * The file's first line is `{"since": P}`: the log holds every change after position P. Each
 * further line is `{"position", "projectId", "event"}`. It keeps the newest MAX_ENTRIES
 * (rewritten with a later `since` when it has grown to twice that). If the projections
 * restart below the log (projections.db deleted and rebuilding), positions no longer mean the
 * same thing: the log starts over from there. Appends are synchronous writes of one line: a
 * crash loses at most the lines not yet written, and the reader skips a torn last line.
 */
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const READ_MODEL_LOG = "read-model-feed.jsonl";
export const MAX_ENTRIES = 5000;

export interface LoggedChange {
  position: number;
  projectId: string;
  event: { type: string } & Record<string, unknown>;
}

export class ReadModelLog {
  readonly #file: string;
  #since: number;
  #entries: LoggedChange[];

  /** Opens the log under `root`; `position` is where the projections stand now. */
  constructor(root: string, position: number) {
    this.#file = join(root, READ_MODEL_LOG);
    const read = readLog(this.#file);
    const last = read?.entries.at(-1)?.position ?? read?.since;
    if (read === undefined || last === undefined || last > position) {
      this.#since = position;
      this.#entries = [];
      this.#rewrite();
    } else {
      this.#since = read.since;
      this.#entries = read.entries;
    }
  }

  /** The position of the newest change logged (or `since` when none). */
  get newest(): number {
    return this.#entries.at(-1)?.position ?? this.#since;
  }

  /** True when every change after `position` is in the log. */
  covers(position: number): boolean {
    return position >= this.#since && position <= this.newest;
  }

  /** The changes after `position`, oldest first (check `covers` first). */
  after(position: number): LoggedChange[] {
    return this.#entries.filter((e) => e.position > position);
  }

  append(changes: readonly LoggedChange[]): void {
    if (changes.length === 0) return;
    appendFileSync(this.#file, changes.map((c) => `${JSON.stringify(c)}\n`).join(""));
    this.#entries.push(...changes);
    if (this.#entries.length >= 2 * MAX_ENTRIES) {
      const dropped = this.#entries.splice(0, this.#entries.length - MAX_ENTRIES);
      // Keep whole positions: the log answers for `since` only when it has every change after it.
      this.#since = dropped.at(-1)!.position;
      while (this.#entries.length > 0 && this.#entries[0]!.position <= this.#since) this.#entries.shift();
      this.#rewrite();
    }
  }

  #rewrite(): void {
    const text = [JSON.stringify({ since: this.#since }), ...this.#entries.map((e) => JSON.stringify(e))].join("\n") + "\n";
    writeFileSync(`${this.#file}.tmp`, text);
    renameSync(`${this.#file}.tmp`, this.#file);
  }
}

function readLog(file: string): { since: number; entries: LoggedChange[] } | undefined {
  if (!existsSync(file)) return undefined;
  const lines = readFileSync(file, "utf8").split("\n");
  let since: number | undefined;
  const entries: LoggedChange[] = [];
  for (const line of lines) {
    if (line.trim() === "") continue;
    let value: any;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (since === undefined) {
      if (!Number.isSafeInteger(value?.since)) return undefined;
      since = value.since;
      continue;
    }
    if (Number.isSafeInteger(value?.position) && typeof value.projectId === "string" && typeof value.event?.type === "string") entries.push(value);
  }
  return since === undefined ? undefined : { since, entries };
}
