/**
 * Reading another node's trace by byte position (SessionChannel.follow, runtime/followed-streams.ts).
 * A node that follows a session another node runs reads that session's new lines each time a
 * notice arrives. Reading the file again from its start each time cost O(file) per record on
 * every following node; this keeps where it stopped (file index, bytes read, whole lines before
 * the unconsumed bytes) and reads only the bytes appended since, so each byte of a followed
 * trace is read once.
 *
 * Bytes read but not consumed are kept (`carry`): lines past the position a notice announced
 * wait there for the notice that covers them, unread again. A torn last line (its newline not
 * written yet) is the one exception: its bytes are read again with its rest, since the writer
 * may cut a half-written record back (a full disk) and write another in its place; writes are
 * whole lines, so a follower sees a torn line only when it reads during a write. A file that
 * shrank below the whole lines read (a file replaced) is read again from its start: the
 * channel passes over positions it has sent. Rotation (compaction) starts the next file index: a file is
 * finished when a higher one exists, and its unterminated last line (a crash mid-write) is then
 * read as the reader's line rules read it.
 *
 * All reads go through a `FollowReader`, the production one reads the file system; tests pass
 * a counting one to show each byte is read once.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { parseTraceBytes, type TracePosition } from "@penguin/core";
import type { OmniMessage } from "@penguin/omnimessage";
import type { TraceFileRef } from "./session-channel.js";

/** How the follower reads a trace file: its size now, and the bytes past `from` (none when it is not longer). */
export interface FollowReader {
  /** Undefined when the file cannot be opened (a session deleted meanwhile). */
  readFrom(file: string, from: number): { size: number; bytes: Buffer } | undefined;
}

/** The file system: one open, one fstat and the reads of the new bytes per call. */
export const fileFollowReader: FollowReader = {
  readFrom(file, from) {
    let fd: number;
    try {
      fd = openSync(file, "r");
    } catch {
      return undefined;
    }
    try {
      const size = fstatSync(fd).size;
      if (size <= from) return { size, bytes: Buffer.alloc(0) };
      const buffer = Buffer.allocUnsafe(size - from);
      let got = 0;
      while (got < buffer.length) {
        const n = readSync(fd, buffer, got, buffer.length - got, from + got);
        if (n === 0) break;
        got += n;
      }
      return { size: from + got, bytes: got === buffer.length ? buffer : buffer.subarray(0, got) };
    } catch {
      return undefined;
    } finally {
      closeSync(fd);
    }
  },
};

export interface FollowedRecord {
  position: TracePosition;
  message: OmniMessage;
}

const NEWLINE = 0x0a;

export class TraceFollower {
  readonly #files: () => TraceFileRef[];
  readonly #reader: FollowReader;
  /** The file index being read (0: none yet), and its path. */
  #index = 0;
  #file = "";
  /** Bytes of that file read so far. */
  #offset = 0;
  /** Whole lines of that file consumed (their bytes are before the carry). */
  #lines = 0;
  /** Bytes read and not consumed: a torn line, or lines past the last announced position. */
  #carry: Buffer = Buffer.alloc(0);

  constructor(files: () => TraceFileRef[], reader: FollowReader = fileFollowReader) {
    this.#files = files;
    this.#reader = reader;
  }

  /**
   * The records after `after` (the channel's last sent) through `upTo` (the end when undefined).
   * Lines at or before `after` are passed over without decoding; a file wholly before it is not read.
   */
  read(after: TracePosition, upTo: TracePosition | undefined): FollowedRecord[] {
    const out: FollowedRecord[] = [];
    // A notice within the file being read (the usual case) needs no listing of the traces
    // folder, which holds every session's files: only a later file (rotation) or a read to the end does.
    const files = upTo !== undefined && upTo.file === this.#index && after.file <= this.#index ? [{ index: this.#index, file: this.#file }] : this.#files();
    for (let i = 0; i < files.length; i++) {
      const f = files[i]!;
      if (f.index < Math.max(this.#index, after.file)) continue;
      if (upTo !== undefined && f.index > upTo.file) break;
      if (f.index !== this.#index) this.#startFile(f.index);
      this.#file = f.file;
      if (!this.#readNew(f.file)) continue;
      const limit = upTo !== undefined && upTo.file === f.index ? upTo.line : Number.POSITIVE_INFINITY;
      const skipThrough = after.file === f.index ? after.line : 0;
      this.#consume(f.index, limit, skipThrough, out);
      // A later file exists: this one is finished, and an unterminated last line is its last record.
      if (files[i + 1] !== undefined && limit === Number.POSITIVE_INFINITY && this.#carry.length > 0) this.#consumeTornTail(f.index, skipThrough, out);
    }
    return out;
  }

  #startFile(index: number): void {
    this.#index = index;
    this.#offset = 0;
    this.#lines = 0;
    this.#carry = Buffer.alloc(0);
  }

  /**
   * Reads the bytes appended since the last read into the carry; false when the file cannot be
   * read. An unterminated fragment at the carry's end is read again with its rest: the writer
   * may have cut it back (a half-written record undone) and written another record in its
   * place, which the file's size alone does not show.
   */
  #readNew(file: string): boolean {
    const fragment = this.#carry.length - (this.#carry.lastIndexOf(NEWLINE) + 1);
    const from = this.#offset - fragment;
    const read = this.#reader.readFrom(file, from);
    if (read === undefined) return false;
    if (read.size < from) {
      // Cut below whole lines already read (a file replaced): read it again; the channel skips what it sent.
      this.#startFile(this.#index);
      return this.#readNew(file);
    }
    if (fragment === 0 && read.bytes.length === 0) return true;
    const whole = this.#carry.subarray(0, this.#carry.length - fragment);
    this.#carry = whole.length === 0 ? read.bytes : Buffer.concat([whole, read.bytes]);
    this.#offset = from + read.bytes.length;
    return true;
  }

  /** Consumes the carry's whole lines numbered through `limit`, decoding those past `skipThrough`. */
  #consume(index: number, limit: number, skipThrough: number, out: FollowedRecord[]): void {
    const carry = this.#carry;
    let end = 0;
    let decodeFrom = 0;
    let lines = this.#lines;
    let firstDecoded = this.#lines;
    while (lines < limit) {
      const nl = carry.indexOf(NEWLINE, end);
      if (nl < 0) break;
      end = nl + 1;
      lines += 1;
      if (lines <= skipThrough) {
        decodeFrom = end;
        firstDecoded = lines;
      }
    }
    if (end === 0) return;
    if (decodeFrom < end) {
      const content = parseTraceBytes(carry.subarray(decodeFrom, end));
      content.messages.forEach((message, k) => out.push({ position: { file: index, line: firstDecoded + content.lines[k]! }, message }));
    }
    this.#lines = lines;
    this.#carry = end === carry.length ? Buffer.alloc(0) : Buffer.from(carry.subarray(end));
  }

  /** A finished file's unterminated last line: decoded once, as the reader's line rules decode it. */
  #consumeTornTail(index: number, skipThrough: number, out: FollowedRecord[]): void {
    const line = this.#lines + 1;
    if (line > skipThrough) {
      const content = parseTraceBytes(this.#carry);
      content.messages.forEach((message) => out.push({ position: { file: index, line }, message }));
    }
    this.#lines = line;
    this.#carry = Buffer.alloc(0);
  }
}
