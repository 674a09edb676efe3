/**
 * Writing to sessions that are not open in this process: a fork (a copy of the trace and the
 * scratchpad under a new id) and a fact a host decided (title, archive…) appended to the trace
 * on disk under the session's lease. An open session records through its own Session instead.
 * Split from agent.ts, whose methods of the same names delegate here.
 */
import type { OmniMessage, SessionClient } from "@penguin/omnimessage";
import { TraceWriter } from "@penguin/trace";
import { PenguinError } from "./errors.js";
import type { AgentParts } from "./session-build.js";
import { pickResumeFile } from "./session-resume.js";
import { isSessionId, newSessionId, sessionDate } from "./state/ids.js";
import { traceFilePath, type AgentPaths } from "./state/paths.js";
import { forkScratchpad, forkSessionFiles, forkSessionFilesAt, type ForkPosition } from "./trace/fork.js";
import { sessionTraceFiles } from "./trace/reader.js";

export interface ForkSessionOptions {
  sessionId: string;
  position?: ForkPosition;
  at?: number | string;
  /** Who forks it, recorded in the fork's session_meta (default `sdk`). */
  client?: SessionClient;
}

/**
 * Fork a session: a new session that starts as a copy of `sessionId` cut after a completed
 * task (the last one, or the answer at `position`), with its own id, trace and scratchpad;
 * or, with `at`, at any record (trace/fork.ts `forkSessionFilesAt`), starting with a
 * `forked_from` event. The source must be idle (the host checks). Returns the new session id.
 */
export async function forkSession(paths: AgentPaths, options: ForkSessionOptions): Promise<string> {
  if (!isSessionId(options.sessionId)) throw new PenguinError("session_not_found", `"${options.sessionId}" is not a session id`);
  if (options.position !== undefined && options.at !== undefined) throw new PenguinError("invalid_argument", "give either position (a task's answer) or at (any record) to forkSession, not both");
  const newId = newSessionId(new Date());
  const client = options.client ?? "sdk";
  if (options.at !== undefined) forkSessionFilesAt(paths, options.sessionId, newId, options.at, client);
  else forkSessionFiles(paths, options.sessionId, newId, options.position, client);
  await forkScratchpad(paths, options.sessionId, newId);
  return newId;
}

/**
 * Append a fact the host decided (title, archive…) to a session that is not open in this
 * process (an open one records through its own Session, whose writer knows the positions).
 */
export function recordSessionFact(parts: Pick<AgentParts, "paths" | "hold">, sessionId: string, fact: OmniMessage<"event_msg">): void {
  if (!isSessionId(sessionId)) throw new PenguinError("session_not_found", `"${sessionId}" is not a session id`);
  const files = sessionTraceFiles(parts.paths, sessionId);
  if (files.length === 0) throw new PenguinError("session_not_found", `no session ${sessionId} in ${parts.paths.projectId}/${parts.paths.agentId}`);
  // A writer like any other: refused while another process (or an open Session) runs it.
  const lease = parts.hold(sessionId);
  try {
    const pick = pickResumeFile(sessionTraceFiles(parts.paths, sessionId), { fold: false });
    if (pick.meta === undefined) throw new PenguinError("session_unreadable", `session ${sessionId} has no readable session_meta line; nothing was recorded`);
    const date = sessionDate(sessionId);
    const writer = new TraceWriter({ fileFor: (index) => traceFilePath(parts.paths, date, sessionId, index), index: pick.index, meta: pick.meta, existing: true, toolsWritten: true });
    try {
      writer.append(fact);
    } finally {
      writer.close();
    }
  } finally {
    lease.release();
  }
}
