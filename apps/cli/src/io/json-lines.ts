/**
 * JSON Lines on stdout for `--json`: one value per line, LF only, one `write` per line, so a
 * reader can split on "\n" and never sees half a record from us. `JSON.stringify` escapes
 * CR, LF and every control character inside strings, so a record can never contain the
 * separator. (Readers should still split on "\n" themselves rather than use Node's
 * readline, which also breaks lines at a bare "\r".)
 *
 * A closed reader (`penguin run --json | head -1`) surfaces as EPIPE: the writer reports it
 * once through `onClosed` so the command can stop the run instead of crashing.
 */
export interface JsonLines {
  write(value: unknown): void;
  readonly closed: boolean;
}

export function createJsonLines(stream: NodeJS.WritableStream, onClosed: () => void): JsonLines {
  let closed = false;
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE" || closed) return;
    closed = true;
    onClosed();
  });
  return {
    write(value) {
      if (closed) return;
      stream.write(`${JSON.stringify(value)}\n`);
    },
    get closed() {
      return closed;
    },
  };
}
