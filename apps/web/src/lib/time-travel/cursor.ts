/**
 * The time-travel scrubber's model, pure: the session's events in order across its rotated
 * trace files (each with its public position `NNN:LLLLLL` and what kind of step it is), and
 * the cursor moves over them: step, jump to the next or previous request or tool call, and
 * the play timer's tick. The cursor is an index into the events; it is always clamped, so a
 * move past either end stays at that end and never yields an index the list does not have.
 *
 * Kept free of Solid and of the network so every move is unit-tested on plain arrays.
 */
import type { OmniMessage } from "@penguin/omnimessage";

/** What a scrubber jump can land on; everything else is an `event`. */
export type ScrubKind = "request" | "tool_call" | "event";

export interface ScrubEvent {
  /** 1-based count from the session's start, across rotated files (the server's `at=N`). */
  n: number;
  fileIndex: number;
  line: number;
  /** `NNN:LLLLLL`, what the state and fork routes are given. */
  position: string;
  kind: ScrubKind;
  /** A short name for the event: `request_begin`, `tool_call exec_command`, `text (user)`. */
  label: string;
}

export function formatPosition(fileIndex: number, line: number): string {
  return `${String(fileIndex).padStart(3, "0")}:${String(line).padStart(6, "0")}`;
}

/**
 * What an event is named by: a whole envelope, or the outline the server sends of one
 * (`view=outline`: the payload's `type`, `role` and `name` only, which is all that is read).
 */
export interface EventNaming {
  type: OmniMessage["type"];
  payload: object;
}

function describe(m: EventNaming): { kind: ScrubKind; label: string } {
  if (m.type === "session_meta") return { kind: "event", label: "session_meta" };
  const p = m.payload as { type?: string; role?: string; name?: string };
  const type = p.type ?? "event";
  if (m.type === "event_msg") return { kind: type === "request_begin" ? "request" : "event", label: type };
  if (type === "tool_call") return { kind: "tool_call", label: `tool_call ${p.name ?? ""}` };
  if (type === "text") return { kind: "event", label: `text (${p.role ?? ""})` };
  return { kind: "event", label: type };
}

/** The session's events, files in index order and lines in order within each file. */
export function scrubEventsOf(files: readonly { fileIndex: number; lines: readonly { line: number; message: EventNaming }[] }[]): ScrubEvent[] {
  const events: ScrubEvent[] = [];
  const ordered = [...files].sort((a, b) => a.fileIndex - b.fileIndex);
  for (const f of ordered) {
    const lines = [...f.lines].sort((a, b) => a.line - b.line);
    for (const l of lines) events.push({ n: events.length + 1, fileIndex: f.fileIndex, line: l.line, position: formatPosition(f.fileIndex, l.line), ...describe(l.message) });
  }
  return events;
}

/** The index clamped into `[0, count - 1]` (0 for an empty list). */
export function clampCursor(index: number, count: number): number {
  if (count <= 0 || !Number.isFinite(index)) return 0;
  return Math.min(count - 1, Math.max(0, Math.trunc(index)));
}

export function stepCursor(index: number, delta: number, count: number): number {
  return clampCursor(index + delta, count);
}

/**
 * The nearest event after (`direction` 1) or before (-1) `index` whose kind is one of
 * `kinds`; undefined when there is none that way (the cursor then stays where it is).
 */
export function jumpCursor(events: readonly ScrubEvent[], index: number, kinds: readonly ScrubKind[], direction: 1 | -1): number | undefined {
  for (let i = index + direction; i >= 0 && i < events.length; i += direction) {
    if (kinds.includes(events[i]!.kind)) return i;
  }
  return undefined;
}

/** One tick of play: the next index, or `undefined` when the cursor is on the last event (play stops). */
export function playTick(index: number, count: number): number | undefined {
  return index + 1 < count ? index + 1 : undefined;
}

/** The cursor for a position (`NNN:LLLLLL`), or undefined when no loaded event has it. */
export function indexOfPosition(events: readonly ScrubEvent[], position: string): number | undefined {
  const i = events.findIndex((e) => e.position === position);
  return i < 0 ? undefined : i;
}
