/**
 * Vault redaction of tool output: every exact occurrence of a vault value becomes
 * `[vault:KEY]` before the output is streamed, archived, traced or shown to the model.
 *
 * Commands receive vault values in their environment, so `echo $TOKEN` would otherwise copy
 * a secret into the trace, the archive and every screen. The redactor works on a stream: it
 * holds back the last (longest value − 1) characters of what it has seen, since they could
 * be the start of a value split across two chunks, and releases them on the next chunk or at
 * the end. Values shorter than 4 characters are not redacted (they would mangle ordinary
 * text and protect nothing).
 *
 * A value of 8 characters or more is also redacted in its common encodings (reversed, hex,
 * URL-encoded, base64 of every flavour and alignment: secret-encodings.ts), as `[vault:KEY]`
 * too. Candidates are looked up by their first character, so many forms cost no more per
 * position than a few.
 */
import { encodedForms } from "./secret-encodings.js";
import type { ToolResult } from "./tool.js";

export const MIN_REDACTED_LENGTH = 4;

/**
 * Every string the redactor hides for `vault`: each value long enough to redact and its
 * encoded forms. The workspace checkpoints seal a blob holding any of them (never stored in plain text).
 */
export function vaultSecretForms(vault: Record<string, string>): string[] {
  return Object.values(vault)
    .filter((v) => v.length >= MIN_REDACTED_LENGTH)
    .flatMap((v) => [v, ...encodedForms(v)]);
}

export class SecretRedactor {
  readonly #secrets: [value: string, key: string][];
  /** The secrets (values and their encoded forms) by first character, longest first. */
  readonly #byFirst = new Map<string, [value: string, key: string][]>();
  readonly #hold: number;
  #pending = "";

  constructor(vault: Record<string, string>) {
    this.#secrets = Object.entries(vault)
      .filter(([, v]) => v.length >= MIN_REDACTED_LENGTH)
      .flatMap(([k, v]): [string, string][] => [[v, k], ...encodedForms(v).map((form): [string, string] => [form, k])])
      // Longest first, so a value containing another is replaced whole.
      .sort((a, b) => b[0].length - a[0].length);
    for (const secret of this.#secrets) {
      const first = secret[0][0] ?? "";
      const list = this.#byFirst.get(first);
      if (list === undefined) this.#byFirst.set(first, [secret]);
      else list.push(secret);
    }
    this.#hold = Math.max(0, ...this.#secrets.map(([v]) => v.length - 1));
  }

  get active(): boolean {
    return this.#secrets.length > 0;
  }

  /** Replace every value in a complete text. */
  redact(text: string): string {
    return this.#scan(text, text.length).out;
  }

  /**
   * Left to right, longest value first at each position. Positions before `limit` are
   * decided; the scan stops at the first undecided one and reports where it stopped.
   */
  #scan(text: string, limit: number): { out: string; stop: number } {
    if (this.#secrets.length === 0) return { out: text.slice(0, limit), stop: limit };
    let out = "";
    let i = 0;
    while (i < limit) {
      const hit = this.#byFirst.get(text[i] ?? "")?.find(([value]) => text.startsWith(value, i));
      if (hit !== undefined) {
        out += `[vault:${hit[1]}]`;
        i += hit[0].length;
      } else {
        out += text[i];
        i += 1;
      }
    }
    return { out, stop: i };
  }

  /** Feed a chunk; returns the part that is safe to release now. */
  push(chunk: string): string {
    const raw = this.#pending + chunk;
    // A position is decided once the longest value starting there would be complete.
    const { out, stop } = this.#scan(raw, Math.max(0, raw.length - this.#hold));
    this.#pending = raw.slice(stop);
    return out;
  }

  /** Whatever is still held, redacted. */
  flush(): string {
    const rest = this.redact(this.#pending);
    this.#pending = "";
    return rest;
  }
}

/**
 * Wrap a tool's output stream so every chunk is redacted. `return`/`throw` go straight to the
 * tool, so cancelling the wrapper cancels the tool.
 */
export function redactStream(
  inner: AsyncGenerator<string, ToolResult<unknown>>,
  redactor: SecretRedactor,
): AsyncGenerator<string, ToolResult<unknown>> {
  let finished: IteratorReturnResult<ToolResult<unknown>> | undefined;
  const redactResult = (r: ToolResult<unknown>): ToolResult<unknown> =>
    r.note === undefined ? r : { ...r, note: redactor.redact(r.note) };
  const wrapper: AsyncGenerator<string, ToolResult<unknown>> = {
    async next() {
      if (finished !== undefined) return finished;
      for (;;) {
        const step = await inner.next();
        if (step.done === true) {
          finished = { done: true, value: redactResult(step.value) };
          const rest = redactor.flush();
          return rest === "" ? finished : { done: false, value: rest };
        }
        const safe = redactor.push(step.value);
        if (safe !== "") return { done: false, value: safe };
      }
    },
    return(value) {
      return inner.return(value);
    },
    throw(error) {
      return inner.throw(error);
    },
    [Symbol.asyncIterator]() {
      return wrapper;
    },
  };
  return wrapper;
}
