/**
 * The answer of `penguin run`, held per request when stdout is not a terminal, so a script
 * reading stdout gets the final answer only.
 *
 * A request can stream half an answer and then fail (a reset connection, a cut stream); the
 * engine retries it and the model answers again from the start. Streamed straight to stdout,
 * the cut-off half and the full answer would both land there. Held instead, a request's text
 * goes to stdout only once its `request_end` says it completed; the text of a request that is
 * retried (or ends without completing) is handed back so the caller can show it on stderr,
 * marked as such. Text of a completed request that went on to call tools is narration on the
 * way to the answer, not the answer: it goes to stderr too (`releaseTo`), so stdout ends up
 * with the final answer only. The renderer writes to `output` exactly as it would to stdout,
 * so released text is byte for byte what streaming would have printed. On a terminal `run` streams as
 * before: a human watches the answer arrive, and sees the retry line under any cut-off part.
 */
import { Output } from "./output.js";

export class HeldAnswer {
  readonly #target: Output;
  #chunks: string[] = [];
  /** Give this to the renderer as its text output. */
  readonly output: Output;

  constructor(target: Output) {
    this.#target = target;
    this.output = new Output((text) => this.#chunks.push(text), target.colors, false);
  }

  /** The text held since the last release, now dropped from the hold. */
  take(): string {
    const text = this.#chunks.join("");
    this.#chunks = [];
    return text;
  }

  /** Writes the held text to the real output (the request completed). */
  release(): void {
    this.releaseTo(this.#target);
  }

  /** Writes the held text elsewhere (narration of a request that called tools goes to stderr). */
  releaseTo(other: Output): void {
    const text = this.take();
    if (text !== "") other.write(text);
  }
}
