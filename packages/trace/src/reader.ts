/**
 * Reading traces back: tolerant line parsing and locating a session's files.
 *
 * A trace may end in a torn line (a crash mid-write), carry NUL padding (a filesystem that
 * extended the file before the data landed), or hold a malformed line in the middle (a bad
 * hand edit). The reader never throws on content: it returns the envelopes it could read and
 * reports what it skipped (with the line number and, for a line that is JSON but not an
 * envelope, the field that is wrong), so resume can decide, and nothing already recorded is
 * lost. Files are never rewritten. Older line shapes are upcast before decoding (upcast.ts).
 */
import { closeSync, fstatSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { decodeEnvelope, type OmniMessage } from "@penguin/omnimessage";
import { readRange } from "./file-range.js";
import { cutLongStrings, LineCutter, type CutText, type LineCutOptions, type RecordCut } from "./cut-line.js";
import { RawOutputCollector } from "./raw-outputs.js";
import { upcastLine } from "./upcast.js";

export interface SkippedLine {
  /** 1-based line number. */
  line: number;
  reason: "torn" | "invalid-json" | "not-an-envelope";
  /** For `not-an-envelope`: what the schema rejected, naming the field. */
  error?: string;
}

export interface TraceContent {
  messages: OmniMessage[];
  /** The 1-based line number of each message (same order and length as `messages`). */
  lines: number[];
  skipped: SkippedLine[];
  /** The last line was incomplete (no trailing newline and not parseable). */
  tornTail: boolean;
}

/**
 * Collects what a trace holds, one line at a time. The readers below and the record index
 * (record-index.ts) feed it, so the rules for a line (NUL stripping, trimming, torn tail,
 * upcast, validation) are written once.
 */
export class TraceContentBuilder {
  readonly messages: OmniMessage[] = [];
  readonly lines: number[] = [];
  readonly skipped: SkippedLine[] = [];
  tornTail = false;
  /** The message the last line gave, when it was decoded from its text exactly (nothing stripped or trimmed, no upcast). */
  lastVerbatim: OmniMessage | undefined;

  /** With `cut`, `lineBytes` cuts a line's long string literals before decoding it (cut-line.ts): for readers that show records to people. */
  constructor(readonly cut?: LineCutOptions) {}

  /**
   * One line as bytes `bytes[start, end)`: decoded as `line` does, except that with `cut` a line
   * with literals longer than its limit is cut first (only the kept bytes become text) and the
   * record says so on its payload (`cut`, without `at`: the caller knows the file).
   */
  lineBytes(bytes: Buffer, start: number, end: number, lineNumber: number, isLast: boolean, mayHoldNul: boolean): void {
    const reduced = this.cut === undefined || mayHoldNul ? undefined : cutLongStrings(bytes, start, end, this.cut);
    if (reduced === undefined) this.line(bytes.toString("utf8", start, end), lineNumber, isLast, mayHoldNul);
    else this.lineCut({ ...reduced, recordBytes: end - start }, lineNumber, isLast);
  }

  /** A line already cut (cut-line.ts): decoded from what is left, the record marked with what was cut. */
  lineCut(cut: CutText, lineNumber: number, isLast: boolean): void {
    const before = this.messages.length;
    this.line(cut.text, lineNumber, isLast, false);
    this.lastVerbatim = undefined;
    if (this.messages.length === before || cut.cutBytes === 0) return;
    const marker: RecordCut = { truncated: true, bytes: cut.cutBytes, recordBytes: cut.recordBytes, fields: cut.fields };
    (this.messages[before]!.payload as { cut?: RecordCut }).cut = marker;
  }

  /** One line's text (without its newline); `isLast` when it is the unterminated last line. */
  line(text: string, lineNumber: number, isLast: boolean, mayHoldNul: boolean): void {
    this.lastVerbatim = undefined;
    // Most lines are clean: only pay for NUL stripping and trimming when needed.
    let raw = text;
    if (mayHoldNul && raw.includes("\0")) raw = raw.replace(/\0/g, "");
    if (raw === "" || raw.charCodeAt(0) <= 32 || raw.charCodeAt(raw.length - 1) <= 32) raw = raw.trim();
    if (raw === "") return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      if (isLast) this.tornTail = true;
      this.skipped.push({ line: lineNumber, reason: isLast ? "torn" : "invalid-json" });
      return;
    }
    const upcast = upcastLine(value);
    const decoded = decodeEnvelope(upcast);
    if (!decoded.ok) {
      this.skipped.push({ line: lineNumber, reason: "not-an-envelope", error: decoded.error });
      return;
    }
    this.messages.push(decoded.message as OmniMessage);
    this.lines.push(lineNumber);
    if (raw === text && upcast === value) this.lastVerbatim = decoded.message as OmniMessage;
  }

  content(): TraceContent {
    return { messages: this.messages, lines: this.lines, skipped: this.skipped, tornTail: this.tornTail };
  }
}

/** Parse trace text. Pure: exposed for fuzzing and for readers of uploaded traces. */
export function parseTraceText(text: string): TraceContent {
  const out = new TraceContentBuilder();
  const mayHoldNul = text.includes("\0");
  let lineNumber = 1;
  let start = 0;
  for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n", start)) {
    out.line(text.slice(start, end), lineNumber++, false, mayHoldNul);
    start = end + 1;
  }
  // What follows the last newline is a line only if it has content: a torn write, or a
  // last record whose newline never landed.
  if (start < text.length) out.line(text.slice(start), lineNumber, true, mayHoldNul);
  return out.content();
}

const NEWLINE = 0x0a;
const NUL = 0x00;

/**
 * Parse a trace file's bytes in one pass: split on newline bytes and decode each line on its
 * own, never building the whole file as one string (a 50 MB trace would be a 50 MB string,
 * or twice that as soon as one character is outside Latin-1, and one more copy for the GC to
 * move). Splitting before decoding is safe: a newline byte never occurs inside a multi-byte
 * UTF-8 sequence, so each line decodes exactly as it does inside the whole text.
 */
export function parseTraceBytes(bytes: Buffer, cut?: LineCutOptions): TraceContent {
  const out = new TraceContentBuilder(cut);
  const mayHoldNul = bytes.indexOf(NUL) >= 0;
  let lineNumber = 1;
  let start = 0;
  for (let end = bytes.indexOf(NEWLINE); end >= 0; end = bytes.indexOf(NEWLINE, start)) {
    out.lineBytes(bytes, start, end, lineNumber++, false, mayHoldNul);
    start = end + 1;
  }
  if (start < bytes.length) out.lineBytes(bytes, start, bytes.length, lineNumber, true, mayHoldNul);
  return out.content();
}

/** Bytes read at a time: the buffer is reused, and grows only for a line longer than it. */
const READ_CHUNK = 1 << 20;

/**
 * Read a trace file with the same line rules as `parseTraceBytes`, a chunk at a time through
 * one reused buffer: a 50 MB file never needs a 50 MB allocation (fresh pages the kernel must
 * zero, and memory the heap has to account for) just to be split into lines and dropped.
 */
export function readTraceFile(file: string): TraceContent {
  return readTraceFileWithExtent(file).content;
}

/** How far a read got through whole lines: the bytes and lines before the last newline read. */
export interface CompleteExtent {
  /** Bytes from the file's start through its last newline (the torn tail, if any, excluded). */
  bytes: number;
  /** Newline-terminated lines in those bytes: every message numbered at most this is in them. */
  lines: number;
}

/**
 * `readTraceFile`, also telling how far its whole lines reach. The file may grow while it is
 * read; the extent describes exactly the lines read, so a cache keyed by it (the resume
 * snapshot) never claims a line that was not folded.
 */
export function readTraceFileWithExtent(file: string, options: { skipLine?: (line: number) => boolean; keepRawOutputs?: boolean } = {}): { content: TraceContent; extent: CompleteExtent } {
  return readLines(file, undefined, options.skipLine, options.keepRawOutputs === true ? new RawOutputCollector() : undefined);
}

/**
 * The records of a trace file whose line numbers are in (`after`, `through`] (either end
 * open when left out), with the line rules and line numbers of `readTraceFile`. Only those
 * lines are decoded; the others are found by their newline and counted. For a reader that
 * needs the records after a position (a client that reconnects having missed three records
 * of a 100k-line file, a stream catching up with what another writer appended): a scan of
 * the bytes, not a parse of every line before them.
 */
export function readTraceFileLines(file: string, range: { after?: number; through?: number }): TraceContent {
  const after = range.after ?? 0;
  const through = range.through ?? Number.POSITIVE_INFINITY;
  return readLines(file, undefined, (line) => line <= after || line > through).content;
}

/** Lines decoded past the ones asked for by `lastRecordsOf`; a wider window follows only if too few of them are records. */
const LAST_RECORDS_SLACK = 64;

/**
 * The last `count` records of a trace file at or before line `through` (the file's end when
 * left out), oldest first, with their line numbers and the line rules of `readTraceFile`;
 * `more` tells that a record precedes the first one returned. Only the last lines are
 * decoded (a torn tail or garbage at the end is passed over as `readTraceFile` passes over
 * it), widening the window until enough are records or the file's start is reached; the
 * first read also counts the file's lines, where `through` is unknown or past them. The
 * newest page of a 100k-line session's history costs two scans of its bytes and the parse of
 * one page, an older page one scan, not a parse of every line.
 */
export function lastRecordsOf(file: string, count: number, through?: number, cut?: LineCutOptions): { messages: OmniMessage[]; lines: number[]; more: boolean } {
  let end = through ?? Number.POSITIVE_INFINITY;
  for (let window = count + LAST_RECORDS_SLACK; ; ) {
    const from = end - window;
    const { content, extent } = readLines(file, undefined, (line) => line <= from || line > end, undefined, cut);
    // Past the file's end (no `through`, or one beyond it): end there, and read that window.
    // An unterminated last line (one past the counted lines) may hold a record too.
    if (end > extent.lines + 1) {
      end = extent.lines + 1;
      continue;
    }
    const { messages, lines } = content;
    if (messages.length > count || from <= 0) {
      const start = Math.max(0, messages.length - count);
      return { messages: messages.slice(start), lines: lines.slice(start), more: start > 0 };
    }
    window *= 4;
  }
}

/** The line number of a trace file's last record (undefined when it has none); see `lastRecordsOf`. */
export function lastRecordLine(file: string): number | undefined {
  return lastRecordsOf(file, 1).lines[0];
}

/**
 * Only the lines of a trace file that hold one of `needles` (plain text, no newline in it),
 * with the line rules and line numbers of `readTraceFile`; the other lines are found by their
 * newline and never decoded. For a question a few record types answer (the session's
 * settings): scanning bytes is many times cheaper than parsing every line. A needle that is a
 * JSON string with its quotes (`"settings_changed"`) cannot match inside another string (its
 * quotes would be escaped there); any other line that holds it is read too and the caller
 * folds what it gets, so that costs a parse, never a wrong answer.
 */
export function readTraceFileMatching(file: string, needles: readonly string[]): TraceContent {
  const patterns = needles.map((n) => Buffer.from(n, "utf8"));
  if (patterns.some((p) => p.length === 0 || p.includes(NEWLINE))) throw new Error("readTraceFileMatching: each needle must be non-empty text without a newline");
  return readLines(file, patterns, undefined).content;
}

/**
 * The one chunked line loop. `patterns`: only lines holding one are decoded; `skipLine`: lines
 * it names are not decoded (a caller that has them already, as a snapshot's fold). Lines not
 * decoded still count for the line numbers, and are neither messages nor skipped lines.
 * `rawOutputs`: tool outputs' JSON text is kept from the whole lines read (raw-outputs.ts).
 */
function readLines(file: string, patterns: readonly Buffer[] | undefined, skipLine: ((line: number) => boolean) | undefined, rawOutputs?: RawOutputCollector, cut?: LineCutOptions): { content: TraceContent; extent: CompleteExtent } {
  const fd = openSync(file, "r");
  try {
    const out = new TraceContentBuilder(cut);
    let buffer = Buffer.allocUnsafe(READ_CHUNK);
    /** Bytes of an unfinished line kept at the start of `buffer`. */
    let kept = 0;
    let lineNumber = 1;
    let mayHoldNul = false;
    /** Bytes consumed before `buffer`'s start. */
    let consumed = 0;
    /** With patterns: where each one next occurs in the filled buffer (-1: not again). */
    const next: number[] = [];
    /** Whether the line [start, end) of `filled` is one to read. */
    const wanted = (filled: Buffer, start: number, end: number): boolean => {
      if (skipLine !== undefined && skipLine(lineNumber)) return false;
      if (patterns === undefined) return true;
      let hit = false;
      for (let i = 0; i < patterns.length; i++) {
        if (next[i]! >= 0 && next[i]! < start) next[i] = filled.indexOf(patterns[i]!, start);
        if (next[i]! >= 0 && next[i]! + patterns[i]!.length <= end) hit = true;
      }
      return hit;
    };
    /** Where the next scan for a newline starts: the kept bytes hold none, unless a long line's rest was just moved there. */
    let scanFrom = 0;
    /** The file offset the next read starts at. */
    let position = 0;
    for (;;) {
      if (kept === buffer.length && cut !== undefined && patterns === undefined && !mayHoldNul && kept >= cut.overBytes) {
        // A line longer than a cut keeps: stream it through a cutter (or past it, when it is not
        // wanted) with this buffer, instead of growing the buffer to hold all of it.
        const wantedLine = skipLine === undefined || !skipLine(lineNumber);
        const known = cut.known?.(file, consumed);
        if (known !== undefined && readRange(fd, consumed + known.recordBytes, 1)[0] === NEWLINE) {
          // Cut already (the record index did, a slice per turn): skip its bytes unread.
          if (wantedLine) out.lineCut(known, lineNumber, false);
          lineNumber++;
          consumed += known.recordBytes + 1;
          position = consumed;
          kept = 0;
          continue;
        }
        const cutter = wantedLine ? new LineCutter(cut) : undefined;
        const long = streamLongLine(fd, buffer, kept, cutter, position);
        position = long.position;
        if (cutter !== undefined) out.lineCut(cutter.finish(), lineNumber, long.ended === false);
        if (long.ended === false) {
          kept = 0;
          break;
        }
        lineNumber++;
        consumed += long.ended + 1;
        kept = long.kept;
        scanFrom = 0;
        if (kept > 0) {
          const rest = buffer.subarray(0, kept);
          let start = 0;
          for (let end = rest.indexOf(NEWLINE); end >= 0; end = rest.indexOf(NEWLINE, start)) {
            if (wanted(rest, start, end)) out.lineBytes(rest, start, end, lineNumber, false, mayHoldNul);
            lineNumber++;
            start = end + 1;
          }
          consumed += start;
          buffer.copyWithin(0, start, kept);
          kept -= start;
        }
        continue;
      }
      if (kept === buffer.length) {
        const bigger = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(bigger, 0, 0, kept);
        buffer = bigger;
      }
      const read = readSync(fd, buffer, kept, buffer.length - kept, position);
      if (read === 0) break;
      position += read;
      const filled = buffer.subarray(0, kept + read);
      if (!mayHoldNul && filled.indexOf(NUL, kept) >= 0) mayHoldNul = true;
      if (patterns !== undefined) for (let i = 0; i < patterns.length; i++) next[i] = filled.indexOf(patterns[i]!);
      let start = 0;
      for (let end = filled.indexOf(NEWLINE, Math.min(scanFrom, kept)); end >= 0; end = filled.indexOf(NEWLINE, start)) {
        if (wanted(filled, start, end)) {
          if (cut !== undefined) {
            out.lineBytes(filled, start, end, lineNumber, false, mayHoldNul);
          } else {
            const text = filled.toString("utf8", start, end);
            out.line(text, lineNumber, false, mayHoldNul);
            if (rawOutputs !== undefined && out.lastVerbatim !== undefined) rawOutputs.consider(out.lastVerbatim, text, start, end);
          }
        }
        lineNumber++;
        start = end + 1;
      }
      rawOutputs?.flush(filled);
      kept = filled.length - start;
      scanFrom = kept;
      consumed += start;
      buffer.copyWithin(0, start, filled.length);
    }
    const extent = { bytes: consumed, lines: lineNumber - 1 };
    if (kept > 0) {
      const last = buffer.subarray(0, kept);
      if (patterns !== undefined) for (let i = 0; i < patterns.length; i++) next[i] = last.indexOf(patterns[i]!);
      if (wanted(last, 0, kept)) out.lineBytes(last, 0, kept, lineNumber, true, mayHoldNul);
    }
    return { content: out.content(), extent };
  } finally {
    closeSync(fd);
  }
}

/**
 * The rest of a line whose first `kept` bytes fill `buffer`, read from `from` through `buffer`
 * chunk by chunk and fed to `cutter` (or only scanned for its end, without one). `ended` is the line's
 * length in bytes without its newline (false when the file ends first: an unterminated last
 * line); the bytes read past its newline are left at `buffer`'s start (`kept` of them).
 */
function streamLongLine(fd: number, buffer: Buffer, kept: number, cutter: LineCutter | undefined, from: number): { ended: number | false; kept: number; position: number } {
  cutter?.feed(buffer, 0, kept);
  let length = kept;
  let position = from;
  for (;;) {
    const read = readSync(fd, buffer, 0, buffer.length, position);
    if (read === 0) return { ended: false, kept: 0, position };
    position += read;
    const newline = buffer.subarray(0, read).indexOf(NEWLINE);
    if (newline < 0) {
      cutter?.feed(buffer, 0, read);
      length += read;
      continue;
    }
    cutter?.feed(buffer, 0, newline);
    buffer.copyWithin(0, newline + 1, read);
    return { ended: length + newline, kept: read - newline - 1, position };
  }
}

/**
 * The envelopes of the whole lines within the last `maxBytes` of a trace file (a line cut by
 * that boundary is left out), with the line rules of `readTraceFile`. For questions about a
 * file's end (what came right before its closing compaction) that need not read all of it.
 * `fromStart` tells that the window reached the file's start, so nothing was left out.
 */
export function readTraceFileTail(file: string, maxBytes: number): { messages: OmniMessage[]; fromStart: boolean } {
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    const from = Math.max(0, size - maxBytes);
    let bytes = readRange(fd, from, size - from);
    // Unless the window starts the file, its first line may be cut: start after its newline.
    if (from > 0) {
      const firstNewline = bytes.indexOf(NEWLINE);
      bytes = firstNewline < 0 ? bytes.subarray(bytes.length) : bytes.subarray(firstNewline + 1);
    }
    return { messages: parseTraceBytes(bytes).messages, fromStart: from === 0 };
  } finally {
    closeSync(fd);
  }
}

export interface TraceFileRef {
  file: string;
  index: number;
}

const FILE_RE = /^(session-\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}-[0-9a-f]{8})_(\d{3,})\.jsonl$/;

/** The index of a trace file from its name (`<sid>_<NNN>.jsonl`), or undefined. */
export function traceFileIndex(file: string): number | undefined {
  const m = FILE_RE.exec(file.slice(file.lastIndexOf("/") + 1));
  return m ? Number(m[2]) : undefined;
}

const SESSION_ID_RE = /^session-(\d{4}-\d{2}-\d{2})-\d{2}-\d{2}-\d{2}-[0-9a-f]{8}$/;

/**
 * A session's trace files under a traces directory (`<tracesDir>/<YYYY-MM-DD>/<sid>_NNN.jsonl`),
 * lowest index first. Empty when the session has none or the id is not a session id.
 */
export function traceFilesIn(tracesDir: string, sessionId: string): TraceFileRef[] {
  const date = SESSION_ID_RE.exec(sessionId)?.[1];
  if (date === undefined) return [];
  const dir = join(tracesDir, date);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: TraceFileRef[] = [];
  for (const name of names) {
    const m = FILE_RE.exec(name);
    if (m && m[1] === sessionId) out.push({ file: join(dir, name), index: Number(m[2]) });
  }
  return out.sort((a, b) => a.index - b.index);
}

export interface SessionTraceSummary {
  sessionId: string;
  files: TraceFileRef[];
  /** Latest modification time over the session's files, ms since epoch. */
  mtimeMs: number;
}

/** Every session with at least one trace file, most recently active first. */
export function listTracedSessionsIn(tracesDir: string): SessionTraceSummary[] {
  let dates: string[];
  try {
    dates = readdirSync(tracesDir);
  } catch {
    return [];
  }
  const byId = new Map<string, SessionTraceSummary>();
  for (const date of dates) {
    let names: string[];
    try {
      names = readdirSync(join(tracesDir, date));
    } catch {
      continue;
    }
    for (const name of names) {
      const m = FILE_RE.exec(name);
      if (!m) continue;
      const file = join(tracesDir, date, name);
      let mtimeMs = 0;
      try {
        mtimeMs = statSync(file).mtimeMs;
      } catch {
        continue;
      }
      const id = m[1]!;
      const entry = byId.get(id) ?? { sessionId: id, files: [], mtimeMs: 0 };
      entry.files.push({ file, index: Number(m[2]) });
      entry.mtimeMs = Math.max(entry.mtimeMs, mtimeMs);
      byId.set(id, entry);
    }
  }
  const out = [...byId.values()];
  for (const s of out) s.files.sort((a, b) => a.index - b.index);
  return out.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.sessionId < b.sessionId ? 1 : -1));
}
