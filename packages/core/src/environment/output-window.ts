/**
 * Head-kept truncation of a tool's output, applied online while the output streams.
 *
 * `push(chunk)` returns the part of the chunk that still fits in the window (that part is
 * streamed to the model as a delta); everything is also kept, up to `archiveBytes`, for the
 * archive file. The cut never splits a UTF-16 surrogate pair, and the archive never ends in
 * the middle of a UTF-8 sequence.
 */

export class OutputWindow {
  #head = "";
  #total = 0;
  #archive: Buffer[] = [];
  #archiveBytes = 0;
  #archiveFull = false;

  constructor(
    readonly limitChars: number,
    readonly archiveLimitBytes: number,
  ) {}

  /** Adds output; returns the visible part of it (possibly empty). */
  push(chunk: string): string {
    if (chunk === "") return "";
    this.#total += chunk.length;
    this.#keep(chunk);
    const room = this.limitChars - this.#head.length;
    if (room <= 0) return "";
    let visible = chunk.length <= room ? chunk : chunk.slice(0, room);
    if (visible.length < chunk.length && isHighSurrogate(visible.charCodeAt(visible.length - 1))) {
      visible = visible.slice(0, -1);
    }
    this.#head += visible;
    return visible;
  }

  /** The visible output so far. */
  get head(): string {
    return this.#head;
  }

  /** Characters produced in total, visible or not. */
  get totalChars(): number {
    return this.#total;
  }

  get truncated(): boolean {
    return this.#total > this.#head.length;
  }

  /** The full output as bytes, capped at `archiveLimitBytes`; `complete` is false when capped. */
  archive(): { bytes: Buffer; complete: boolean } {
    return { bytes: Buffer.concat(this.#archive), complete: !this.#archiveFull };
  }

  #keep(chunk: string): void {
    if (this.#archiveFull) return;
    const bytes = Buffer.from(chunk, "utf8");
    const room = this.archiveLimitBytes - this.#archiveBytes;
    if (bytes.length <= room) {
      this.#archive.push(bytes);
      this.#archiveBytes += bytes.length;
      return;
    }
    let cut = Math.max(0, room);
    while (cut > 0 && isContinuationByte(bytes[cut])) cut -= 1;
    this.#archive.push(bytes.subarray(0, cut));
    this.#archiveBytes += cut;
    this.#archiveFull = true;
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isContinuationByte(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}
