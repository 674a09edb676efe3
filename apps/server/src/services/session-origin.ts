/**
 * Where a session came from, for the session list: the session (and the event) it was forked
 * from, or the recorded session it replays. The fork origin is the sessions projection's
 * `forked_from` (folded from the fork's `forked_from` event, `<session>@NNN:LLLLLL`); a replay
 * is the projection's `source: "replay"`, whose recorded session is named by `replay_of` in
 * the replay's own session_meta (the first line of its first trace file; the projection does
 * not keep it). One query for a whole page of rows, and a meta read only for replays.
 */
import type { LiveProjectionRunner } from "@penguin/projections-runner";
import type { AgentPaths } from "@penguin/core";
import { readSessionMeta } from "./trace-files.js";
import { traceFilesOf } from "./trace-view.js";

export interface SessionOrigin {
  forkedFrom: { sessionId: string; at: string } | null;
  replayOf: string | null;
}

export const NO_ORIGIN: SessionOrigin = { forkedFrom: null, replayOf: null };

/** `<session>@NNN:LLLLLL` → its parts (the position after the last `@`). */
export function parseForkedFrom(value: string | null): SessionOrigin["forkedFrom"] {
  if (value === null) return null;
  const at = value.lastIndexOf("@");
  return at <= 0 ? null : { sessionId: value.slice(0, at), at: value.slice(at + 1) };
}

/**
 * The origins of some sessions of one agent (a session the projection has not seen yet has
 * none). The origin only decorates a list, so a projection that cannot be read is reported
 * and the sessions are listed without it rather than not at all.
 */
export async function sessionOrigins(projections: LiveProjectionRunner, agent: AgentPaths, sessionIds: readonly string[], report: (error: unknown) => void): Promise<Map<string, SessionOrigin>> {
  const origins = new Map<string, SessionOrigin>();
  if (sessionIds.length === 0) return origins;
  let rows: { session_id: string; forked_from: string | null; source: string }[];
  try {
    rows = await projections.read((db) =>
      db
        .selectFrom("sessions")
        .select(["session_id", "forked_from", "source"])
        .where("session_id", "in", [...sessionIds])
        .execute() as Promise<{ session_id: string; forked_from: string | null; source: string }[]>,
    );
  } catch (error) {
    report(error);
    return origins;
  }
  for (const r of rows) {
    let replayOf: string | null = null;
    const first = r.source === "replay" ? traceFilesOf(agent, r.session_id)[0] : undefined;
    if (first !== undefined) replayOf = readSessionMeta(first.path)?.replay_of ?? null;
    origins.set(r.session_id, { forkedFrom: parseForkedFrom(r.forked_from), replayOf });
  }
  return origins;
}
