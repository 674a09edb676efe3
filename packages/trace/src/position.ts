/**
 * Positions: where an event sits in a session's trace, stable forever.
 *
 * A position is `(file index, line number)`: the rotated file (`_001`, `_002`…) and the 1-based
 * line inside it. Files are append-only and never rewritten, so a position, once written,
 * names the same event for the life of the session: SSE event ids, `inspect --at` and fork
 * points all use it. Its public form is `NNN:LLLLLL` (zero-padded, wider numbers are allowed
 * and still sort by value when parsed).
 *
 * `stateAt` also takes an event count N ("after the first N events of the session, across
 * its files"); `parseAt` turns either form into a `StateAtTarget`.
 */

export interface TracePosition {
  /** The trace file index (1 for `_001`). */
  readonly file: number;
  /** 1-based line number in that file. */
  readonly line: number;
}

const POSITION_RE = /^(\d{3,}):(\d{6,})$/;

export function formatPosition(p: TracePosition): string {
  return `${String(p.file).padStart(3, "0")}:${String(p.line).padStart(6, "0")}`;
}

/** The position written as `NNN:LLLLLL`, or undefined when the text is not one. */
export function parsePosition(text: string): TracePosition | undefined {
  const m = POSITION_RE.exec(text.trim());
  if (m === null) return undefined;
  const file = Number(m[1]);
  const line = Number(m[2]);
  if (file < 1 || line < 1) return undefined;
  return { file, line };
}

/** Orders positions: negative when `a` comes first. */
export function comparePositions(a: TracePosition, b: TracePosition): number {
  return a.file - b.file || a.line - b.line;
}

/** What `stateAt` folds to: a number of events from the start, or up to (and including) a position. */
export type StateAtTarget = { readonly kind: "count"; readonly count: number } | { readonly kind: "position"; readonly position: TracePosition };

/**
 * Read a user's `at`: an event count (`"120"`, or a number) or a position (`"002:000017"`).
 * Throws with a message naming the value and both accepted forms otherwise.
 */
export function parseAt(at: string | number): StateAtTarget {
  if (typeof at === "number") {
    if (Number.isInteger(at) && at >= 0) return { kind: "count", count: at };
    throw new Error(`invalid position ${at}: an event count must be a whole number ≥ 0`);
  }
  const text = at.trim();
  if (/^\d+$/.test(text)) return { kind: "count", count: Number(text) };
  const position = parsePosition(text);
  if (position !== undefined) return { kind: "position", position };
  throw new Error(`invalid position "${at}": use an event count (e.g. 120) or a file:line position (e.g. 001:000042)`);
}
