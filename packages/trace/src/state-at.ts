/**
 * stateAt: a session's state at any point of its trace, for time travel and inspection.
 *
 * `stateAt(N)` is the fold of the session's first N events (across its rotated files) with
 * `evolve`; a position `NNN:LLLLLL` folds up to and including that line. Answering from the
 * start each time would cost a whole-session fold per question, so a `SessionFolds` keeps,
 * per session, in memory:
 * - the parsed files, keyed by path and size: a file that has not changed is not read again,
 *   and one that grew is re-read (files are append-only, so what was read stays valid);
 * - a snapshot of the state every `snapshotEvery` events, made while folding. A question
 *   then folds at most `snapshotEvery` events from the nearest snapshot before it.
 * States are immutable and share structure, so snapshots cost little memory.
 *
 * One eviction rule, by entries: a `SessionFolds` holds at most `maxEntries` entries (default
 * DEFAULT_MAX_ENTRIES), least recently used first out. An entry is one session's files and
 * snapshots, one recording's snapshots, or one value a caller remembers with `remember` (core's
 * parsed recordings). `foldCache` is the process's one instance: the SDK's agents, inspect,
 * the server's reads and core's recordings all use it, so a server with many agents still holds
 * at most that many sessions' folds.
 *
 * The snapshots are of the time-travel fold (time-travel.ts: `evolve`'s state plus the facts
 * `penguin inspect` shows), so one cache answers both the SDK's `sessionState` and inspect's
 * view. `foldRecordingAt` serves a recording already in memory (core's `loadRecording`) from
 * the same kind of snapshots, kept per recording object.
 *
 * Lines the reader skipped (torn, malformed) are not events: they have positions but no
 * state change, so a position on a skipped line answers the state after the event before it.
 *
 * `stateAtWith(source, …)` asks a `SnapshotSource` (a database's snapshots, snapshot-source.ts)
 * first: from its nearest snapshot only the events after it are read from the files. When the
 * source cannot answer for the session, the in-memory cache above answers.
 */
import { statSync } from "node:fs";
import type { OmniMessage } from "@penguin/omnimessage";
import { initialTimeTravelState, stepTimeTravel, type TimeTravelState } from "./time-travel.js";
import { comparePositions, parseAt, type StateAtTarget, type TracePosition } from "./position.js";
import { readTraceFile, traceFilesIn, type TraceFileRef } from "./reader.js";
import { foldFromSnapshot, type SnapshotSource } from "./snapshot-source.js";
import type { SessionState } from "./state.js";

export interface StateAtResult {
  state: SessionState;
  /** The time-travel fold whose `session` is `state` (the facts inspect shows beside it). */
  fold: TimeTravelState;
  /** Events folded (from the session start). */
  events: number;
  /** Events the session has in all. */
  totalEvents: number;
  /** The position of the last event folded; undefined when none was. */
  position: TracePosition | undefined;
}

interface ParsedFile {
  index: number;
  size: number;
  messages: OmniMessage[];
  lines: number[];
}

interface Snapshot {
  events: number;
  state: TimeTravelState;
}

interface SessionCache {
  files: ParsedFile[];
  /** Ascending by `events`; the first is always the initial state at 0. */
  snapshots: Snapshot[];
}

export const DEFAULT_SNAPSHOT_EVERY = 1000;
/** Entries a `SessionFolds` keeps (sessions, recordings, remembered values together). */
export const DEFAULT_MAX_ENTRIES = 16;

type Entry = { kind: "files"; cache: SessionCache } | { kind: "recording"; snapshots: TimeTravelState[] } | { kind: "value"; stamp: string; value: unknown };

export class SessionFolds {
  readonly #snapshotEvery: number;
  readonly #maxEntries: number;
  /** Every entry, least recently used first (a Map keeps insertion order; a use re-inserts). */
  readonly #entries = new Map<string | object, Entry>();

  constructor(options: { snapshotEvery?: number; maxEntries?: number } = {}) {
    this.#snapshotEvery = Math.max(1, options.snapshotEvery ?? DEFAULT_SNAPSHOT_EVERY);
    this.#maxEntries = Math.max(1, options.maxEntries ?? DEFAULT_MAX_ENTRIES);
  }

  /** How many entries are held now (at most `maxEntries`). */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * A value computed from files, kept under `key` while `stamp` (the files' sizes and times,
   * say) is unchanged, and evicted by the same rule as the folds.
   */
  remember<T>(key: string, stamp: string, build: () => T): T {
    const held = this.#entries.get(key);
    if (held?.kind === "value" && held.stamp === stamp) {
      this.#use(key, held);
      return held.value as T;
    }
    const value = build();
    this.#use(key, { kind: "value", stamp, value });
    return value;
  }

  #get(key: string | object): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry !== undefined) this.#use(key, entry);
    return entry;
  }

  #use(key: string | object, entry: Entry): void {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    while (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
  }

  /** The state of `sessionId` (its files under `tracesDir`) at `at`; the end when `at` is absent. */
  stateAt(tracesDir: string, sessionId: string, at?: string | number | StateAtTarget): StateAtResult {
    return this.stateAtFiles(`${tracesDir}\u0000${sessionId}`, traceFilesIn(tracesDir, sessionId), at);
  }

  /** Same, over an explicit list of files (lowest index first); `key` names the session in the cache. */
  stateAtFiles(key: string, refs: readonly TraceFileRef[], at?: string | number | StateAtTarget): StateAtResult {
    const cache = this.#refresh(key, refs);
    const target = at === undefined ? undefined : typeof at === "object" ? at : parseAt(at);
    const totalEvents = cache.files.reduce((n, f) => n + f.messages.length, 0);
    const goal = target === undefined ? totalEvents : target.kind === "count" ? Math.min(target.count, totalEvents) : eventsUpTo(cache.files, target.position);

    this.#laySnapshots(cache, totalEvents);
    let snapshot = cache.snapshots[0]!;
    for (const s of cache.snapshots) {
      if (s.events > goal) break;
      snapshot = s;
    }
    let state = snapshot.state;
    let events = snapshot.events;
    let position: TracePosition | undefined = events > 0 ? positionOf(cache.files, events - 1) : undefined;
    let { file, offset } = locate(cache.files, events);
    while (events < goal) {
      const f = cache.files[file]!;
      if (offset >= f.messages.length) {
        file += 1;
        offset = 0;
        continue;
      }
      state = stepTimeTravel(state, f.messages[offset]!);
      position = { file: f.index, line: f.lines[offset]! };
      offset += 1;
      events += 1;
      const last = cache.snapshots[cache.snapshots.length - 1]!;
      if (events % this.#snapshotEvery === 0 && events > last.events) cache.snapshots.push({ events, state });
    }
    return { state: state.session, fold: state, events, totalEvents, position };
  }

  /**
   * The time-travel fold of the first `n` of `messages`, a recording held in memory under
   * `recording` (the same object while its files are unchanged): a snapshot every
   * `snapshotEvery` events, laid on the first question up to the one asked, so a later
   * question folds at most that many events.
   */
  foldRecordingAt(recording: object, messages: (index: number) => OmniMessage, n: number): TimeTravelState {
    const every = this.#snapshotEvery;
    const held = this.#get(recording);
    const snapshots = held?.kind === "recording" ? held.snapshots : [initialTimeTravelState];
    if (held?.kind !== "recording") this.#use(recording, { kind: "recording", snapshots });
    while (snapshots.length * every <= n) {
      const from = (snapshots.length - 1) * every;
      let fold = snapshots[snapshots.length - 1]!;
      for (let i = from; i < from + every; i++) fold = stepTimeTravel(fold, messages(i));
      snapshots.push(fold);
    }
    const base = Math.floor(n / every);
    let fold = snapshots[base]!;
    for (let i = base * every; i < n; i++) fold = stepTimeTravel(fold, messages(i));
    return fold;
  }

  /**
   * Same as `stateAtFiles`, starting from the nearest snapshot `source` holds when it has one
   * for `sessionId` (only the events after it are read); otherwise from this cache.
   */
  async stateAtWith(source: SnapshotSource, sessionId: string, key: string, refs: readonly TraceFileRef[], at?: string | number | StateAtTarget): Promise<StateAtResult> {
    const target = at === undefined ? undefined : typeof at === "object" ? at : parseAt(at);
    let lookup;
    try {
      lookup = await source.nearest(sessionId, target, refs);
    } catch {
      // A derived database that cannot be read (locked, damaged), or a snapshot whose references
      // into the files no longer resolve (a file replaced or cut), is not an answer: the files are.
      lookup = undefined;
    }
    if (lookup === undefined) return this.stateAtFiles(key, refs, target);
    const folded = foldFromSnapshot(refs, lookup.snapshot, target);
    // The source may lag behind the files by the last few appends; the files have the last word.
    const totalEvents = folded.atEnd ? folded.events : Math.max(lookup.totalEvents, folded.events);
    return { state: folded.fold.session, fold: folded.fold, events: folded.events, totalEvents, position: folded.position };
  }

  /**
   * Folds on from the last snapshot to the end once, laying a snapshot every `snapshotEvery`
   * events: every later question then folds at most that many events (without it, a question
   * far past the snapshots laid so far would fold all the way there itself).
   */
  #laySnapshots(cache: SessionCache, totalEvents: number): void {
    let last = cache.snapshots[cache.snapshots.length - 1]!;
    if (last.events + this.#snapshotEvery > totalEvents) return;
    let state = last.state;
    let events = last.events;
    let { file, offset } = locate(cache.files, events);
    while (events + this.#snapshotEvery <= totalEvents || events % this.#snapshotEvery !== 0) {
      const f = cache.files[file];
      if (f === undefined) break;
      if (offset >= f.messages.length) {
        file += 1;
        offset = 0;
        continue;
      }
      state = stepTimeTravel(state, f.messages[offset]!);
      offset += 1;
      events += 1;
      if (events % this.#snapshotEvery === 0) {
        last = { events, state };
        cache.snapshots.push(last);
        if (events + this.#snapshotEvery > totalEvents) break;
      }
    }
  }

  /** Forget one entry (or all of them). */
  forget(key?: string | object): void {
    if (key === undefined) this.#entries.clear();
    else this.#entries.delete(key);
  }

  #refresh(key: string, refs: readonly TraceFileRef[]): SessionCache {
    const held = this.#get(key);
    let cache = held?.kind === "files" ? held.cache : undefined;
    if (cache === undefined) {
      cache = { files: [], snapshots: [{ events: 0, state: initialTimeTravelState }] };
      this.#use(key, { kind: "files", cache });
    }
    const files: ParsedFile[] = [];
    // Events before the first file that changed in a way that is not an append stay valid.
    let validEvents = Number.POSITIVE_INFINITY;
    let before = 0;
    for (let i = 0; i < refs.length; i++) {
      const ref = refs[i]!;
      const size = sizeOf(ref.file);
      const old = cache.files[i];
      let parsed: ParsedFile;
      if (old !== undefined && old.index === ref.index && old.size === size) {
        parsed = old;
      } else {
        const content = readTraceFile(ref.file);
        parsed = { index: ref.index, size, messages: content.messages, lines: content.lines };
        // A file that only grew keeps every event it had; anything else invalidates the
        // snapshots past what the two reads share.
        if (old !== undefined) {
          const kept = old.index === ref.index ? commonPrefix(parsed, old) : 0;
          if (kept < old.messages.length) validEvents = Math.min(validEvents, before + kept);
        }
      }
      files.push(parsed);
      before += parsed.messages.length;
    }
    // A file that disappeared takes its events with it.
    if (cache.files.length > refs.length) validEvents = Math.min(validEvents, before);
    cache.files = files;
    if (validEvents !== Number.POSITIVE_INFINITY) cache.snapshots = cache.snapshots.filter((s) => s.events <= validEvents);
    return cache;
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

function commonPrefix(a: ParsedFile, b: ParsedFile): number {
  const n = Math.min(a.messages.length, b.messages.length);
  for (let i = 0; i < n; i++) if (a.lines[i] !== b.lines[i]) return i;
  return n;
}

/** How many events lie at or before `position`. */
function eventsUpTo(files: readonly ParsedFile[], position: TracePosition): number {
  let count = 0;
  for (const f of files) {
    if (f.index < position.file) {
      count += f.messages.length;
      continue;
    }
    if (f.index > position.file) break;
    for (const line of f.lines) {
      if (comparePositions({ file: f.index, line }, position) > 0) break;
      count += 1;
    }
  }
  return count;
}

function locate(files: readonly ParsedFile[], events: number): { file: number; offset: number } {
  let left = events;
  for (let i = 0; i < files.length; i++) {
    const n = files[i]!.messages.length;
    if (left < n) return { file: i, offset: left };
    left -= n;
  }
  return { file: files.length, offset: 0 };
}

function positionOf(files: readonly ParsedFile[], eventIndex: number): TracePosition | undefined {
  const { file, offset } = locate(files, eventIndex);
  const f = files[file];
  return f === undefined ? undefined : { file: f.index, line: f.lines[offset]! };
}

/** The process's one fold cache (see the header): every in-process fold of a session goes through it. */
export const foldCache = new SessionFolds();

/** `SessionFolds.stateAt` on the process's fold cache. */
export function stateAt(tracesDir: string, sessionId: string, at?: string | number | StateAtTarget): StateAtResult {
  return foldCache.stateAt(tracesDir, sessionId, at);
}
