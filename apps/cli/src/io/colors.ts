/**
 * Colour for one output stream, decided once: on only when that stream is a terminal, NO_COLOR
 * is unset (https://no-color.org) and TERM is not `dumb`. Every renderer takes the `Colors`
 * of the stream it writes to, so piped output and `NO_COLOR=1` never carry an ANSI code.
 */
import pc from "picocolors";

export type Colors = ReturnType<typeof pc.createColors>;

export interface StreamLike {
  isTTY?: boolean;
}

export function colorEnabled(stream: StreamLike, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.TERM === "dumb") return false;
  return stream.isTTY === true;
}

export function colorsFor(stream: StreamLike, env: NodeJS.ProcessEnv = process.env): Colors {
  return pc.createColors(colorEnabled(stream, env));
}
