/**
 * The one place the projections read trace bytes. Everything else in projections/ sees
 * positioned envelopes only. It uses the tolerant reader of `@penguin/trace` (`parseTraceText`,
 * the one `@penguin/core` re-exports), which is how each envelope keeps its line number.
 *
 * Reading is by byte offset, for tailing: only complete lines (ending in `\n`) are consumed.
 * What follows the last newline is a tail still being written, or the torn end of a crashed
 * write; it is left for the next read and reported as `tornTail`. Once the writer resumes it
 * starts on a fresh line, so a torn fragment later becomes a complete malformed line and is
 * counted as skipped then. Lines that hold no envelope (invalid JSON, not an envelope, NUL
 * padding) are counted, never fatal. Empty lines are neither events nor skips.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { parseTraceText } from "@penguin/trace";
import type { OmniMessage } from "@penguin/omnimessage";

export interface PositionedLine {
  /** 1-based line number in the file. */
  line: number;
  /** Byte offset where the line starts. */
  startByte: number;
  /** Byte offset right after the line's newline: where the next line starts. */
  endByte: number;
  message: OmniMessage;
}

export interface TraceChunk {
  lines: PositionedLine[];
  /** Absolute byte offset after the last complete line read. */
  bytes: number;
  /** Absolute offset of the end of what was looked at (the file size at read time, when `atEnd`). */
  seen: number;
  /** Absolute count of complete lines read. */
  lineCount: number;
  /** Complete lines in this chunk that held no envelope. */
  skipped: number;
  /** Bytes after the last complete line that are not just whitespace: a torn or unfinished line. */
  tornTail: boolean;
  /** False when the file was shorter than `fromByte` (it shrank: not an append-only file any more). */
  intact: boolean;
  /** True when the chunk reached the end of the file as it was at read time. */
  atEnd: boolean;
}

const NEWLINE = 0x0a;

/**
 * The bytes of the last read, reused by the next one: a rebuild reads its traces 8 MiB at a
 * time, and a fresh buffer each time is memory outside the heap that the GC accounts for and
 * the kernel zeroes. Safe because a chunk keeps nothing of it (the lines are decoded into
 * strings before `readTraceChunk` returns, and it never yields in between).
 */
let scratch = Buffer.allocUnsafe(0);

/** Kept for reuse up to this size; a read for one longer line gets a buffer of its own. */
const SCRATCH_MAX = 16 << 20;

function scratchOf(size: number): Buffer {
  if (size > SCRATCH_MAX) return Buffer.allocUnsafe(size);
  if (scratch.length < size) scratch = Buffer.allocUnsafe(size);
  return scratch.subarray(0, size);
}

/** Reads the complete lines of `file` after byte `fromByte` (line `fromLine`), at most about `maxBytes`. */
export function readTraceChunk(file: string, fromByte: number, fromLine: number, maxBytes = 8 << 20): TraceChunk {
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    if (size < fromByte) return { lines: [], bytes: fromByte, seen: size, lineCount: fromLine, skipped: 0, tornTail: false, intact: false, atEnd: true };
    let want = Math.min(maxBytes, size - fromByte);
    let buf: Buffer = Buffer.alloc(0);
    let lastNewline = -1;
    // Grow the window until it holds at least one complete line or reaches the end of the file.
    for (;;) {
      buf = scratchOf(want);
      const got = readFully(fd, buf, fromByte);
      buf = buf.subarray(0, got);
      lastNewline = buf.lastIndexOf(NEWLINE);
      if (lastNewline >= 0 || fromByte + got >= size) break;
      want = Math.min(want * 2, size - fromByte);
    }
    const complete = lastNewline + 1;
    const atEnd = fromByte + buf.length >= size;
    const tail = buf.subarray(complete);
    const tornTail = atEnd && hasContent(tail);
    // Where each complete line ends (the offset after its newline), for the events' end offsets.
    const ends: number[] = [];
    for (let i = buf.indexOf(NEWLINE); i >= 0 && i < complete; i = buf.indexOf(NEWLINE, i + 1)) ends.push(i + 1);
    const lineNo = fromLine + ends.length;
    const lines: PositionedLine[] = [];
    let skipped = 0;
    if (buf.subarray(0, complete).indexOf(0) < 0) {
      // The usual case: the reader parses the whole window at once; its line numbers are the window's.
      const parsed = parseTraceText(buf.toString("utf8", 0, complete));
      for (let i = 0; i < parsed.messages.length; i++) {
        const rel = parsed.lines[i]!;
        lines.push({ line: fromLine + rel, startByte: rel === 1 ? fromByte : fromByte + ends[rel - 2]!, endByte: fromByte + ends[rel - 1]!, message: parsed.messages[i]! });
      }
      skipped = parsed.skipped.length;
    } else {
      // NUL padding somewhere: line by line, so a line of padding alone counts as skipped too.
      let start = 0;
      for (let i = 0; i < ends.length; i++) {
        const end = ends[i]! - 1;
        if (end > start) {
          const raw = buf.toString("utf8", start, end);
          const parsed = parseTraceText(`${raw}\n`);
          const message = parsed.messages[0];
          if (message !== undefined) lines.push({ line: fromLine + i + 1, startByte: fromByte + start, endByte: fromByte + end + 1, message });
          else if (parsed.skipped.length > 0 || raw.includes("\0")) skipped += 1;
        }
        start = end + 1;
      }
    }
    return { lines, bytes: fromByte + complete, seen: fromByte + buf.length, lineCount: lineNo, skipped, tornTail, intact: true, atEnd };
  } finally {
    closeSync(fd);
  }
}

function readFully(fd: number, buf: Buffer, position: number): number {
  let off = 0;
  while (off < buf.length) {
    const n = readSync(fd, buf, off, buf.length - off, position + off);
    if (n === 0) break;
    off += n;
  }
  return off;
}

/** Anything but spaces, tabs and carriage returns counts (NUL padding included). */
function hasContent(b: Buffer): boolean {
  for (const byte of b) if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return true;
  return false;
}
