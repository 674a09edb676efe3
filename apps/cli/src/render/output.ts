/**
 * A human-facing output stream with its colours and a memory of whether the cursor sits at
 * the start of a line, so block lines (tool calls, retries, stats) always begin on a fresh
 * line without printing blank lines between them.
 */
import type { Colors } from "../io/colors.js";
import { colorsFor } from "../io/colors.js";

export class Output {
  readonly colors: Colors;
  readonly isTTY: boolean;
  readonly #write: (text: string) => void;
  #atLineStart = true;

  constructor(write: (text: string) => void, colors: Colors, isTTY: boolean) {
    this.#write = write;
    this.colors = colors;
    this.isTTY = isTTY;
  }

  static of(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): Output {
    return new Output((t) => void stream.write(t), colorsFor(stream, env), stream.isTTY === true);
  }

  write(text: string): void {
    if (text === "") return;
    this.#write(text);
    this.#atLineStart = text.endsWith("\n");
  }

  /** Ends the current line if something is on it. */
  newline(): void {
    if (!this.#atLineStart) this.write("\n");
  }

  /** Writes one whole line, starting on a fresh line. */
  line(text: string): void {
    this.newline();
    this.write(`${text}\n`);
  }

  get atLineStart(): boolean {
    return this.#atLineStart;
  }
}
