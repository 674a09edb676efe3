/**
 * The history list of a request body, kept encoded per protocol and extended request by
 * request: what a turn encodes is its new messages, not the history.
 *
 * Every request resends the whole history, and all of it but the newest messages went out in
 * the previous request already. The protocols group payloads into runs (history.ts `toRuns`:
 * one side's consecutive payloads) and encode each run into list elements that depend on that
 * run alone. So per history (a WeakMap keyed by its first payload object) one `ListState`
 * keeps the JSON text of its closed runs (each followed by a run of the other side) in one
 * append-only buffer, with a mark at each run's end. The next request's list is that buffer
 * (a view, not a copy), then its own new runs, then the list's closing bytes: a handful of
 * chunks the transport writes one after another (wire-body.ts `EncodedJson`). Its length in
 * characters is kept beside it, so the output cap's estimate adds numbers, never encodes.
 *
 * A request is matched against the previous one by payload identity (not at all when its list
 * is the previous one's array, grown: `ModelRequest.messages`): the leading payloads it shares
 * with it keep their runs' text, as long as each kept run still ends where it ended.
 * Payloads are never changed once made (the fidelity payloads make this exact: what was sent is
 * what is sent again), so the same objects encode to the same bytes. A compaction, a rotation,
 * a resume or an edited history brings new objects: from the first one that differs, the state
 * starts again (a copy of what stays into a new buffer; the old buffer is never written again,
 * so a body still being sent keeps its bytes). The last run of a request is not written into
 * the buffer (the next request may add to it): its encoding waits beside it as `pending` and
 * goes in, copied, when a later request closes it.
 *
 * Memory: per live history and protocol, one copy of the encoded history (the request body's
 * list less its last run) in a buffer that grows by doubling, so at most twice that, plus
 * one mark per run. It is dropped with the history's first payload object: after a compaction
 * the history starts with a new one, and the old state goes with the old payloads.
 */
import type { CompleteModelPayload } from "@penguin/omnimessage";
import { toRuns, type Run } from "./history.js";
import { encodeParts, encodeSpans, EncodedJson, SPAN_BOUNDARY, type Span } from "./wire-body.js";

type Side = Run["side"];

/** What encoding a run may look up outside it: Gemini answers a tool output by its call's name. */
export interface RunContext {
  nameOf(toolCallId: string): string | undefined;
}

/** One protocol's list: how it frames runs, and how it encodes one. */
export interface ListCodec {
  /** Where consecutive runs of one side share one message (Anthropic, Gemini): each message's opening per side, and its closing. Flat lists have none. */
  readonly group?: { readonly open: Readonly<Record<Side, string>>; readonly close: string };
  /** Anthropic's cache breakpoint: written into the last block of the last user-side message, before its closing brace. */
  readonly breakpoint?: string;
  /** Whether `encodeRun` reads `nameOf` (the state then checks that no later call renames an answered one). */
  readonly readsToolNames?: boolean;
  /** The run's list elements (or a grouped message's blocks), as what `stringify` writes for an array of them. */
  elementsOf(run: Run, context: RunContext): unknown[];
  readonly stringify?: (value: unknown) => string;
}

/**
 * Counters over the whole process, for the tests and the bench: runs encoded, the characters of
 * JSON the encoders wrote, and the payloads compared with the previous request's one by one.
 */
export const wireCacheCounters = { encodedRuns: 0, encodedChars: 0, comparedItems: 0 };

let bypassed = 0;

/**
 * While on, requests are built without the cache (the protocol's own whole-body encoding, as
 * before it): the bench's baseline. Off by default; nothing in the product turns it on.
 */
export function setWireCacheBypass(on: boolean): void {
  bypassed = Math.max(0, bypassed + (on ? 1 : -1));
}

export function wireCacheBypassed(): boolean {
  return bypassed > 0;
}

/** A run's list elements as JSON text without the list's brackets (wire-body.ts `encodeSpans`); `chars` is its length as `serializedLength` counts it. */
type Elements = Span;

function isEmpty(e: Elements): boolean {
  return e.chars === 0;
}

/** An append-only byte buffer: what was written is never written again, so views of it stay valid. */
class GrowingBuffer {
  #buf: Buffer;
  length = 0;

  constructor(capacity: number) {
    this.#buf = Buffer.allocUnsafe(capacity);
  }

  /** Room for `extra` more bytes now, in one allocation (a history's first request writes tens of MB). */
  reserve(extra: number): void {
    this.#room(extra);
  }

  #room(extra: number): void {
    if (this.length + extra <= this.#buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.length + extra));
    this.#buf.copy(next, 0, 0, this.length);
    this.#buf = next;
  }

  text(s: string): void {
    // Room for the worst case (3 bytes a UTF-16 unit) spares measuring a text first; where that
    // would not fit, the exact size is measured instead: a history's first write `reserve`s
    // its exact (ASCII) size, and asking for the worst case near its end would double the
    // whole buffer, copying tens of MB, for a few bytes.
    const worst = 3 * s.length;
    this.#room(this.length + worst <= this.#buf.length ? worst : Buffer.byteLength(s, "utf8"));
    this.length += this.#buf.write(s, this.length, "utf8");
  }

  bytes(b: Uint8Array): void {
    this.#room(b.length);
    this.#buf.set(b, this.length);
    this.length += b.length;
  }

  view(from = 0, to = this.length): Buffer {
    return this.#buf.subarray(from, to);
  }
}

/** Where the list's text stands after a run: what the next run's framing and the breakpoint need. */
interface Mark {
  /** Payloads up to the run's end. */
  readonly end: number;
  readonly side: Side;
  readonly bytes: number;
  readonly chars: number;
  /** Whether the list holds an element yet. */
  readonly any: boolean;
  /** The side of the message left open (grouped lists). */
  readonly openSide: Side | undefined;
  /** The byte just past the last user-side block, or -1. */
  readonly userEnd: number;
}

/** The last run of the previous request, written past the closed runs: kept when the next request closes it unchanged. */
interface Pending {
  readonly start: number;
  readonly items: readonly object[];
  /** Where the list stands with it written. */
  readonly mark: Mark;
}

/** One history's encoded list for one protocol. */
class ListState {
  readonly lead: string;
  /** The previous request's list, and how many items it held then (the same array may have grown since): set by `saw`. */
  items: readonly object[] = [];
  itemCount = 0;
  readonly text: GrowingBuffer;
  marks: Mark[] = [];
  pending: Pending | undefined;
  /** Gemini: the tool names of the closed runs' calls, and the name each encoded output was answered by. */
  names = new Map<string, string>();
  answered = new Map<string, string | undefined>();

  constructor(lead: string, capacity = 64 * 1024) {
    this.lead = lead;
    this.text = new GrowingBuffer(capacity);
    this.text.text(lead);
  }

  /** Remembers `messages` as the list of the request being built. */
  saw(messages: readonly object[]): void {
    this.items = messages;
    this.itemCount = messages.length;
  }

  /** Where the list stands after the closed runs. */
  get closed(): Mark {
    return this.marks[this.marks.length - 1] ?? { end: 0, side: "user", bytes: Buffer.byteLength(this.lead, "utf8"), chars: this.lead.length, any: this.lead !== "", openSide: undefined, userEnd: -1 };
  }

  /** A new state holding the first `keep` closed runs, in a new buffer: the bytes past them in this one may be on their way out in a body still being sent. */
  keeping(keep: number): ListState {
    const kept = this.marks[keep - 1];
    const next = new ListState(this.lead, Math.max(64 * 1024, 2 * (kept?.bytes ?? 0)));
    if (kept !== undefined) next.text.bytes(this.text.view(next.text.length, kept.bytes));
    next.marks = this.marks.slice(0, keep);
    next.names = this.names;
    next.answered = this.answered;
    return next;
  }
}

function sideOf(p: CompleteModelPayload): Side {
  switch (p.type) {
    case "text":
    case "inline_data":
      return p.role === "user" ? "user" : "assistant";
    case "image_url":
    case "tool_call_output":
      return "user";
    default:
      return "assistant";
  }
}

function sameItems(a: readonly object[], b: readonly object[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The cached lists of one protocol, one per live history. */
export class ListCache {
  readonly #codec: ListCodec;
  readonly #states = new WeakMap<object, ListState>();

  constructor(codec: ListCodec) {
    this.#codec = codec;
  }

  /**
   * The history as the protocol's JSON list, `lead` (already-encoded elements, e.g. the chat
   * system message) first: the previous request's text for the runs it shares with this
   * one, and this request's new runs encoded now.
   */
  list(messages: readonly CompleteModelPayload[], lead = ""): EncodedJson {
    const first = messages[0];
    let state = first === undefined ? undefined : this.#states.get(first);
    state = state === undefined || state.lead !== lead ? new ListState(lead) : this.#keep(state, messages);
    if (first !== undefined) this.#states.set(first, state);
    return this.#extend(state, messages);
  }

  /** `state` kept up to the last closed run this request still has exactly; a new state when some must go. */
  #keep(state: ListState, messages: readonly CompleteModelPayload[]): ListState {
    const old = state.items;
    const oldCount = state.itemCount;
    const n = Math.min(oldCount, messages.length);
    // The previous request's own array, grown since, changed nothing of what it held (types.ts
    // `ModelRequest.messages`: core's adapter keeps one such array per history): nothing to compare.
    let common = old === messages ? n : 0;
    const from = common;
    while (common < n && old[common] === messages[common]) common++;
    wireCacheCounters.comparedItems += common - from + (common < n ? 1 : 0);
    const stillEnds = (m: Mark): boolean =>
      m.end < common || (m.end === common && (common === messages.length || sideOf(messages[common] as CompleteModelPayload) !== m.side));
    let keep = state.marks.length;
    while (keep > 0 && !stillEnds(state.marks[keep - 1] as Mark)) keep--;
    // Gemini: an output already encoded may have been answered by a call that is gone (with the
    // runs cut here, or from the previous request's last run); start again.
    if (this.#codec.readsToolNames === true && (keep < state.marks.length || this.#answeredCallGone(state, old.slice(common, oldCount)))) return new ListState(state.lead);
    return keep === state.marks.length ? state : state.keeping(keep);
  }

  #answeredCallGone(state: ListState, gone: readonly object[]): boolean {
    for (const p of gone as readonly CompleteModelPayload[]) if (p.type === "tool_call" && state.answered.has(p.tool_call_id)) return true;
    return false;
  }

  #extend(state: ListState, messages: readonly CompleteModelPayload[]): EncodedJson {
    const codec = this.#codec;
    let at = state.closed;
    const tail = messages.slice(at.end);
    if (codec.readsToolNames === true && this.#renames(state, tail)) return this.#extend(new ListState(state.lead), messages);
    const tailNames = new Map<string, string>();
    if (codec.readsToolNames === true) for (const p of tail) if (p.type === "tool_call") tailNames.set(p.tool_call_id, p.name);
    const context: RunContext = { nameOf: (id) => tailNames.get(id) ?? state.names.get(id) };
    const runs = toRuns(tail);
    // The previous request's last run, written past the closed runs: kept when it is this
    // request's first run unchanged; else its bytes must not be written over.
    const pending = state.pending;
    const first = runs[0];
    state.saw(messages);
    if (first === undefined) return this.#assemble(state, at);
    state.pending = undefined;
    const reused = pending !== undefined && pending.start === at.end && pending.mark.bytes === state.text.length && sameItems(pending.items, first.items) ? pending : undefined;
    if (reused === undefined && state.text.length > at.bytes) state = this.#restart(state, messages);
    if (reused === undefined && codec.group === undefined && runs.length > MERGE_RUNS_FROM) return this.#extendMerged(state, at, runs, context, messages);
    const encoded = this.#encode(state, (reused === undefined ? runs : runs.slice(1)).map((run) => [run]), context);
    // Its characters, and a little for the framing: exact room for an ASCII history, one growth at most.
    let chars = 0;
    for (const e of encoded) chars += e.chars + 64;
    state.text.reserve(chars);
    let from = at.end;
    runs.forEach((run, i) => {
      const items = run.items as readonly object[];
      const end = from + items.length;
      const mark = reused !== undefined && i === 0 ? reused.mark : this.#write(state, at, run.side, encoded[reused === undefined ? i : i - 1] as Elements, end);
      from = end;
      at = mark;
      if (i === runs.length - 1) {
        state.pending = { start: end - items.length, items, mark };
        return;
      }
      state.marks.push(mark);
      if (codec.readsToolNames === true) for (const p of run.items) if (p.type === "tool_call") state.names.set(p.tool_call_id, p.name);
    });
    state.saw(messages);
    return this.#assemble(state, at);
  }

  /**
   * Many new runs at once (a resumed history's first request) in a flat list: all but the last
   * are encoded and written as one span with one mark at its end, the last as the pending run.
   * A flat list's elements are the runs' elements in order, comma-separated, so the text is the
   * one run by run would give; what is saved is a boundary, a piece and a mark per run. The
   * cost: a later request that keeps only some of these runs (an edited history) finds no mark
   * inside them and encodes its list again from the start.
   */
  #extendMerged(state: ListState, at: Mark, runs: readonly Run[], context: RunContext, messages: readonly CompleteModelPayload[]): EncodedJson {
    state.saw(messages);
    const closed = runs.slice(0, -1);
    const last = runs[runs.length - 1] as Run;
    const [closedElements, lastElements] = this.#encode(state, [closed, [last]], context) as [Elements, Elements];
    state.text.reserve(closedElements.chars + lastElements.chars + 128);
    const closedEnd = closed.reduce((end, run) => end + run.items.length, at.end);
    const closedMark = this.#write(state, at, (closed[closed.length - 1] as Run).side, closedElements, closedEnd);
    state.marks.push(closedMark);
    if (this.#codec.readsToolNames === true) for (const run of closed) for (const p of run.items) if (p.type === "tool_call") state.names.set(p.tool_call_id, p.name);
    const end = closedEnd + last.items.length;
    const mark = this.#write(state, closedMark, last.side, lastElements, end);
    state.pending = { start: closedEnd, items: last.items as readonly object[], mark };
    return this.#assemble(state, mark);
  }

  /** The state's closed runs in a new buffer, put in place of `state` for this history. */
  #restart(state: ListState, messages: readonly CompleteModelPayload[]): ListState {
    const next = state.keeping(state.marks.length);
    const first = messages[0];
    if (first !== undefined) this.#states.set(first, next);
    return next;
  }

  /** Whether a call in `tail` names differently a call an already-encoded output answered (Gemini: that output's bytes would change). */
  #renames(state: ListState, tail: readonly CompleteModelPayload[]): boolean {
    if (state.answered.size === 0) return false;
    for (const p of tail) if (p.type === "tool_call" && state.answered.has(p.tool_call_id) && state.answered.get(p.tool_call_id) !== p.name) return true;
    return false;
  }

  /** The runs' elements, encoded in one call (wire-body.ts `encodeSpans`): one span per group of runs (one run a group but in `#extendMerged`). */
  #encode(state: ListState, groups: readonly (readonly Run[])[], context: RunContext): Elements[] {
    if (groups.length === 0) return [];
    const codec = this.#codec;
    const values: unknown[] = [SPAN_BOUNDARY];
    let runs = 0;
    for (const group of groups) {
      for (const run of group) {
        if (codec.readsToolNames === true && run.side === "user") {
          for (const p of run.items) if (p.type === "tool_call_output") state.answered.set(p.tool_call_id, context.nameOf(p.tool_call_id));
        }
        for (const element of codec.elementsOf(run, context)) values.push(element);
      }
      values.push(SPAN_BOUNDARY);
      runs += group.length;
    }
    const spans = encodeSpans(values, codec.stringify);
    wireCacheCounters.encodedRuns += runs;
    for (const span of spans) wireCacheCounters.encodedChars += span.chars;
    return spans;
  }

  /** Writes a run after `at` into the state's buffer: where the list stands after it. */
  #write(state: ListState, at: Mark, side: Side, elements: Elements, end: number): Mark {
    if (isEmpty(elements)) return { ...at, end, side };
    const f = framing(this.#codec, at, side);
    state.text.text(f.before);
    for (const part of elements.parts) {
      if (typeof part === "string") state.text.text(part);
      else state.text.bytes(part);
    }
    const bytes = state.text.length;
    return { end, side, bytes, chars: at.chars + f.before.length + elements.chars, any: f.any, openSide: f.openSide, userEnd: side === "user" ? bytes : at.userEnd };
  }

  /** `[`, the text up to `at` (the breakpoint in its last user block), the closing: chunks and their length in characters. */
  #assemble(state: ListState, at: Mark): EncodedJson {
    const codec = this.#codec;
    const chunks: Uint8Array[] = [OPEN];
    let chars = 1 + at.chars;
    const breakpoint = codec.breakpoint;
    if (breakpoint !== undefined && at.userEnd >= 0) {
      // The last user-side block ends at `userEnd`: the marker goes before its closing brace.
      chunks.push(state.text.view(0, at.userEnd - 1), Buffer.from(`${breakpoint}}`, "utf8"));
      if (at.bytes > at.userEnd) chunks.push(state.text.view(at.userEnd, at.bytes));
      chars += breakpoint.length;
    } else chunks.push(state.text.view(0, at.bytes));
    const close = `${at.openSide !== undefined && codec.group !== undefined ? codec.group.close : ""}]`;
    chunks.push(Buffer.from(close, "utf8"));
    chars += close.length;
    return new EncodedJson(chunks, chars);
  }
}

/** Framing for one more run after `at`: the text to write before its elements, and where things stand after. */
function framing(codec: ListCodec, at: Pick<Mark, "any" | "openSide">, side: Side): { before: string; any: boolean; openSide: Side | undefined } {
  const group = codec.group;
  if (group === undefined) return { before: at.any ? "," : "", any: true, openSide: undefined };
  if (at.openSide === side) return { before: ",", any: true, openSide: side };
  const close = at.openSide === undefined ? "" : `${group.close},`;
  return { before: `${close}${group.open[side]}`, any: true, openSide: side };
}

const OPEN = Buffer.from("[", "utf8");

/** From this many new runs in one request, a flat list writes all but the last as one span (`#extendMerged`). */
const MERGE_RUNS_FROM = 64;

/**
 * The body as the transport writes it (wire-body.ts `encodeParts`): a string, or chunks with
 * the cached values' own chunks in place. The characters encoded for it are counted: all but
 * those of the cached values (whose new parts were counted as they were encoded).
 */
export function buildBody(body: unknown, stringify?: (value: unknown) => string): string | Uint8Array[] {
  const encoded = encodeParts(body, stringify);
  wireCacheCounters.encodedChars += encoded.chars - (encoded.reused ?? 0);
  return "text" in encoded ? encoded.text : encoded.chunks;
}

/**
 * Values a request carries unchanged from one request to the next (the tool list, the system
 * prompt's block), encoded once per key and reused while the key is the same object (a tool
 * list) or string (a system prompt): the skeleton of a body is then encoded per request, not its
 * tools' schemas. Tool lists are held weakly; strings, the last few.
 */
export class EncodedOnce {
  readonly #byObject = new WeakMap<object, EncodedJson>();
  readonly #byString = new Map<string, EncodedJson>();
  readonly #stringify: ((value: unknown) => string) | undefined;

  constructor(stringify?: (value: unknown) => string) {
    this.#stringify = stringify;
  }

  /** `make()`'s value encoded, or, bypassed, the value itself. */
  get(key: object | string, make: () => unknown): unknown {
    if (bypassed > 0) return make();
    const kept = typeof key === "string" ? this.#byString.get(key) : this.#byObject.get(key);
    if (kept !== undefined) return kept;
    const encoded = encodeParts(make(), this.#stringify);
    wireCacheCounters.encodedChars += encoded.chars;
    const value = new EncodedJson("text" in encoded ? [Buffer.from(encoded.text, "utf8")] : encoded.chunks, encoded.chars);
    if (typeof key === "string") {
      if (this.#byString.size >= 8) this.#byString.delete(this.#byString.keys().next().value as string);
      this.#byString.set(key, value);
    } else this.#byObject.set(key, value);
    return value;
  }
}
