/**
 * Finds whether a blob holds any of a session's secrets (its vault values and their encoded
 * forms, as the caller lists them), so the pack store can seal that blob instead of storing
 * it as it is. It runs over every byte of a workspace's first checkpoint (~200 MB), so it is
 * one pass for all the long needles: a Wu–Manber filter on byte pairs (the window moves by up
 * to the shortest long needle's length − 1 at each step), checked against the needles whose
 * prefix ends in the pair it stopped on. Needles shorter than `SHORT` bytes (a 4-char value)
 * would make that step tiny; each is looked for on its own with Buffer.indexOf instead.
 */

const SHORT = 8;

export class SecretFinder {
  readonly #short: Buffer[];
  readonly #long: Buffer[];
  /** The shortest long needle's length: the window the filter looks at. */
  readonly #window: number;
  /** How far the window may move when its last two bytes are this pair (index: first << 8 | second). */
  readonly #shift: Uint8Array | Uint16Array;
  /** The long needles whose window-long prefix ends with the pair. */
  readonly #endingWith = new Map<number, Buffer[]>();

  constructor(needles: readonly string[]) {
    const unique = [...new Set(needles.filter((n) => n.length > 0))].map((n) => Buffer.from(n, "utf8"));
    this.#short = unique.filter((n) => n.length < SHORT);
    this.#long = unique.filter((n) => n.length >= SHORT);
    this.#window = this.#long.length === 0 ? 0 : Math.min(...this.#long.map((n) => n.length));
    const m = this.#window;
    this.#shift = (m > 255 ? new Uint16Array(65536) : new Uint8Array(65536)).fill(Math.max(0, m - 1));
    for (const needle of this.#long) {
      for (let j = 0; j + 1 < m; j++) {
        const pair = (needle[j]! << 8) | needle[j + 1]!;
        const shift = m - 2 - j;
        if (shift < this.#shift[pair]!) this.#shift[pair] = shift;
      }
      const last = (needle[m - 2]! << 8) | needle[m - 1]!;
      const list = this.#endingWith.get(last);
      if (list === undefined) this.#endingWith.set(last, [needle]);
      else list.push(needle);
    }
  }

  /** True when there is nothing to look for. */
  get empty(): boolean {
    return this.#short.length === 0 && this.#long.length === 0;
  }

  /** Whether `bytes` holds any needle anywhere. */
  finds(bytes: Uint8Array): boolean {
    const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (const needle of this.#short) if (buffer.indexOf(needle) !== -1) return true;
    return this.#long.length > 0 && this.#findsLong(buffer);
  }

  #findsLong(buffer: Buffer): boolean {
    const m = this.#window;
    const shifts = this.#shift;
    const length = buffer.length;
    let end = m - 1;
    while (end < length) {
      const pair = (buffer[end - 1]! << 8) | buffer[end]!;
      const shift = shifts[pair]!;
      if (shift !== 0) {
        end += shift;
        continue;
      }
      const start = end - m + 1;
      for (const needle of this.#endingWith.get(pair) ?? []) {
        if (start + needle.length <= length && buffer.compare(needle, 0, needle.length, start, start + needle.length) === 0) return true;
      }
      end += 1;
    }
    return false;
  }
}
