/**
 * Resume snapshots: a cache, next to a trace file, of that file's fold (`evolve`) up to a known
 * byte, so resuming a long session folds only the lines written since it was taken.
 *
 * The trace stays the only write model: the snapshot is derived from it, can be deleted at any
 * time, and is trusted only while it provably describes the file's current bytes:
 * - it is keyed by the byte length it covers, the number of lines in it, and a hash of the
 *   last bytes before that length (the file is append-only, so the bytes before a length
 *   never change; a file that was replaced or truncated fails the key);
 * - every message of the state is stored as a reference to the line it was read from (the
 *   file already holds its bytes: a snapshot of a 50 MB context stays small), and a reference
 *   that does not resolve to a line of the expected kind rejects the whole snapshot;
 * - the derived id set is rebuilt from its list, as the time-travel snapshots do.
 * A snapshot that fails any check is ignored (the file is folded from its start), never
 * repaired or trusted in part.
 *
 * What is not a line of the file (a placeholder output, a `[turn_aborted]` note, the copy of a
 * tool output that opens the next request) is stored inline, except that copy, which is the
 * output line's payload in a new envelope and is stored as that line plus the envelope.
 */
import { createHash } from "node:crypto";
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import type { OmniMessage, ToolCallOutputPayload } from "@penguin/omnimessage";
import * as HashSet from "effect/HashSet";
import { foldTrace } from "./evolve.js";
import { readOpenFile, readRange } from "./file-range.js";
import { readTraceFileWithExtent, type CompleteExtent, type TraceContent } from "./reader.js";
import { Sequence } from "./sequence.js";
import { initialSessionState, type SessionState } from "./state.js";

/** Stored in every snapshot; a snapshot of another format is ignored. */
export const RESUME_SNAPSHOT_FORMAT = 1;

/** Bytes hashed before the covered length: enough to tell a different file from the same one grown. */
const KEY_TAIL_BYTES = 4096;

/** A file shorter than this (in lines) folds fast enough from its start: no snapshot is written. */
export const RESUME_SNAPSHOT_MIN_LINES = 2000;

/** Lines a snapshot may lag behind the file before resume writes a newer one. */
export const RESUME_SNAPSHOT_REFRESH_LINES = 2000;

/** The snapshot file of a trace file: `<sid>_NNN.resume.json` beside `<sid>_NNN.jsonl` (not a trace file name, so no reader lists it). */
export function resumeSnapshotFile(traceFile: string): string {
  return traceFile.endsWith(".jsonl") ? `${traceFile.slice(0, -".jsonl".length)}.resume.json` : `${traceFile}.resume.json`;
}

/** A message of the state: the envelope of line n; line n's output payload in another envelope; or inline. */
type MessageRef = number | { o: number; e: Record<string, unknown> } | { m: OmniMessage };
/** A payload of the state: the payload of line n, or inline. */
type PayloadRef = number | { v: unknown };

interface StoredResumeSnapshot {
  format: number;
  /** Bytes of the trace file covered (through a newline). */
  bytes: number;
  /** Lines in those bytes. */
  lines: number;
  /** sha256 (hex) of the covered bytes' last `KEY_TAIL_BYTES`. */
  tail: string;
  state: EncodedState;
}

interface EncodedState {
  /** Fields stored as they are (JSON values). */
  plain: Record<string, unknown>;
  /** Fields whose value is undefined (JSON drops them). */
  undefinedFields: string[];
  history: MessageRef[];
  pending: MessageRef[];
  lastCalls: PayloadRef[];
  outputs: [string, PayloadRef][];
  window: { inputs: MessageRef[]; produced: PayloadRef[]; producedMessages: MessageRef[] } | null;
  compactionSpan: { rest: Record<string, unknown>; before: MessageRef[] } | null;
  toolCallIds: string[];
}

/** The fields that hold messages, payloads or persistent collections: everything else must be plain JSON. */
const STRUCTURED_FIELDS = new Set(["history", "pending", "lastCalls", "outputs", "window", "compactionSpan", "toolCallIds", "seenToolCallIds"]);

/** The lines a snapshot covers, indexed for both directions of the encoding. */
class LineIndex {
  readonly #byLine: (OmniMessage | undefined)[];
  #lineOfEnvelope: Map<object, number> | undefined;
  #lineOfPayload: Map<object, number> | undefined;
  #outputLineById: Map<string, number> | undefined;

  readonly content: TraceContent;
  readonly lines: number;

  constructor(content: TraceContent, lines: number) {
    this.content = content;
    this.lines = lines;
    this.#byLine = new Array<OmniMessage | undefined>(lines + 1);
    for (let i = 0; i < content.lines.length; i++) {
      const line = content.lines[i]!;
      if (line > lines) break;
      this.#byLine[line] = content.messages[i];
    }
  }

  at(line: number): OmniMessage | undefined {
    return Number.isInteger(line) && line >= 1 && line <= this.lines ? this.#byLine[line] : undefined;
  }

  #build(): void {
    this.#lineOfEnvelope = new Map();
    this.#lineOfPayload = new Map();
    this.#outputLineById = new Map();
    for (let i = 0; i < this.content.lines.length; i++) {
      const line = this.content.lines[i]!;
      if (line > this.lines) break;
      const m = this.content.messages[i]!;
      if (m.type === "session_meta") continue;
      this.#lineOfEnvelope.set(m, line);
      this.#lineOfPayload.set(m.payload, line);
      if (m.type === "model_msg" && m.payload.type === "tool_call_output") this.#outputLineById.set(m.payload.tool_call_id, line);
    }
  }

  lineOfEnvelope(m: object): number | undefined {
    if (this.#lineOfEnvelope === undefined) this.#build();
    return this.#lineOfEnvelope!.get(m);
  }

  lineOfPayload(p: object): number | undefined {
    if (this.#lineOfPayload === undefined) this.#build();
    return this.#lineOfPayload!.get(p);
  }

  outputLine(toolCallId: string): number | undefined {
    if (this.#outputLineById === undefined) this.#build();
    return this.#outputLineById!.get(toolCallId);
  }
}

/** Thrown while decoding a snapshot that does not match the file; caught by `readResumeSnapshot`. */
class SnapshotMismatch extends Error {}

/** The same own keys with the very same values (a copy made by spreading, as `modelMessage` does). */
function sameFields(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  // The payload itself (the fold shares it): nothing to compare, and an output decoded on read stays undecoded.
  if (a === b) return true;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const k of keys) if (a[k] !== b[k]) return false;
  return true;
}

function isPlainJson(value: unknown): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isPlainJson);
  if (typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(value).every((v) => v === undefined || isPlainJson(v));
}

function encodeMessage(index: LineIndex, m: OmniMessage): MessageRef {
  const line = index.lineOfEnvelope(m);
  if (line !== undefined && m.type === "model_msg") return line;
  if (m.type === "model_msg" && m.payload.type === "tool_call_output") {
    const outputLine = index.outputLine(m.payload.tool_call_id);
    const original = outputLine === undefined ? undefined : index.at(outputLine);
    if (original !== undefined && sameFields(m.payload as unknown as Record<string, unknown>, original.payload as unknown as Record<string, unknown>)) {
      return { o: outputLine!, e: { ...m, payload: null } };
    }
  }
  return { m };
}

function encodePayload(index: LineIndex, p: object): PayloadRef {
  return index.lineOfPayload(p) ?? { v: p };
}

function decodeMessage(index: LineIndex, ref: MessageRef): OmniMessage {
  if (typeof ref === "number") {
    const m = index.at(ref);
    if (m === undefined || m.type !== "model_msg") throw new SnapshotMismatch(`line ${ref} is not a model message`);
    return m;
  }
  if (typeof ref === "object" && ref !== null && "o" in ref) {
    const original = index.at(ref.o);
    if (original === undefined || original.type !== "model_msg" || original.payload.type !== "tool_call_output") throw new SnapshotMismatch(`line ${ref.o} is not a tool output`);
    // The envelope was stored with `payload: null` in its place, so the key order is kept. The
    // payload is the line's own object, as in the fold (evolve's outputsForCalls shares it).
    return { ...ref.e, payload: original.payload } as unknown as OmniMessage;
  }
  if (typeof ref === "object" && ref !== null && "m" in ref) return ref.m;
  throw new SnapshotMismatch("a message reference of an unknown shape");
}

function decodePayload<P>(index: LineIndex, ref: PayloadRef): P {
  if (typeof ref === "number") {
    const m = index.at(ref);
    if (m === undefined || m.type === "session_meta") throw new SnapshotMismatch(`line ${ref} holds no payload`);
    return m.payload as P;
  }
  if (typeof ref === "object" && ref !== null && "v" in ref) return ref.v as P;
  throw new SnapshotMismatch("a payload reference of an unknown shape");
}

/** The state as stored, or undefined when a field holds something this format cannot store. */
function encodeState(state: SessionState, index: LineIndex): EncodedState | undefined {
  const plain: Record<string, unknown> = {};
  const undefinedFields: string[] = [];
  for (const [key, value] of Object.entries(state)) {
    if (STRUCTURED_FIELDS.has(key)) continue;
    if (value === undefined) undefinedFields.push(key);
    else if (isPlainJson(value)) plain[key] = value;
    else return undefined;
  }
  const messages = (list: readonly OmniMessage[]): MessageRef[] => list.map((m) => encodeMessage(index, m));
  const w = state.window;
  const span = state.compactionSpan;
  let compactionSpan: EncodedState["compactionSpan"] = null;
  if (span !== undefined) {
    const { before, ...rest } = span;
    if (!isPlainJson(rest)) return undefined;
    compactionSpan = { rest, before: messages(before) };
  }
  return {
    plain,
    undefinedFields,
    history: messages(state.history.toArray()),
    pending: messages(state.pending.toArray()),
    lastCalls: state.lastCalls.map((p) => encodePayload(index, p)),
    outputs: [...state.outputs.entries()].map(([id, p]) => [id, encodePayload(index, p)]),
    window: w === undefined ? null : { inputs: messages(w.inputs.toArray()), produced: w.produced.toArray().map((p) => encodePayload(index, p)), producedMessages: messages(w.producedMessages.toArray()) },
    compactionSpan,
    toolCallIds: [...state.toolCallIds.toArray()],
  };
}

function decodeState(e: EncodedState, index: LineIndex): SessionState {
  const messages = (list: MessageRef[]): OmniMessage[] => {
    if (!Array.isArray(list)) throw new SnapshotMismatch("a message list is not a list");
    return list.map((r) => decodeMessage(index, r));
  };
  // Built in the initial state's key order, so the fold goes on with states of the usual shape.
  const state: Record<string, unknown> = { ...initialSessionState };
  for (const [key, value] of Object.entries(e.plain)) {
    if (STRUCTURED_FIELDS.has(key)) throw new SnapshotMismatch(`field ${key} stored as plain`);
    state[key] = value;
  }
  for (const key of e.undefinedFields) state[key] = undefined;
  const toolCallIds = e.toolCallIds;
  if (!Array.isArray(toolCallIds) || !toolCallIds.every((id) => typeof id === "string")) throw new SnapshotMismatch("toolCallIds is not a list of ids");
  state.history = Sequence.from(messages(e.history));
  state.pending = Sequence.from(messages(e.pending));
  state.lastCalls = e.lastCalls.map((r) => decodePayload(index, r));
  state.outputs = new Map(e.outputs.map(([id, r]) => [id, decodePayload<ToolCallOutputPayload>(index, r)]));
  state.window =
    e.window === null
      ? undefined
      : { inputs: Sequence.from(messages(e.window.inputs)), produced: Sequence.from(e.window.produced.map((r) => decodePayload(index, r))), producedMessages: Sequence.from(messages(e.window.producedMessages)) };
  state.compactionSpan = e.compactionSpan === null ? undefined : { ...e.compactionSpan.rest, before: messages(e.compactionSpan.before) };
  state.toolCallIds = Sequence.from(toolCallIds);
  state.seenToolCallIds = HashSet.fromIterable(toolCallIds);
  return state as unknown as SessionState;
}

/** sha256 (hex) of the `KEY_TAIL_BYTES` before `bytes` in `file`, or undefined when they cannot be read. */
function tailHash(file: string, bytes: number): string | undefined {
  return readOpenFile(file, (fd) => {
    const length = Math.min(KEY_TAIL_BYTES, bytes);
    const buffer = readRange(fd, bytes - length, length);
    return buffer.length < length ? undefined : createHash("sha256").update(buffer).digest("hex");
  });
}

export interface ResumeSnapshot {
  /** The fold of the file's lines 1..`lines`. */
  state: SessionState;
  lines: number;
}

/** The stored snapshot of `traceFile` when its key matches the file's bytes as they are now; undefined otherwise. */
function loadMatchingSnapshot(traceFile: string): StoredResumeSnapshot | undefined {
  let stored: StoredResumeSnapshot;
  try {
    stored = JSON.parse(readFileSync(resumeSnapshotFile(traceFile), "utf8")) as StoredResumeSnapshot;
  } catch {
    return undefined;
  }
  if (typeof stored !== "object" || stored === null || stored.format !== RESUME_SNAPSHOT_FORMAT) return undefined;
  const { bytes, lines } = stored;
  // Every line ends in a newline: more lines than bytes is not a snapshot of any file.
  if (!Number.isInteger(bytes) || !Number.isInteger(lines) || bytes <= 0 || lines <= 0 || lines > bytes) return undefined;
  // A file shorter than the snapshot cannot be read at the hashed offset: the hash fails too.
  if (typeof stored.tail !== "string" || tailHash(traceFile, bytes) !== stored.tail) return undefined;
  return stored;
}

/** The stored snapshot's state against what was read of the file, or undefined when it does not fit (ahead of the read, a reference that does not resolve). */
function restore(stored: StoredResumeSnapshot, content: TraceContent, extent: CompleteExtent): ResumeSnapshot | undefined {
  if (stored.bytes > extent.bytes || stored.lines > extent.lines) return undefined;
  try {
    return { state: decodeState(stored.state, new LineIndex(content, stored.lines)), lines: stored.lines };
  } catch {
    // A reference that does not resolve, or a field of the wrong shape: not this file's snapshot.
    return undefined;
  }
}

/** The line numbers a stored state refers to, or undefined when its lists are not of the stored shape. */
function referencedLines(e: EncodedState, covered: number): Uint8Array | undefined {
  // One byte per covered line (the reader asks once per line of a 100k-line file); a reference
  // past the covered lines needs no mark: those lines are always read.
  const marks = new Uint8Array(covered + 1);
  const lines = { add: (n: number): void => {
    if (Number.isInteger(n) && n >= 0 && n <= covered) marks[n] = 1;
  } };
  const messages = (list: unknown): boolean => {
    if (!Array.isArray(list)) return false;
    for (const r of list as MessageRef[]) {
      if (typeof r === "number") lines.add(r);
      else if (typeof r === "object" && r !== null && "o" in r && typeof r.o === "number") lines.add(r.o);
    }
    return true;
  };
  const payloads = (list: unknown): boolean => {
    if (!Array.isArray(list)) return false;
    for (const r of list as PayloadRef[]) if (typeof r === "number") lines.add(r);
    return true;
  };
  if (typeof e !== "object" || e === null) return undefined;
  const w = e.window;
  const ok =
    messages(e.history) &&
    messages(e.pending) &&
    payloads(e.lastCalls) &&
    Array.isArray(e.outputs) &&
    payloads(e.outputs.map((entry) => (Array.isArray(entry) ? entry[1] : undefined))) &&
    (w === null || (typeof w === "object" && messages(w.inputs) && messages(w.producedMessages) && payloads(w.produced))) &&
    (e.compactionSpan === null || (typeof e.compactionSpan === "object" && messages(e.compactionSpan.before)));
  return ok ? marks : undefined;
}

/**
 * The snapshot of `traceFile`, when one exists and matches what was read of it (`content`,
 * `extent`: from `readTraceFileWithExtent`); undefined otherwise (missing, another format,
 * another file's, ahead of what was read, a reference that does not resolve).
 */
export function readResumeSnapshot(traceFile: string, content: TraceContent, extent: CompleteExtent): ResumeSnapshot | undefined {
  const stored = loadMatchingSnapshot(traceFile);
  return stored === undefined ? undefined : restore(stored, content, extent);
}

/**
 * Store `state` (the fold of the file's lines 1..`extent.lines`) as the snapshot of
 * `traceFile`. A cache: written whole then renamed into place (a reader never sees half of
 * one), not synced, and any failure only means there is no snapshot. Returns whether it was written.
 */
export function writeResumeSnapshot(traceFile: string, content: TraceContent, extent: CompleteExtent, state: SessionState): boolean {
  if (extent.lines <= 0) return false;
  const tail = tailHash(traceFile, extent.bytes);
  if (tail === undefined) return false;
  const encoded = encodeState(state, new LineIndex(content, extent.lines));
  if (encoded === undefined) return false;
  const stored: StoredResumeSnapshot = { format: RESUME_SNAPSHOT_FORMAT, bytes: extent.bytes, lines: extent.lines, tail, state: encoded };
  const target = resumeSnapshotFile(traceFile);
  const temporary = `${target}.${process.pid}.tmp`;
  try {
    // Readable by the owner only, as the trace itself (it holds some of its text inline); a
    // temporary left by a crashed process of the same pid would keep its mode: removed first.
    rmSync(temporary, { force: true });
    writeFileSync(temporary, JSON.stringify(stored), { mode: 0o600 });
    renameSync(temporary, target);
    return true;
  } catch {
    rmSync(temporary, { force: true });
    return false;
  }
}

export interface ResumeFold {
  /** The fold of every message read from the file. */
  state: SessionState;
  /** Lines taken from a snapshot instead of folded (0 without one). */
  fromSnapshot: number;
  /** A newer snapshot was written. */
  wroteSnapshot: boolean;
}

export interface ResumeFoldOptions {
  /** Below this many lines no snapshot is written (default `RESUME_SNAPSHOT_MIN_LINES`). */
  minLines?: number;
  /** A snapshot this many lines behind the file is replaced (default `RESUME_SNAPSHOT_REFRESH_LINES`). */
  refreshLines?: number;
}

/**
 * Fold what was read of one trace file, starting from its snapshot when one matches, and leave
 * a newer snapshot when the file grew well past it. Equal to `foldTrace(content.messages)`.
 */
export function foldForResume(traceFile: string, content: TraceContent, extent: CompleteExtent, options: ResumeFoldOptions = {}): ResumeFold {
  return foldOn(traceFile, content, extent, readResumeSnapshot(traceFile, content, extent), options);
}

export interface ResumeReadOptions extends ResumeFoldOptions {
  /**
   * Write the newer snapshot the thresholds call for during the read (default true). False
   * leaves it to the caller: a resuming session writes it at its first commit point instead,
   * so the 60 ms a 100k-line state takes to store are not spent before its first request.
   */
  writeSnapshot?: boolean;
}

export interface ResumeRead extends ResumeFold {
  /** What was read: with a snapshot, without the lines before its end that its state does not refer to. */
  content: TraceContent;
  extent: CompleteExtent;
}

/**
 * Read one trace file for resume and fold it. With a matching snapshot, the lines it covers
 * that its state does not refer to (the events of the turns it holds: begins, ends, usage,
 * approvals) are not decoded at all, only counted; line 1 (the file's session_meta) always is.
 * Should the snapshot then not fit what was read, the file is read and folded from its start.
 * The state equals `foldTrace(readTraceFile(traceFile).messages)`; the content is the read's
 * (callers that need every line read the file themselves). Tool outputs' JSON text is kept
 * beside their payloads (raw-outputs.ts), for the next request's body to copy.
 */
export function readForResume(traceFile: string, options: ResumeReadOptions = {}): ResumeRead {
  const stored = loadMatchingSnapshot(traceFile);
  const referenced = stored === undefined ? undefined : referencedLines(stored.state, stored.lines);
  if (stored !== undefined && referenced !== undefined) {
    const covered = stored.lines;
    const read = readTraceFileWithExtent(traceFile, { skipLine: (line) => line <= covered && line !== 1 && referenced[line] !== 1, keepRawOutputs: true });
    const snapshot = restore(stored, read.content, read.extent);
    if (snapshot !== undefined) return { ...read, ...foldOn(traceFile, read.content, read.extent, snapshot, options) };
  }
  const read = readTraceFileWithExtent(traceFile, { keepRawOutputs: true });
  return { ...read, ...foldOn(traceFile, read.content, read.extent, undefined, options) };
}

function foldOn(traceFile: string, content: TraceContent, extent: CompleteExtent, snapshot: ResumeSnapshot | undefined, options: ResumeReadOptions): ResumeFold {
  const { messages, lines } = content;
  // Messages after the snapshot, up to the last whole line, then the rest (an unterminated last line).
  let from = 0;
  if (snapshot !== undefined) while (from < lines.length && lines[from]! <= snapshot.lines) from++;
  let whole = from;
  while (whole < lines.length && lines[whole]! <= extent.lines) whole++;
  const atExtent = foldTrace(messages.slice(from, whole), snapshot?.state ?? initialSessionState);
  const covered = snapshot?.lines ?? 0;
  const wroteSnapshot =
    options.writeSnapshot !== false &&
    extent.lines >= (options.minLines ?? RESUME_SNAPSHOT_MIN_LINES) &&
    extent.lines - covered >= (options.refreshLines ?? RESUME_SNAPSHOT_REFRESH_LINES)
      ? writeResumeSnapshot(traceFile, content, extent, atExtent)
      : false;
  return { state: whole < messages.length ? foldTrace(messages.slice(whole), atExtent) : atExtent, fromSnapshot: covered, wroteSnapshot };
}
