/**
 * Time travel from stored snapshots: where a database (the timeline projection) keeps the
 * time-travel fold every K events, a question about event N starts from the nearest snapshot
 * at or before N and folds only the events after it, read from the trace files at the byte
 * offset the snapshot recorded. The files before that offset are not read at all, which is
 * what makes a fresh process (`penguin inspect --at N`) answer without parsing the session.
 *
 * `SnapshotSource` is what such a database offers; this package defines it so that core (the
 * SDK) can use one without knowing about projections. A source answers `undefined` when it
 * cannot vouch for a session (not caught up, snapshots of another format or version): the
 * caller then folds in process, from its own cache.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { readRange } from "./file-range.js";
import type { OmniMessage } from "@penguin/omnimessage";
import { LineCutter, placeCutRecord, type CutText, type LineCutOptions } from "./cut-line.js";
import { comparePositions, formatPosition, type StateAtTarget, type TracePosition } from "./position.js";
import { parseTraceBytes, TraceContentBuilder, type TraceContent, type TraceFileRef } from "./reader.js";
import { initialTimeTravelState, stepTimeTravel, type TimeTravelState } from "./time-travel.js";

export interface StoredSnapshot {
  /** Events folded, from the session start. */
  events: number;
  /** The last event folded. */
  position: TracePosition;
  /** Byte offset in that event's file right after its line: where the next line starts. */
  endByte: number;
  /** What that event is (`describeRecord`), for a question that lands on it. */
  record: string;
  fold: TimeTravelState;
}

/** A record in a few words: `session_meta`, or the envelope type and the payload type (`event_msg request_end`). */
export function describeRecord(m: OmniMessage): string {
  return m.type === "session_meta" ? "session_meta" : `${m.type} ${m.payload.type}`;
}

export interface SnapshotLookup {
  /** Events the source has seen in the session (it may lag behind the files by a few). */
  totalEvents: number;
  /** The latest snapshot at or before the target; undefined when the target precedes them all. */
  snapshot: StoredSnapshot | undefined;
}

export interface SnapshotSource {
  /**
   * The nearest usable snapshot at or before `target` (the session's end when undefined), or
   * undefined when the source cannot answer for this session. `files` are the session's trace
   * files: a source whose snapshots refer to trace lines reads them from there (without them,
   * or when a reference does not resolve, it throws or answers undefined; the caller folds
   * from the files).
   */
  nearest(sessionId: string, target: StateAtTarget | undefined, files?: readonly TraceFileRef[]): Promise<SnapshotLookup | undefined>;
}

export interface FoldedTo {
  fold: TimeTravelState;
  /** Events folded from the session start. */
  events: number;
  /** The last event folded (undefined when none was). */
  position: TracePosition | undefined;
  /** That event itself (undefined when none was folded, or when it was folded into the snapshot). */
  message: OmniMessage | undefined;
  /** Whether a position target named an event exactly (false when it fell on a skipped line or past the end). */
  exact: boolean;
  /** True when the fold reached the end of the files. */
  atEnd: boolean;
}

// Small pieces: a question usually needs only the few lines after its snapshot.
const READ_CHUNK = 64 << 10;

/**
 * Folds from `start` (or the session start) to `target`, reading `refs` (the session's files,
 * lowest index first) from the snapshot's offset on. Without a target it folds to the end.
 * With `cut`, the lines read have their long texts cut (cut-line.ts), each such record placed
 * at its position: for answers shown to people, never for a fold that continues a session.
 */
export function foldFromSnapshot(refs: readonly TraceFileRef[], start: StoredSnapshot | undefined, target: StateAtTarget | undefined, options: { cut?: LineCutOptions } = {}): FoldedTo {
  let fold = start?.fold ?? initialTimeTravelState;
  let events = start?.events ?? 0;
  let position = start?.position;
  let message: OmniMessage | undefined;
  let exact = target?.kind === "position" && position !== undefined && comparePositions(position, target.position) === 0;
  const reached = (): boolean => (target === undefined ? false : target.kind === "count" ? events >= target.count : position !== undefined && comparePositions(position, target.position) >= 0);
  if (reached()) return { fold, events, position, message, exact, atEnd: false };
  for (const ref of refs) {
    if (start !== undefined && ref.index < start.position.file) continue;
    const resume = start !== undefined && ref.index === start.position.file;
    let byte = resume ? start.endByte : 0;
    let lineBase = resume ? start.position.line : 0;
    for (const piece of readLines(ref.file, byte, options.cut)) {
      const parsed = piece.long !== undefined ? cutLineContent(piece.long, piece.lines === 0) : parseTraceBytes(piece.bytes, options.cut);
      for (let i = 0; i < parsed.messages.length; i++) {
        const at = { file: ref.index, line: lineBase + parsed.lines[i]! };
        if (target?.kind === "position" && comparePositions(at, target.position) > 0) return { fold, events, position, message, exact, atEnd: false };
        const m = parsed.messages[i]!;
        if (options.cut !== undefined) placeCutRecord(m, formatPosition(at));
        fold = stepTimeTravel(fold, m);
        events += 1;
        position = at;
        message = m;
        exact = target?.kind === "position" && comparePositions(at, target.position) === 0;
        if (reached()) return { fold, events, position, message, exact, atEnd: false };
      }
      byte = piece.end;
      lineBase += piece.lines;
    }
  }
  return { fold, events, position, message, exact, atEnd: true };
}

/** A long line read through a cutter, as the content of one line (`isLast`: it had no newline). */
function cutLineContent(long: CutText, isLast: boolean): TraceContent {
  const out = new TraceContentBuilder();
  out.lineCut(long, 1, isLast);
  return out.content();
}

/**
 * A file's bytes from `from` on, in pieces that end on a line break (the last may not), each
 * valid only until the next is asked for. One buffer, doubled only for a line longer than it:
 * a 30 MB line is read once, not re-copied with every chunk that does not yet end it.
 */
function* readLines(file: string, from: number, cut: LineCutOptions | undefined): Generator<{ bytes: Buffer; lines: number; end: number; long?: CutText }> {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return;
  }
  try {
    const size = fstatSync(fd).size;
    let offset = from;
    let buffer = Buffer.allocUnsafe(READ_CHUNK);
    /** Bytes of an unfinished line kept at the start of `buffer`. */
    let kept = 0;
    while (offset < size) {
      if (kept === buffer.length && cut !== undefined && kept >= cut.overBytes) {
        // A line longer than a cut keeps: cut already by the record index (its bytes are skipped
        // unread), or through a cutter here, chunk by chunk, never held whole.
        const lineStart = offset - kept;
        const known = cut.known?.(file, lineStart);
        if (known !== undefined && lineStart + known.recordBytes < size && readRange(fd, lineStart + known.recordBytes, 1)[0] === 0x0a) {
          offset = lineStart + known.recordBytes + 1;
          kept = 0;
          yield { bytes: Buffer.alloc(0), lines: 1, end: offset, long: known };
          continue;
        }
        const cutter = new LineCutter(cut);
        cutter.feed(buffer, 0, kept);
        let newline = -1;
        let got = 0;
        while (offset < size) {
          got = readSync(fd, buffer, 0, Math.min(buffer.length, size - offset), offset);
          if (got === 0) break;
          offset += got;
          newline = buffer.subarray(0, got).indexOf(0x0a);
          cutter.feed(buffer, 0, newline < 0 ? got : newline);
          if (newline >= 0) break;
        }
        kept = newline < 0 ? 0 : got - newline - 1;
        yield { bytes: Buffer.alloc(0), lines: newline < 0 ? 0 : 1, end: offset - kept, long: cutter.finish() };
        if (newline < 0) return;
        buffer.copyWithin(0, newline + 1, got);
        if (offset >= size && kept > 0) {
          // The file ends within what was read past the long line: that is the last piece.
          let lines = 0;
          for (let i = buffer.indexOf(0x0a); i >= 0 && i < kept; i = buffer.indexOf(0x0a, i + 1)) lines += 1;
          yield { bytes: buffer.subarray(0, kept), lines, end: offset };
          return;
        }
        continue;
      }
      if (kept === buffer.length) {
        const bigger = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(bigger, 0, 0, kept);
        buffer = bigger;
      }
      const got = readSync(fd, buffer, kept, Math.min(buffer.length - kept, size - offset), offset);
      if (got === 0) break;
      offset += got;
      const filled = buffer.subarray(0, kept + got);
      const lastNewline = filled.lastIndexOf(0x0a);
      const until = offset >= size ? filled.length : lastNewline + 1;
      if (lastNewline < 0 && offset < size) {
        kept = filled.length;
        continue;
      }
      let lines = 0;
      for (let i = filled.indexOf(0x0a); i >= 0 && i < until; i = filled.indexOf(0x0a, i + 1)) lines += 1;
      yield { bytes: filled.subarray(0, until), lines, end: offset - (filled.length - until) };
      buffer.copyWithin(0, until, filled.length);
      kept = filled.length - until;
    }
  } finally {
    closeSync(fd);
  }
}
