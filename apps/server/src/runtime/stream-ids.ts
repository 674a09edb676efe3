/**
 * Session stream ids: trace positions, so `Last-Event-ID` means the same thing to every
 * server process that ever reads the session's files.
 *
 * - A durable event (a trace record) has the id of its line: `NNN:LLLLLL` (file index, line).
 * - Any other event (a streaming partial, a subagent's message mirrored on its parent, a
 *   server event such as `task_state`) is not in the trace. It is numbered after the last
 *   durable line sent before it: `NNN:LLLLLL.<epoch>.<k>`, k counting from 1 since that line,
 *   epoch naming the server process. A client that reconnects with such an id therefore still
 *   names the last trace line it holds (the position part), and the suffix lets the same
 *   process resend the partials and server events it has kept since that line.
 * - `000:000000` is "before the first line" (a session whose trace has no record yet).
 *
 * Old ids of the form `<epoch>-<seq>` (and anything else) do not parse: the server answers
 * them with `resync_required`.
 */
import { formatPosition, type TracePosition } from "@penguin/core";

export interface StreamId {
  position: TracePosition;
  volatile?: { epoch: string; k: number };
}

export const BEFORE_START: TracePosition = { file: 0, line: 0 };

const STREAM_ID = /^(\d{3,}):(\d{6,})(?:\.([0-9a-z]+)\.(\d+))?$/;

export function formatStreamId(id: StreamId): string {
  const base = formatPosition(id.position);
  return id.volatile === undefined ? base : `${base}.${id.volatile.epoch}.${id.volatile.k}`;
}

export function parseStreamId(text: string): StreamId | undefined {
  const m = STREAM_ID.exec(text.trim());
  if (m === null) return undefined;
  const position = { file: Number(m[1]), line: Number(m[2]) };
  if (!Number.isSafeInteger(position.file) || !Number.isSafeInteger(position.line)) return undefined;
  // 000:000000 is the only position with a zero: before the first line.
  if ((position.file === 0) !== (position.line === 0)) return undefined;
  if (m[3] === undefined) return { position };
  const k = Number(m[4]);
  if (!Number.isSafeInteger(k) || k < 1) return undefined;
  return { position, volatile: { epoch: m[3], k } };
}

export function comparePositions(a: TracePosition, b: TracePosition): number {
  return a.file - b.file || a.line - b.line;
}
