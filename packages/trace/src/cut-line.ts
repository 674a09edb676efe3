/**
 * Reading a huge trace line for a person, not for a resume: every JSON string literal longer
 * than a limit (a 30 MB tool output, a pasted text, an image's data URL) is cut to its head in
 * the line's bytes, before anything decodes them, and the decoded record says what was cut
 * (`cut` on its payload: `{truncated: true, bytes, recordBytes, fields, at}`; `at` is the
 * record's position, which the reader that knows the file fills in). The whole record stays on
 * disk, reachable by that position.
 *
 * Why on the bytes: `JSON.parse` of a 30 MB line, or even turning its bytes into a string,
 * holds the event loop for 100+ ms, and the server answers every user on that loop. Finding a
 * literal's ends needs only the quote bytes (`Buffer.indexOf`, native) and the backslashes
 * right before each; a quote or a backslash byte never occurs inside a multi-byte UTF-8
 * sequence, so the scan is exact on any valid line. Only the kept bytes are decoded.
 */
import type { OmniMessage } from "@penguin/omnimessage";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

/** How lines are cut: literals of more than `overBytes` keep their first `keepBytes`. */
export interface LineCutOptions {
  overBytes: number;
  keepBytes: number;
  /**
   * A long line already cut, by its file and the byte it starts at (the record index keeps
   * them, cut a slice per turn): a reader that finds it there skips the line's bytes instead of
   * scanning them, so a synchronous read never scans a 30 MB line on the event loop.
   */
  known?: (file: string, start: number) => CutText | undefined;
}

/** A line whose long literals were cut: the text left, and what was cut. */
export interface CutText {
  text: string;
  cutBytes: number;
  fields: string[];
  recordBytes: number;
}

/** What a cut record says about itself (on its payload, as `cut`). */
export interface RecordCut {
  truncated: true;
  /** Bytes of the record's line the cut left out. */
  bytes: number;
  /** Bytes of the whole record's line (without its newline): what the whole-record route returns. */
  recordBytes: number;
  /** The fields whose text was cut (the key each cut literal was the value of, or an item of). */
  fields: string[];
  /** The record's position, `NNN:LLLLLL`, once its reader knows the file. */
  at?: string;
}

/**
 * Defaults for the server's read paths: texts up to 4 MiB are whole (a screenshot's data URL
 * still shows; decoding 4 MiB takes a few ms), longer ones keep their first 16 KiB.
 */
export const DEFAULT_LINE_CUT: LineCutOptions = { overBytes: 4 * 1024 * 1024, keepBytes: 16 * 1024 };

/** Whether the backslashes right before `at` (down to `floor`) are an odd run: the byte at `at` is escaped. */
function escaped(bytes: Buffer, at: number, floor: number): boolean {
  let run = 0;
  for (let k = at - 1; k >= floor && bytes[k] === BACKSLASH; k--) run++;
  return run % 2 === 1;
}

/** How many of a literal's first bytes (from `from`, at most `keep`, before `close`) can be kept without splitting a character or an escape. */
function safeHead(bytes: Buffer, from: number, close: number, keep: number): number {
  let end = Math.min(from + keep, close);
  // Not inside a multi-byte character: back up to the byte that starts one.
  while (end > from && end < close && (bytes[end]! & 0xc0) === 0x80) end--;
  // Not inside an escape (`\n`, `\"`, `\u00e9`): the last six bytes may hold its start.
  for (let i = Math.max(from, end - 6); i < end; i++) {
    if (bytes[i] !== BACKSLASH || escaped(bytes, i, from)) continue;
    const length = bytes[i + 1] === 0x75 ? 6 : 2;
    if (i + length > end) return i - from;
    i += length - 1;
  }
  return end - from;
}

/**
 * The line `bytes[start, end)` with every string literal of more than `overBytes` cut to a head
 * (as text), the bytes left out and the fields cut; undefined when nothing needs cutting or the
 * line is not well-formed enough to find its literals (it is then decoded as it is, and skipped
 * as a whole read would skip it).
 */
export function cutLongStrings(bytes: Buffer, start: number, end: number, options: LineCutOptions): { text: string; cutBytes: number; fields: string[] } | undefined {
  if (end - start <= options.overBytes) return undefined;
  const pieces: string[] = [];
  const fields: string[] = [];
  let cutBytes = 0;
  let copied = start;
  let pos = start;
  let key = "";
  for (;;) {
    const open = bytes.indexOf(QUOTE, pos);
    if (open < 0 || open >= end) break;
    let close = bytes.indexOf(QUOTE, open + 1);
    while (close >= 0 && close < end && escaped(bytes, close, open + 1)) close = bytes.indexOf(QUOTE, close + 1);
    if (close < 0 || close >= end) return undefined;
    const length = close - open - 1;
    if (length > options.overBytes) {
      const head = safeHead(bytes, open + 1, close, options.keepBytes);
      pieces.push(bytes.toString("utf8", copied, open + 1 + head));
      copied = close;
      cutBytes += length - head;
      if (!fields.includes(key)) fields.push(key);
    } else if (length < 256 && bytes[close + 1] === COLON) {
      key = bytes.toString("utf8", open + 1, close);
    }
    pos = close + 1;
  }
  if (cutBytes === 0) return undefined;
  pieces.push(bytes.toString("utf8", copied, end));
  return { text: pieces.join(""), cutBytes, fields };
}

/**
 * `cutLongStrings` for a line too long to hold: its bytes are fed in order, chunk by chunk (no
 * newline among them), and only what is kept is copied, so a 30 MB line costs a scan of its
 * quote bytes and never a 30 MB buffer. A literal is kept until it passes `overBytes`, then cut
 * back to its head; the rest of it is only scanned for its closing quote.
 */
export class LineCutter {
  #out = Buffer.allocUnsafe(64 * 1024);
  #length = 0;
  #total = 0;
  #inString = false;
  /** Bytes of the current literal so far, and where it starts in `#out`. */
  #literal = 0;
  #literalStart = 0;
  #cutting = false;
  #head = 0;
  /** Parity of the backslashes that end the current literal's bytes so far (1: the next byte is escaped). */
  #escapedNext = 0;
  #pendingKey: string | undefined;
  #key = "";
  #cutBytes = 0;
  #fields: string[] = [];

  constructor(readonly options: LineCutOptions) {}

  feed(bytes: Buffer, start: number, end: number): void {
    this.#total += end - start;
    let pos = start;
    while (pos < end) {
      if (!this.#inString) {
        const q = bytes.indexOf(QUOTE, pos);
        const stop = q < 0 || q >= end ? end : q;
        if (this.#pendingKey !== undefined && stop > pos) {
          if (bytes[pos] === COLON) this.#key = this.#pendingKey;
          this.#pendingKey = undefined;
        }
        this.#copy(bytes, pos, q < 0 || q >= end ? end : q + 1);
        if (stop === end) return;
        this.#inString = true;
        this.#literal = 0;
        this.#literalStart = this.#length;
        this.#cutting = false;
        this.#escapedNext = 0;
        pos = q + 1;
        continue;
      }
      let close = -1;
      for (let q = bytes.indexOf(QUOTE, pos); q >= 0 && q < end; q = bytes.indexOf(QUOTE, q + 1)) {
        let run = 0;
        let k = q - 1;
        while (k >= pos && bytes[k] === BACKSLASH) {
          run++;
          k--;
        }
        if (k < pos) run += this.#escapedNext;
        if (run % 2 === 0) {
          close = q;
          break;
        }
      }
      const stop = close >= 0 ? close : end;
      this.#literalBytes(bytes, pos, stop);
      if (close < 0) {
        let run = 0;
        for (let k = end - 1; k >= pos && bytes[k] === BACKSLASH; k--) run++;
        this.#escapedNext = run === end - pos ? (this.#escapedNext + run) % 2 : run % 2;
        return;
      }
      this.#closeLiteral();
      this.#copy(bytes, close, close + 1);
      pos = close + 1;
    }
  }

  /** The line fed, cut; the cutter is then ready for the next line. */
  finish(): CutText {
    const done: CutText = { text: this.#out.toString("utf8", 0, this.#length), cutBytes: this.#cutBytes, fields: this.#fields, recordBytes: this.#total };
    this.#length = 0;
    this.#total = 0;
    this.#inString = false;
    this.#pendingKey = undefined;
    this.#key = "";
    this.#cutBytes = 0;
    this.#fields = [];
    return done;
  }

  #literalBytes(bytes: Buffer, from: number, to: number): void {
    this.#literal += to - from;
    if (this.#cutting) return;
    this.#copy(bytes, from, to);
    if (this.#literal > this.options.overBytes) {
      this.#cutting = true;
      this.#head = safeHead(this.#out, this.#literalStart, this.#length, this.options.keepBytes);
      this.#length = this.#literalStart + this.#head;
    }
  }

  #closeLiteral(): void {
    this.#inString = false;
    if (this.#cutting) {
      this.#cutBytes += this.#literal - this.#head;
      if (!this.#fields.includes(this.#key)) this.#fields.push(this.#key);
    } else if (this.#literal < 256) {
      this.#pendingKey = this.#out.toString("utf8", this.#literalStart, this.#length);
    }
  }

  #copy(bytes: Buffer, from: number, to: number): void {
    const n = to - from;
    if (n <= 0) return;
    if (this.#length + n > this.#out.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.#out.length * 2, this.#length + n));
      this.#out.copy(bigger, 0, 0, this.#length);
      this.#out = bigger;
    }
    bytes.copy(this.#out, this.#length, from, to);
    this.#length += n;
  }
}

/** What was cut of a record read through a cutting reader; undefined for a whole one. */
export function recordCutOf(m: OmniMessage): RecordCut | undefined {
  const cut = (m.payload as { cut?: unknown }).cut;
  return typeof cut === "object" && cut !== null && (cut as RecordCut).truncated === true ? (cut as RecordCut) : undefined;
}

/** Sets a cut record's position (its reader knows the file; the line decoder alone does not). */
export function placeCutRecord(m: OmniMessage, at: string): void {
  const cut = recordCutOf(m);
  if (cut !== undefined) cut.at = at;
}
