/**
 * Reading sessions on disk, open or not: `sessionState` (the fold at a record, as plain JSON)
 * and `inspectState` (what `penguin inspect` shows at a record). Both answer from the trace
 * alone, through the Agent's fold cache or a host's stored snapshots, and take no lease.
 * Split from agent.ts, whose methods of the same names delegate here.
 */
import { parseAt, plainSessionState, type LineCutOptions, type PlainSessionState, type SessionFolds, type SnapshotSource, type StateAtResult, type StateAtTarget } from "@penguin/trace";
import { PenguinError } from "./errors.js";
import { loadRecording } from "./replay/recording.js";
import { isSessionId } from "./state/ids.js";
import type { AgentPaths } from "./state/paths.js";
import { sessionTraceFiles } from "./trace/reader.js";
import { stateAt, stateAtFromSnapshots, type SessionView } from "./trace/state-at.js";

/** `agent.sessionState()`'s answer: the fold at a record as plain JSON, and where that record is. */
export type SessionStateAt = Omit<StateAtResult, "state" | "fold"> & { state: PlainSessionState };

export interface SessionStateOptions {
  sessionId: string;
  /** An event count from the session start (`120`) or a position (`"001:000042"`); the end when absent. */
  at?: string | number;
  /**
   * Stored snapshots to start from (a host's projections database, the timeline projection's
   * `timelineSnapshots`): only the events after the nearest one are read. Without one, or when
   * it has nothing for the session, the answer comes from this agent's in-memory snapshots.
   */
  snapshots?: SnapshotSource;
}

/**
 * A session's state folded from its trace with `evolve`: at its end, or at `at` (an event
 * count or a `NNN:LLLLLL` position). Works for any session on disk, running or not; the
 * answer is what the trace holds, so a running task shows up to its last durable record.
 */
export async function sessionState(paths: AgentPaths, folds: SessionFolds, options: SessionStateOptions): Promise<SessionStateAt> {
  const { sessionId } = options;
  if (!isSessionId(sessionId)) {
    throw new PenguinError("session_not_found", `"${sessionId}" is not a session id (expected session-YYYY-MM-DD-HH-mm-ss-<8hex>)`);
  }
  const files = sessionTraceFiles(paths, sessionId);
  if (files.length === 0) {
    throw new PenguinError("session_not_found", `no session ${sessionId} in ${paths.projectId}/${paths.agentId} (looked in ${paths.tracesDir})`);
  }
  let target: StateAtTarget | undefined;
  try {
    target = options.at === undefined ? undefined : parseAt(options.at);
  } catch (error) {
    throw new PenguinError("invalid_argument", error instanceof Error ? error.message : String(error));
  }
  const folded = options.snapshots !== undefined ? await folds.stateAtWith(options.snapshots, sessionId, sessionId, files, target) : folds.stateAtFiles(sessionId, files, target);
  // Plain objects and arrays (the fold's Sequences stay inside it): the shape inspect and /state carry as `state`.
  return { state: plainSessionState(folded.state), events: folded.events, totalEvents: folded.totalEvents, position: folded.position };
}

/**
 * What `penguin inspect` shows of a session after record `at` (a 1-based count across
 * rotated files, or `NNN:LLLLLL`; default: the last record): the next context, open calls,
 * pending approvals, carry-over, files. See trace/state-at.ts. With `snapshots` (as for
 * `sessionState`) it starts from the nearest stored snapshot instead of the whole recording;
 * with `cut` too, the records it reads have their long texts cut (a server's answer).
 */
export async function inspectState(paths: AgentPaths, folds: SessionFolds, options: { sessionId: string; at?: number | string; snapshots?: SnapshotSource; cut?: LineCutOptions }): Promise<SessionView> {
  if (options.snapshots !== undefined && isSessionId(options.sessionId)) {
    const view = await stateAtFromSnapshots(options.snapshots, options.sessionId, sessionTraceFiles(paths, options.sessionId), options.at, options.cut === undefined ? {} : { cut: options.cut });
    if (view !== undefined) return view;
  }
  const recording = loadRecording({ paths }, options.sessionId);
  return stateAt(recording, options.at ?? recording.events.length, { folds });
}
