/**
 * The projection contract: a read model is `{ name, version, handles, migrate, apply }`.
 *
 * - `apply(batch, db, rows)` folds a batch of trace events into the projection's tables
 *   (`rows` writes many rows through statements prepared once: row-writer.ts). It is a
 *   function of the events only: time comes from each envelope's `timestamp`, never from the
 *   wall clock, so rebuilding from the same traces writes the same rows. It runs inside the
 *   runner's transaction, which also moves the checkpoint, so rows and checkpoint commit
 *   together or not at all.
 * - `handles` names the event kinds the projection reads (`session_meta`, or the payload
 *   type of a model or event message: `text`, `tool_call`, `request_end`…); the runner hands
 *   it only those. An empty list means every kind.
 * - `migrate(db)` creates the tables. Tables are named `<name>` or `<name>_<what>`: that is how
 *   the runner finds them to drop when `version` is bumped (which rebuilds the projection).
 * - `source` (optional) says where the projection can be imported from in another thread: the
 *   module's URL (`import.meta.url`) and the name it is exported under. A rebuild of many
 *   sessions builds disjoint groups of sessions in worker threads, each into a file of its
 *   own, and joins the files (parallel-rebuild.ts); it does so only when every projection has
 *   a `source`. That split asks one thing of `apply`: what it writes for a session depends on
 *   that session's events only, and a row two sessions both write (a link keyed by the child
 *   session) is replaced whole by the later one, as an upsert setting every column does.
 */
import type { Kysely } from "kysely";
import type { OmniMessage } from "@penguin/omnimessage";
import type { RowWriter } from "./row-writer.js";

/** Where a trace event lives: the session (from the file's path), the file index and the 1-based line. */
export interface TraceEvent {
  projectId: string;
  agentId: string;
  sessionId: string;
  fileIndex: number;
  line: number;
  /** Byte offset in the file right after the event's line (where the next line starts). */
  endByte: number;
  /**
   * The trace file it was read from, and the byte its line starts at: with them a projection
   * may store a reference to the line instead of a copy of it (the timeline's snapshots do).
   * Absent for events that were not read from a file (the given/when specs).
   */
  path?: string;
  startByte?: number;
  /** Event time, ms since the epoch, from the envelope's `timestamp` (0 when unreadable). */
  ts: number;
  kind: string;
  message: OmniMessage;
}

/** Where a worker thread imports a projection from: `(await import(module))[exportName]`. */
export interface ProjectionSource {
  module: string;
  exportName: string;
}

export interface Projection<DB = any> {
  readonly name: string;
  readonly version: number;
  readonly handles: readonly string[];
  readonly source?: ProjectionSource;
  migrate(db: Kysely<DB>): Promise<void>;
  apply(batch: readonly TraceEvent[], db: Kysely<DB>, rows: RowWriter): Promise<void>;
}

/** The kind a projection's `handles` refers to: `session_meta`, or the payload's own type tag. */
export function eventKind(m: OmniMessage): string {
  return m.type === "session_meta" ? "session_meta" : m.payload.type;
}

/** The public form of a position: `NNN:LLLLLL` (file index, line). */
export function positionText(fileIndex: number, line: number): string {
  return `${String(fileIndex).padStart(3, "0")}:${String(line).padStart(6, "0")}`;
}

const PROJECTION_NAME = /^[a-z][a-z0-9]{1,31}$/;

/** Checks a set of projections before the runner uses them: valid, unique names and integer versions. */
export function checkProjections(projections: readonly Projection[]): void {
  const seen = new Set<string>();
  for (const p of projections) {
    if (!PROJECTION_NAME.test(p.name) || p.name === "projection") {
      throw new Error(`projection name "${p.name}" is invalid: use 2–32 lowercase letters and digits, starting with a letter (not "projection", which the runner's own tables use)`);
    }
    if (seen.has(p.name)) throw new Error(`two projections are named "${p.name}": names must be unique`);
    if (!Number.isInteger(p.version) || p.version < 1) throw new Error(`projection "${p.name}" has version ${p.version}: it must be a positive integer`);
    seen.add(p.name);
  }
}
