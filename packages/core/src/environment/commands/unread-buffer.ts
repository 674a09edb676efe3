/**
 * The output of a command that the model has not read yet, capped in bytes.
 *
 * A chatty background process must not grow memory without bound while nobody polls it, so
 * past the cap the oldest output is dropped, and the next read starts with a marker saying
 * how much was lost. A separate rolling tail keeps the last characters ever written, read or
 * not, for the `[background_task_done]` notice.
 */

export class UnreadBuffer {
  #chunks: string[] = [];
  #bytes = 0;
  #dropped = 0;
  #tail = "";

  constructor(
    readonly capBytes: number,
    readonly tailChars: number,
  ) {}

  push(text: string): void {
    if (text === "") return;
    this.#tail = (this.#tail + text).slice(-this.tailChars);
    this.#chunks.push(text);
    this.#bytes += Buffer.byteLength(text, "utf8");
    while (this.#bytes > this.capBytes && this.#chunks.length > 0) {
      const oldest = this.#chunks[0] ?? "";
      const size = Buffer.byteLength(oldest, "utf8");
      const excess = this.#bytes - this.capBytes;
      if (size <= excess) {
        this.#chunks.shift();
        this.#bytes -= size;
        this.#dropped += size;
        continue;
      }
      const kept = Buffer.from(oldest, "utf8").subarray(excess).toString("utf8").replace(/^\uFFFD+/, "");
      const keptBytes = Buffer.byteLength(kept, "utf8");
      this.#chunks[0] = kept;
      this.#dropped += size - keptBytes;
      this.#bytes -= size - keptBytes;
    }
  }

  get pendingBytes(): number {
    return this.#bytes;
  }

  /** Everything unread, oldest first, with a drop marker when output was lost; then empty. */
  drain(): string {
    const marker = this.#dropped > 0 ? `[… ${this.#dropped} bytes of earlier output dropped (unread buffer full) …]\n` : "";
    const text = marker + this.#chunks.join("");
    this.#chunks = [];
    this.#bytes = 0;
    this.#dropped = 0;
    return text;
  }

  /** The last `tailChars` characters ever written. */
  tail(): string {
    return this.#tail;
  }
}
