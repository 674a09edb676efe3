/**
 * Paging a trace file by record, for the trace browser and time travel: "records 50,000 to
 * 50,500 of this file, and how many it has". Decoding the whole file for every page made time
 * travel over a 100k-line (50 MB) session quadratic (twenty pages of 5000, each a full decode),
 * and held the server's event loop for every user on each page.
 *
 * A `TraceRecordIndexes` keeps, per file, where each record's line lies (its line number and
 * its bytes). The index is built by one scan, in slices with a turn of the event loop between
 * them, then only extended by what was appended since: a trace is append-only, so its complete
 * lines never change. It is trusted only while the file is the one indexed (the same inode, at
 * least as long, the same bytes just before the indexed length); otherwise it is rebuilt. A
 * page reads and decodes only its own lines, through the reader's own line decoder, so it holds
 * exactly the records a whole read (`readTraceFile`) gives, numbered alike. The unterminated
 * last line, if any, is decoded on each call: it may still grow into something else.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { OmniMessage } from "@penguin/omnimessage";
import { LineCutter, type CutText, type LineCutOptions } from "./cut-line.js";
import { readRange } from "./file-range.js";
import { TraceContentBuilder } from "./reader.js";

/** One page of a file's records and the file's count of them. */
export interface RecordPage {
  records: { line: number; message: OmniMessage }[];
  /** Records in the file, its unterminated last line counted when that decodes as one. */
  total: number;
}

export interface RecordIndexOptions {
  /** Files whose index is kept (least recently paged dropped first); default 8. */
  maxFiles?: number;
  /** Bytes decoded between two turns of the event loop while an index is built; default 2 MiB. */
  sliceBytes?: number;
  /**
   * Cut long texts of the records paged (and of the lines indexed) before decoding them
   * (cut-line.ts): a page shows a 30 MB tool output as its head and a `cut` marker, and neither
   * indexing nor paging holds the event loop for the whole line. Default: records are whole.
   */
  cut?: LineCutOptions;
}

const NEWLINE = 0x0a;
const NUL = 0x00;
/** Bytes before the indexed length that must be unchanged for the index to be trusted. */
const KEY_BYTES = 4096;

/** Where the records of one file's complete lines are. */
class FileIndex {
  /** Bytes through the last newline indexed. */
  bytes = 0;
  /** Lines in those bytes. */
  lines = 0;
  /** The last `KEY_BYTES` (or fewer) of those bytes. */
  key: Buffer = Buffer.alloc(0);
  count = 0;
  /** The long lines indexed, cut (with a cutting index only), by their line number. */
  readonly cuts = new Map<number, CutText>();
  line = new Int32Array(1024);
  start = new Float64Array(1024);
  end = new Float64Array(1024);

  constructor(
    readonly dev: number,
    readonly ino: number,
  ) {}

  add(line: number, start: number, end: number): void {
    if (this.count === this.line.length) {
      const grown = this.count * 2;
      this.line = copyInto(new Int32Array(grown), this.line);
      this.start = copyInto(new Float64Array(grown), this.start);
      this.end = copyInto(new Float64Array(grown), this.end);
    }
    this.line[this.count] = line;
    this.start[this.count] = start;
    this.end[this.count] = end;
    this.count++;
  }

  /** The slot of the record on `line` (lines ascend), or -1. */
  find(line: number): number {
    let lo = 0;
    let hi = this.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const at = this.line[mid]!;
      if (at === line) return mid;
      if (at < line) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** Whether `fd` (of size `size`) is still the file indexed, grown or not. */
  describes(fd: number, dev: number, ino: number, size: number): boolean {
    if (dev !== this.dev || ino !== this.ino || size < this.bytes) return false;
    return readRange(fd, this.bytes - this.key.length, this.key.length).equals(this.key);
  }
}

function copyInto<T extends Int32Array | Float64Array>(to: T, from: T): T {
  to.set(from);
  return to;
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class TraceRecordIndexes {
  readonly #indexes = new Map<string, FileIndex>();
  /** Per file, the call in progress: calls on one file run one after the other. */
  readonly #queues = new Map<string, Promise<unknown>>();
  readonly #maxFiles: number;
  readonly #sliceBytes: number;
  readonly #cut: LineCutOptions | undefined;

  constructor(options: RecordIndexOptions = {}) {
    this.#maxFiles = Math.max(1, options.maxFiles ?? 8);
    this.#sliceBytes = Math.max(1, options.sliceBytes ?? 2 * 1024 * 1024);
    this.#cut = options.cut;
  }

  /**
   * Where the record on line `line` of `file` lies (its bytes, without the newline), indexing
   * the file first as `page` does; undefined when that line holds no record (a skipped line,
   * past the end, the unterminated last line). For serving one record whole, as its bytes.
   */
  recordBytes(file: string, line: number): Promise<{ start: number; end: number } | undefined> {
    return this.#withIndex(file, (index) => {
      const at = index.find(line);
      return at < 0 ? undefined : { start: index.start[at]!, end: index.end[at]! };
    });
  }

  /** Indexes `file` (a slice per turn, long lines cut as they are read) so `readerCut().known` can answer for its long lines. */
  prepare(file: string): Promise<void> {
    return this.#withIndex(file, () => undefined);
  }


  /**
   * What the index knows of `file` after `prepare` (or a page): its records on complete lines,
   * and its complete lines; undefined when it has not indexed the file.
   */
  indexed(file: string): { records: number; lines: number } | undefined {
    const index = this.#indexes.get(file);
    return index === undefined ? undefined : { records: index.count, lines: index.lines };
  }

  /** Whether line `line` of an indexed `file` holds a record (undefined when the file is not indexed). */
  holdsRecord(file: string, line: number): boolean | undefined {
    const index = this.#indexes.get(file);
    return index === undefined ? undefined : index.find(line) >= 0;
  }

  /**
   * The cut options of this index with `known` answering from what it has indexed: for the
   * synchronous readers (history, time travel) after `prepare`. Undefined without a cut.
   */
  readerCut(): LineCutOptions | undefined {
    const cut = this.#cut;
    if (cut === undefined) return undefined;
    return { ...cut, known: (file, start) => this.#known(file, start) };
  }

  #known(file: string, start: number): CutText | undefined {
    const index = this.#indexes.get(file);
    if (index === undefined) return undefined;
    let lo = 0;
    let hi = index.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const at = index.start[mid]!;
      if (at === start) return index.cuts.get(index.line[mid]!);
      if (at < start) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  #queued<T>(file: string, run: () => Promise<T>): Promise<T> {
    const before = this.#queues.get(file) ?? Promise.resolve();
    const call = before.then(run, run);
    this.#queues.set(file, call);
    const forget = (): void => {
      if (this.#queues.get(file) === call) this.#queues.delete(file);
    };
    call.then(forget, forget);
    return call;
  }

  #keep(file: string, index: FileIndex): void {
    this.#indexes.set(file, index);
    while (this.#indexes.size > this.#maxFiles) this.#indexes.delete(this.#indexes.keys().next().value!);
  }

  /** Records `offset` to `offset + limit` (exclusive) of `file`, and how many it has. Throws as opening the file does. */
  page(file: string, offset: number, limit: number): Promise<RecordPage> {
    return this.#queued(file, () => this.#page(file, offset, limit));
  }

  /** Files with an index kept (for tests and the bench). */
  indexedFiles(): string[] {
    return [...this.#indexes.keys()];
  }

  async #page(file: string, offset: number, limit: number): Promise<RecordPage> {
    const fd = openSync(file, "r");
    try {
      const current = await this.#current(file, fd);
      const { dev, ino, size } = current;
      let index = current.index;
      let records = pageOf(fd, index, offset, limit, this.#cut);
      if (records === undefined) {
        // A complete line no longer decodes as it did: the file was changed in place. Index it anew.
        index = new FileIndex(dev, ino);
        await this.#extend(index, fd, size);
        records = pageOf(fd, index, offset, limit, this.#cut);
        if (records === undefined) throw new Error(`the trace file ${file} changed while it was read; try again`);
      }
      this.#keep(file, index);
      return finishPage(records, index.count, lastLineRecord(fd, index, size, this.#cut), offset, limit);
    } finally {
      closeSync(fd);
    }
  }

  /** Opens `file`, brings its index up to the file's end, keeps it, and answers `use(index)` (queued per file). */
  #withIndex<T>(file: string, use: (index: FileIndex) => T): Promise<T> {
    return this.#queued(file, async () => {
      const fd = openSync(file, "r");
      try {
        const { index } = await this.#current(file, fd);
        this.#keep(file, index);
        return use(index);
      } finally {
        closeSync(fd);
      }
    });
  }

  /** The kept index of `file` while it still describes the open `fd` (else a new one), extended to the file's end. */
  async #current(file: string, fd: number): Promise<{ index: FileIndex; dev: number; ino: number; size: number }> {
    const { dev, ino, size } = fstatSync(fd);
    const kept = this.#indexes.get(file);
    this.#indexes.delete(file);
    const index = kept !== undefined && kept.describes(fd, dev, ino, size) ? kept : new FileIndex(dev, ino);
    await this.#extend(index, fd, size);
    return { index, dev, ino, size };
  }

  /** Indexes the complete lines of `fd` from where `index` ends up to `size`, a slice per turn of the event loop. */
  async #extend(index: FileIndex, fd: number, size: number): Promise<void> {
    while (index.bytes < size) {
      let bytes = readRange(fd, index.bytes, Math.min(this.#sliceBytes, size - index.bytes));
      let lastNewline = bytes.lastIndexOf(NEWLINE);
      if (lastNewline < 0) {
        // The rest is the unterminated last line, or a line longer than a slice: find its end a
        // slice per turn, then read it whole once (reading ever larger windows from its start
        // would read a 30 MB line several times over in one turn).
        if (this.#cut !== undefined) {
          // Cut as it is read, a slice per turn: the line is never held, nor decoded, whole.
          const cutter = new LineCutter(this.#cut);
          const end = await this.#lineEnd(fd, index.bytes, size, cutter);
          if (end < 0) break;
          const decoder = new TraceContentBuilder();
          const cut = cutter.finish();
          decoder.lineCut(cut, index.lines + 1, false);
          if (decoder.messages.length > 0) {
            index.add(index.lines + 1, index.bytes, end);
            index.cuts.set(index.lines + 1, cut);
          }
          index.lines += 1;
          index.bytes = end + 1;
          if (index.bytes < size) await nextTurn();
          continue;
        }
        const end = await this.#lineEnd(fd, index.bytes + bytes.length, size);
        if (end < 0) break;
        bytes = readRange(fd, index.bytes, end + 1 - index.bytes);
        lastNewline = bytes.length - 1;
      }
      const mayHoldNul = bytes.indexOf(NUL) >= 0;
      const decoder = new TraceContentBuilder(this.#cut);
      let lineNumber = index.lines + 1;
      let start = 0;
      for (let end = bytes.indexOf(NEWLINE); end >= 0 && end <= lastNewline; end = bytes.indexOf(NEWLINE, start)) {
        const before = decoder.messages.length;
        decoder.lineBytes(bytes, start, end, lineNumber, false, mayHoldNul);
        if (decoder.messages.length > before) index.add(lineNumber, index.bytes + start, index.bytes + end);
        lineNumber++;
        start = end + 1;
      }
      index.lines = lineNumber - 1;
      index.bytes += lastNewline + 1;
      if (index.bytes < size) await nextTurn();
    }
    const keyLength = Math.min(KEY_BYTES, index.bytes);
    index.key = readRange(fd, index.bytes - keyLength, keyLength);
  }

  /** The offset of the first newline at or after `from` (before `size`), a slice read per turn, the bytes before it fed to `cutter`; -1 when there is none. */
  async #lineEnd(fd: number, from: number, size: number, cutter?: LineCutter): Promise<number> {
    // One buffer for every slice: a fresh one per slice would be 30 buffers for a 30 MB line, and
    // the garbage collection they call for lands on a later turn.
    const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(this.#sliceBytes, size - from)));
    for (let at = from; at < size; ) {
      const got = readSync(fd, buffer, 0, Math.min(buffer.length, size - at), at);
      const bytes = buffer.subarray(0, got);
      const newline = bytes.indexOf(NEWLINE);
      cutter?.feed(bytes, 0, newline < 0 ? bytes.length : newline);
      if (newline >= 0) return at + newline;
      at += bytes.length;
      if (bytes.length === 0) break;
      await nextTurn();
    }
    return -1;
  }
}

/** The record the unterminated last line (from `index.bytes` to `size`) decodes as, if any. */
function lastLineRecord(fd: number, index: FileIndex, size: number, cut: LineCutOptions | undefined): { line: number; message: OmniMessage } | undefined {
  if (size <= index.bytes) return undefined;
  const decoder = new TraceContentBuilder(cut);
  if (cut !== undefined && size - index.bytes > cut.overBytes) {
    decoder.lineCut(cutRange(fd, index.bytes, size, cut), index.lines + 1, true);
  } else {
    const bytes = readRange(fd, index.bytes, size - index.bytes);
    decoder.lineBytes(bytes, 0, bytes.length, index.lines + 1, true, bytes.indexOf(NUL) >= 0);
  }
  const message = decoder.messages[0];
  return message === undefined ? undefined : { line: index.lines + 1, message };
}

/** The indexed records `offset` to `offset + limit`, decoded from one read of their bytes; undefined if one no longer decodes. */
function pageOf(fd: number, index: FileIndex, offset: number, limit: number, cut: LineCutOptions | undefined): { line: number; message: OmniMessage }[] | undefined {
  const first = Math.max(0, offset);
  const last = Math.min(index.count, first + Math.max(0, limit)) - 1;
  if (last < first) return [];
  const decoder = new TraceContentBuilder(cut);
  const long = (i: number): boolean => cut !== undefined && index.end[i]! - index.start[i]! > cut.overBytes;
  for (let i = first; i <= last; ) {
    if (long(i)) {
      // A long record was cut when it was indexed; else it is cut as it is read, through a small buffer.
      decoder.lineCut(index.cuts.get(index.line[i]!) ?? cutRange(fd, index.start[i]!, index.end[i]!, cut!), index.line[i]!, false);
      i++;
      continue;
    }
    // The run of records up to the next long one: one read.
    let j = i;
    while (j + 1 <= last && !long(j + 1)) j++;
    const base = index.start[i]!;
    const bytes = readRange(fd, base, index.end[j]! - base);
    const mayHoldNul = bytes.indexOf(NUL) >= 0;
    for (let k = i; k <= j; k++) decoder.lineBytes(bytes, index.start[k]! - base, index.end[k]! - base, index.line[k]!, false, mayHoldNul);
    i = j + 1;
  }
  if (decoder.messages.length !== last - first + 1 || decoder.lines.some((line, i) => line !== index.line[first + i])) return undefined;
  return decoder.messages.map((message, i) => ({ line: decoder.lines[i]!, message }));
}

/** Bytes read at a time while a long record is cut. */
const CUT_READ = 1024 * 1024;

/** The line `[start, end)` of `fd` cut as it is read, a chunk at a time. */
function cutRange(fd: number, start: number, end: number, cut: LineCutOptions): CutText {
  const cutter = new LineCutter(cut);
  const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(CUT_READ, end - start)));
  for (let at = start; at < end; ) {
    const got = readSync(fd, buffer, 0, Math.min(buffer.length, end - at), at);
    if (got === 0) break;
    cutter.feed(buffer, 0, got);
    at += got;
  }
  return cutter.finish();
}

function finishPage(records: { line: number; message: OmniMessage }[], indexed: number, tail: { line: number; message: OmniMessage } | undefined, offset: number, limit: number): RecordPage {
  const total = indexed + (tail === undefined ? 0 : 1);
  if (tail !== undefined && offset <= indexed && indexed < offset + limit) records.push(tail);
  return { records, total };
}
