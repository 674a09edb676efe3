/**
 * Snapshots of the time-travel fold (time-travel.ts) as JSON, for a database to keep.
 *
 * A session's state grows with it: the context, the tool call ids, the ids of finished calls
 * are lists that only get longer between compactions. Written whole every K events, a long
 * session's snapshots would add up to its length squared. So each list (a Sequence) is stored
 * once, as a *lineage*: chunks of items, each chunk what the list gained since the previous
 * snapshot, and a snapshot names a list by `{ l: lineage, n: size }`. A list that was reset or
 * rebuilt (a compaction empties the history, a window opens afresh) starts a new lineage.
 * Which list continues which is decided by identity (`Sequence.itemsAfter`): the fold appends
 * to the very nodes the previous snapshot saw, so nothing is compared by value.
 *
 * The rest of the state is small and written whole; derived parts are not written at all
 * (the id HashSets are rebuilt from their lists, the file-call index from the file calls).
 *
 * Lineage names are `<snapshot id>/<field>`: a function of the events, so two databases built
 * from the same traces, in any batches, hold the same rows. `SNAPSHOT_FORMAT` is stored with
 * every snapshot; a reader ignores snapshots of another format (and the timeline projection's
 * version is bumped with it, which rebuilds them).
 *
 * Messages are not copied: the trace already holds each one as a line. An item that is an
 * envelope read from a trace line (or that envelope's payload) is stored as a reference to the
 * line, `[file index, start byte, length, timestamp]` (`, "payload"` for the payload; `,
 * "output", <timestamp>` for the copy of a tool output a fold wraps in a new envelope), which
 * the encoder learns from `refOf`; anything else (a placeholder output, a message the fold
 * made itself) is stored whole. The state's tool outputs are stored the same way. A chunk of references is a few dozen bytes per message instead
 * of the message's JSON, and encoding it stringifies no message. Decoding reads the lines back
 * from the session's files (`TraceLineResolver`), and trusts a reference only if the bytes
 * there are still that line: the range starts and ends on a line boundary, holds exactly one
 * envelope, and that envelope has the stored timestamp. Anything else throws, and the caller
 * folds from the trace instead (a file that was replaced, truncated or rewritten).
 */
import * as HashMap from "effect/HashMap";
import * as HashSet from "effect/HashSet";
import { closeSync, openSync } from "node:fs";
import type { OmniMessage, ToolCallOutputPayload, ToolCallPayload } from "@penguin/omnimessage";
import { readRange } from "./file-range.js";
import { parseTraceBytes, type TraceFileRef } from "./reader.js";
import { Sequence } from "./sequence.js";
import { initialSessionState, type OpenWindow, type SessionState } from "./state.js";
import { initialInspectFacts, type FileToolCall, type InspectFacts, type TimeTravelState } from "./time-travel.js";

// 2: messages are references to their trace lines (format 1 copied their JSON).
export const SNAPSHOT_FORMAT = 2;

/** Where an envelope was read from: its file's index, the byte its line starts at, the line's length with its newline, and its timestamp. */
export interface TraceLineRef {
  file: number;
  start: number;
  length: number;
  timestamp: string;
}

/**
 * How an item refers to a trace line: it is the line's envelope, or its payload, or (`output`)
 * a new envelope of `timestamp` around a copy of the line's tool output payload (the copy of a
 * tool's output that opens the next request).
 */
export type ItemRef = { line: TraceLineRef; part: "envelope" | "payload" } | { line: TraceLineRef; part: "output"; timestamp: string };

/** The line an item refers to, for an item taken from a trace line; undefined for anything else (stored whole). */
export type LineRefOf = (item: object) => ItemRef | undefined;

/** A reference as stored in a chunk's items. */
type StoredLineRef =
  | [file: number, start: number, length: number, timestamp: string]
  | [file: number, start: number, length: number, timestamp: string, part: "payload"]
  | [file: number, start: number, length: number, timestamp: string, part: "output", envelopeTimestamp: string];

function storedItem(item: unknown, refOf: LineRefOf | undefined): unknown {
  if (refOf === undefined || typeof item !== "object" || item === null) return item;
  return storedRef(item, refOf(item));
}

function storedRef(item: unknown, found: ItemRef | undefined): unknown {
  if (found === undefined) return item;
  const { file, start, length, timestamp } = found.line;
  if (found.part === "output") return [file, start, length, timestamp, "output", found.timestamp];
  return found.part === "payload" ? [file, start, length, timestamp, "payload"] : [file, start, length, timestamp];
}

/** A list of items as JSON, each item taken from a trace line (`refOf`) as a reference to it. */
export function encodeItems(items: readonly unknown[], refOf?: LineRefOf): string {
  if (refOf === undefined) return JSON.stringify(items);
  const out = new Array<unknown>(items.length);
  for (let i = 0; i < items.length; i++) out[i] = storedItem(items[i], refOf);
  return JSON.stringify(out);
}

/** Resolves, in place, the items of `into` from `from` on that are references (arrays); without `lines` a reference throws. */
function resolveItems(into: unknown[], from: number, lines: TraceLineResolver | undefined, what: string): void {
  const at: number[] = [];
  for (let i = from; i < into.length; i++) if (Array.isArray(into[i])) at.push(i);
  if (at.length === 0) return;
  if (lines === undefined) throw new SnapshotLineMismatch(`${what} refers to trace lines, and no trace files were given to read them from`);
  const resolved = lines.resolve(at.map((i) => into[i] as StoredLineRef));
  for (let k = 0; k < at.length; k++) into[at[k]!] = resolved[k];
}

/** The items of `encodeItems`' JSON, references read back through `lines` (throws `SnapshotLineMismatch` when one does not resolve). */
export function decodeItems(json: string, lines?: TraceLineResolver): unknown[] {
  const items = JSON.parse(json) as unknown;
  if (!Array.isArray(items)) throw new SnapshotLineMismatch("stored items are not a list");
  resolveItems(items, 0, lines, "a stored list");
  return items;
}

/** Thrown when a snapshot's reference does not resolve to the line it names; the caller folds from the trace. */
export class SnapshotLineMismatch extends Error {}

/** Items a list gained, from `start` on, in the lineage `lineage`. */
export interface LineageChunk {
  lineage: string;
  start: number;
  /** JSON of the items array. */
  items: string;
}

type ListRef = { l: string; n: number } | null;

interface EncodedFold {
  session: Record<string, unknown>;
  facts: Record<string, unknown>;
}

/** Lists keyed by their place in the state. */
type ListPath =
  | "history"
  | "pending"
  | "toolCallIds"
  | "window.inputs"
  | "window.produced"
  | "window.producedMessages"
  | "facts.finishedIds"
  | "facts.fileCalls"
  | "facts.steeringSent";

/**
 * Encodes the successive snapshots of one session. It remembers the lists the last snapshot
 * stored (by identity), so the next one stores only what they gained. Seed it with `decoded`
 * after restoring a snapshot, to go on from there.
 */
export class SnapshotEncoder {
  #known = new Map<ListPath, { seq: Sequence<unknown>; lineage: string }>();

  /** `id` names the snapshot (the session's event count at it): lineages started here are named after it. */
  /**
   * `refOf` says which items are lines of the trace (stored as references); without it every
   * item is stored whole.
   */
  encode(fold: TimeTravelState, id: string | number, refOf?: LineRefOf): { state: string; chunks: LineageChunk[] } {
    const chunks: LineageChunk[] = [];
    const known = new Map<ListPath, { seq: Sequence<unknown>; lineage: string }>();
    const itemsJson = (path: ListPath, items: readonly unknown[], from: number): string => {
      if (refOf === undefined || path !== "window.produced") return encodeItems(items, refOf);
      // The window's payloads are those of its messages, index for index (the fold appends
      // both at once): a payload is the payload of the line its message came from.
      const messages = fold.session.window?.producedMessages.toArray() ?? [];
      const out = new Array<unknown>(items.length);
      for (let i = 0; i < items.length; i++) {
        const item = items[i];
        const m = messages[from + i];
        const viaMessage = m !== undefined && m.type !== "session_meta" && m.payload === item ? refOf(m) : undefined;
        out[i] = viaMessage?.part === "envelope" ? storedRef(item, { line: viaMessage.line, part: "payload" }) : storedItem(item, refOf);
      }
      return JSON.stringify(out);
    };
    const list = (path: ListPath, seq: Sequence<unknown>): ListRef => {
      if (seq.size === 0) return null;
      const prev = this.#known.get(path);
      const added = prev === undefined ? undefined : seq.itemsAfter(prev.seq);
      if (prev !== undefined && added !== undefined) {
        if (added.length > 0) chunks.push({ lineage: prev.lineage, start: prev.seq.size, items: itemsJson(path, added, prev.seq.size) });
        known.set(path, { seq, lineage: prev.lineage });
        return { l: prev.lineage, n: seq.size };
      }
      const lineage = `${id}/${path}`;
      chunks.push({ lineage, start: 0, items: itemsJson(path, seq.toArray(), 0) });
      known.set(path, { seq, lineage });
      return { l: lineage, n: seq.size };
    };
    const s = fold.session;
    const f = fold.facts;
    const { seenToolCallIds: _derived, history, pending, toolCallIds, outputs, window, ...plain } = s;
    const encoded: EncodedFold = {
      session: {
        ...plain,
        history: list("history", history),
        pending: list("pending", pending),
        toolCallIds: list("toolCallIds", toolCallIds),
        outputs: [...outputs.entries()].map(([id, p]) => [id, storedItem(p, refOf)]),
        window: window === undefined ? null : { inputs: list("window.inputs", window.inputs), produced: list("window.produced", window.produced), producedMessages: list("window.producedMessages", window.producedMessages) },
      },
      facts: {
        openCalls: [...f.openCalls.entries()],
        decisions: [...f.decisions.entries()],
        finishedIds: list("facts.finishedIds", f.finishedIds),
        fileCalls: list("facts.fileCalls", f.fileCalls),
        filesRead: f.filesRead,
        filesWritten: f.filesWritten,
        steeringSent: list("facts.steeringSent", f.steeringSent),
        requests: f.requests,
        windowOpen: f.windowOpen,
        compactionsCompleted: f.compactionsCompleted,
        compactionInProgress: f.compactionInProgress,
        goalResult: f.goalResult ?? null,
        forkedFrom: f.forkedFrom ?? null,
      },
    };
    this.#known = known;
    return { state: JSON.stringify(encoded), chunks };
  }

  /** Takes the lists of a restored snapshot as the ones the next snapshot continues. */
  seed(restored: RestoredSnapshot): void {
    this.#known = new Map(restored.lists);
  }
}

/** The lineages a snapshot's state refers to, each with the number of items it needs, to fetch their chunks. */
export function lineagesOf(state: string): { lineage: string; size: number }[] {
  const e = JSON.parse(state) as EncodedFold;
  const refs = [e.session.history, e.session.pending, e.session.toolCallIds, e.facts.finishedIds, e.facts.fileCalls, e.facts.steeringSent] as ListRef[];
  const w = e.session.window as Record<string, ListRef> | null;
  if (w !== null && w !== undefined) refs.push(w.inputs ?? null, w.produced ?? null, w.producedMessages ?? null);
  const sizes = new Map<string, number>();
  for (const r of refs) if (r !== null && r !== undefined) sizes.set(r.l, Math.max(sizes.get(r.l) ?? 0, r.n));
  return [...sizes].map(([lineage, size]) => ({ lineage, size }));
}

/**
 * Joins a lineage's chunks (any order) into its items, checking they follow each other from
 * item 0. References to trace lines are read back through `lines`; a chunk that holds one
 * without `lines`, or one that does not resolve, throws (`SnapshotLineMismatch`).
 */
export function lineageItems(lineage: string, chunks: readonly LineageChunk[], into: unknown[] = [], lines?: TraceLineResolver): unknown[] {
  const from = into.length;
  for (const c of [...chunks].filter((c) => c.lineage === lineage).sort((a, b) => a.start - b.start)) {
    if (c.start < into.length) continue;
    if (c.start !== into.length) throw new Error(`snapshot lineage ${lineage} has a gap at item ${into.length}`);
    for (const item of JSON.parse(c.items) as unknown[]) into.push(item);
  }
  try {
    resolveItems(into, from, lines, `snapshot lineage ${lineage}`);
  } catch (error) {
    into.length = from;
    throw error;
  }
  return into;
}

/** Coalesced reads stop at this many bytes, and a gap this large between two lines starts a new read. */
const MAX_READ_BYTES = 8 << 20;
const MAX_READ_GAP = 64 << 10;

/**
 * Reads the lines snapshot references name from a session's trace files (`files`, as
 * `traceFilesIn` lists them). Lines close together in a file are read and parsed in one go;
 * a reference is resolved only when the bytes it names are still exactly its line (see the
 * top of this file), else `resolve` throws `SnapshotLineMismatch`.
 */
export class TraceLineResolver {
  readonly #files: ReadonlyMap<number, string>;
  readonly #onLine: ((message: OmniMessage, line: TraceLineRef) => void) | undefined;
  /** `onLine` hears of every line read, with the envelope it resolved to (to know those envelopes as lines again). */
  constructor(files: readonly TraceFileRef[], onLine?: (message: OmniMessage, line: TraceLineRef) => void) {
    this.#files = new Map(files.map((f) => [f.index, f.file]));
    this.#onLine = onLine;
  }

  /** The item each reference names, in the order given. */
  resolve(refs: readonly StoredLineRef[]): unknown[] {
    const out = new Array<unknown>(refs.length);
    const byFile = new Map<number, number[]>();
    for (let i = 0; i < refs.length; i++) {
      const r = refs[i]!;
      const [file, start, length, timestamp] = r;
      const shaped = r.length === 4 || (r.length === 5 && r[4] === "payload") || (r.length === 6 && r[4] === "output" && typeof r[5] === "string");
      if (!shaped || !Number.isInteger(file) || !Number.isInteger(start) || !Number.isInteger(length) || start < 0 || length < 2 || typeof timestamp !== "string") {
        throw new SnapshotLineMismatch(`a snapshot line reference of an unknown shape: ${JSON.stringify(r)}`);
      }
      const list = byFile.get(file);
      if (list === undefined) byFile.set(file, [i]);
      else list.push(i);
    }
    for (const [file, indexes] of byFile) {
      const path = this.#files.get(file);
      if (path === undefined) throw new SnapshotLineMismatch(`a snapshot refers to trace file ${file}, which the session does not have`);
      indexes.sort((a, b) => refs[a]![1] - refs[b]![1]);
      let fd: number;
      try {
        fd = openSync(path, "r");
      } catch {
        throw new SnapshotLineMismatch(`a snapshot refers to ${path}, which cannot be opened`);
      }
      try {
        let group: number[] = [];
        const flush = (): void => {
          if (group.length > 0) this.#readGroup(fd, path, refs, group, out);
          group = [];
        };
        for (const i of indexes) {
          const [, start, length] = refs[i]!;
          if (group.length > 0) {
            const first = refs[group[0]!]!;
            const last = refs[group[group.length - 1]!]!;
            if (start - (last[1] + last[2]) > MAX_READ_GAP || start + length - first[1] > MAX_READ_BYTES) flush();
          }
          group.push(i);
        }
        flush();
      } finally {
        closeSync(fd);
      }
    }
    return out;
  }

  /** One read covering the group's lines (sorted by start); each line referred to is checked and parsed on its own (the lines between are not parsed). */
  #readGroup(fd: number, path: string, refs: readonly StoredLineRef[], group: readonly number[], out: unknown[]): void {
    const first = refs[group[0]!]![1];
    let end = 0;
    for (const i of group) end = Math.max(end, refs[i]![1] + refs[i]![2]);
    // One byte before the first line too, to see that it starts a line.
    const from = first > 0 ? first - 1 : 0;
    const buf = readRange(fd, from, end - from);
    if (buf.length < end - from) throw new SnapshotLineMismatch(`a snapshot refers to bytes ${first}–${end} of ${path}, past its end`);
    // A line referred to twice (a window's message and its payload) is parsed once: one envelope.
    const parsedAt = new Map<number, OmniMessage | undefined>();
    const messageAt = (start: number, length: number): OmniMessage | undefined => {
      if (parsedAt.has(start)) return parsedAt.get(start);
      const s = start - from;
      const e = s + length;
      // One whole line: it starts after a newline (or at the file's start), and its first newline is its last byte.
      const whole = (start === 0 || buf[s - 1] === 0x0a) && buf.indexOf(0x0a, s) === e - 1;
      const parsed = whole ? parseTraceBytes(buf.subarray(s, e)) : undefined;
      const m = parsed !== undefined && parsed.messages.length === 1 && parsed.skipped.length === 0 ? parsed.messages[0] : undefined;
      parsedAt.set(start, m);
      return m;
    };
    for (const i of group) {
      const r = refs[i]!;
      const [, start, length, timestamp] = r;
      const m = messageAt(start, length);
      if (m === undefined || m.timestamp !== timestamp) {
        throw new SnapshotLineMismatch(`a snapshot refers to a line at byte ${start} of ${path} that is not there any more`);
      }
      this.#onLine?.(m, { file: r[0], start, length, timestamp });
      if (r.length === 4) out[i] = m;
      else if (m.type === "session_meta" || typeof m.payload !== "object" || m.payload === null) throw new SnapshotLineMismatch(`the line at byte ${start} of ${path} holds no payload`);
      else if (r.length === 5) out[i] = m.payload;
      else {
        if (m.type !== "model_msg" || m.payload.type !== "tool_call_output") throw new SnapshotLineMismatch(`the line at byte ${start} of ${path} is not a tool output`);
        // The copy a fold makes: a new envelope around the output's fields (key order kept).
        out[i] = { timestamp: r[5], type: "model_msg", payload: { ...m.payload } };
      }
    }
  }
}

export interface RestoredSnapshot {
  fold: TimeTravelState;
  /** The lists as restored, for `SnapshotEncoder.seed`. */
  lists: Map<ListPath, { seq: Sequence<unknown>; lineage: string }>;
}

/**
 * Rebuilds a snapshot from its state and the chunks of its lineages (any order, extra
 * chunks ignored). Throws when a chunk it needs is missing: the caller folds from the start.
 */
export function decodeSnapshot(state: string, chunks: readonly LineageChunk[], lines?: TraceLineResolver): RestoredSnapshot {
  const joined = new Map<string, readonly unknown[]>();
  return decodeSnapshotWith(state, (lineage) => {
    let items = joined.get(lineage);
    if (items === undefined) {
      items = lineageItems(lineage, chunks, [], lines);
      joined.set(lineage, items);
    }
    return items;
  }, lines);
}

/**
 * The same, with the items of each lineage from `itemsOf` (at least as many as the snapshot
 * needs; a cache of them may hold more, from later snapshots of the same list).
 */
export function decodeSnapshotWith(state: string, itemsOf: (lineage: string) => readonly unknown[], lines?: TraceLineResolver): RestoredSnapshot {
  const e = JSON.parse(state) as EncodedFold;
  const outputEntries = e.session.outputs as [string, unknown][];
  const outputPayloads = outputEntries.map(([, p]) => p);
  resolveItems(outputPayloads, 0, lines, "a snapshot's tool outputs");
  const lists = new Map<ListPath, { seq: Sequence<unknown>; lineage: string }>();
  const list = <A>(path: ListPath, ref: ListRef | undefined): Sequence<A> => {
    if (ref === null || ref === undefined) return Sequence.empty<A>();
    const items = itemsOf(ref.l);
    if (items.length < ref.n) throw new Error(`snapshot lineage ${ref.l} holds ${items.length} items, ${ref.n} needed`);
    const seq = Sequence.from(items.length === ref.n ? items : items.slice(0, ref.n)) as Sequence<A>;
    lists.set(path, { seq: seq as Sequence<unknown>, lineage: ref.l });
    return seq;
  };
  const s = e.session;
  const w = s.window as Record<string, ListRef> | null;
  const window: OpenWindow | undefined =
    w === null || w === undefined ? undefined : { inputs: list<OmniMessage>("window.inputs", w.inputs), produced: list("window.produced", w.produced), producedMessages: list<OmniMessage>("window.producedMessages", w.producedMessages) };
  const toolCallIds = list<string>("toolCallIds", s.toolCallIds as ListRef);
  const session: SessionState = {
    ...initialSessionState,
    ...(s as object),
    history: list<OmniMessage>("history", s.history as ListRef),
    pending: list<OmniMessage>("pending", s.pending as ListRef),
    toolCallIds,
    seenToolCallIds: HashSet.fromIterable(toolCallIds.toArray()),
    outputs: new Map(outputEntries.map(([id], i) => [id, outputPayloads[i] as ToolCallOutputPayload])),
    window,
  } as SessionState;
  const f = e.facts;
  const finishedIds = list<string>("facts.finishedIds", f.finishedIds as ListRef);
  const fileCalls = list<FileToolCall>("facts.fileCalls", f.fileCalls as ListRef);
  let fileCallIndex = HashMap.empty<string, FileToolCall>();
  for (const c of fileCalls.toArray()) fileCallIndex = HashMap.set(fileCallIndex, c.id, c);
  const facts: InspectFacts = {
    ...initialInspectFacts,
    openCalls: new Map(f.openCalls as [string, ToolCallPayload][]),
    decisions: new Map(f.decisions as [string, string][]),
    finishedIds,
    finished: HashSet.fromIterable(finishedIds.toArray()),
    fileCalls,
    fileCallIndex,
    filesRead: f.filesRead as string[],
    filesWritten: f.filesWritten as string[],
    steeringSent: list<string>("facts.steeringSent", f.steeringSent as ListRef),
    requests: f.requests as number,
    windowOpen: f.windowOpen as boolean,
    compactionsCompleted: f.compactionsCompleted as number,
    compactionInProgress: f.compactionInProgress as boolean,
    goalResult: (f.goalResult ?? undefined) as InspectFacts["goalResult"],
    forkedFrom: (f.forkedFrom ?? undefined) as InspectFacts["forkedFrom"],
  };
  return { fold: { session, facts }, lists };
}
