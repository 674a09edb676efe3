/**
 * Reading one session's timeline: every table of the projection for that session, in trace
 * order, with positions in their public `NNN:LLLLLL` form.
 */
import type { Kysely } from "kysely";
import { positionText } from "@penguin/projections-runner";
import { sessionEvents, type TimelineEventRow } from "./event-blocks.js";
import type { TimelineCompactionRow, TimelineRequestRow, TimelineSubagentRow, TimelineTables, TimelineToolCallRow } from "./projection.js";

type Positioned<T> = Omit<T, "session_id"> & { position: string };

export interface SessionTimeline {
  sessionId: string;
  events: Positioned<TimelineEventRow>[];
  requests: Positioned<TimelineRequestRow>[];
  toolCalls: Positioned<TimelineToolCallRow>[];
  compactions: Positioned<TimelineCompactionRow>[];
  subagents: Positioned<TimelineSubagentRow>[];
}

function positioned<T extends { session_id: string; file_index: number; line: number }>(rows: T[]): Positioned<T>[] {
  return rows.map(({ session_id: _s, ...rest }) => ({ ...rest, position: positionText(Number(rest.file_index), Number(rest.line)) }));
}

export async function sessionTimeline(db: Kysely<any>, sessionId: string): Promise<SessionTimeline> {
  // The tables share (session_id, file_index, line); queried untyped, typed by the caller. The
  // events come unpacked from their blocks.
  const inOrder = <N extends keyof TimelineTables>(table: N) =>
    db.selectFrom(table).selectAll().where("session_id", "=", sessionId).orderBy("file_index").orderBy("line").execute() as Promise<TimelineTables[N][]>;
  return {
    sessionId,
    events: positioned(await sessionEvents(db, sessionId)),
    requests: positioned(await inOrder("timeline_requests")),
    toolCalls: positioned(await inOrder("timeline_tool_calls")),
    compactions: positioned(await inOrder("timeline_compactions")),
    subagents: positioned(await inOrder("timeline_subagents")),
  };
}
