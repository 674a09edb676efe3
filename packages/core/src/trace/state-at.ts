/**
 * Time travel: a session's state at any record, `stateAt(recording, N)`.
 *
 * This is the ONE function `penguin inspect`, `agent.inspectState` and `--diff` go through.
 * The engine state and the session facts (settings, steering queue, goal) come from the
 * resume fold (trace/replay.ts, the trace package's `evolve`) over records 1..N of the
 * session, all rotated files in order (a completed compaction closes the context there, as
 * it did live); the rest (open calls, pending approvals, files touched, compactions, goals)
 * is kept by the same fold (the trace package's time-travel fold: `evolve` plus those facts).
 *
 * Two ways to the fold at N, which give the same state:
 * - `stateAt(recording, N)`: in process, from the trace package's `foldCache` (the process's
 *   one fold cache, which answers the agents' `sessionState` too). The first question about a
 *   recording folds it once, keeping a snapshot every DEFAULT_SNAPSHOT_EVERY records; a later
 *   one folds at most that many records from the nearest snapshot before N.
 * - `stateAtFromSnapshots(source, …)`: from a database's snapshots (the timeline projection),
 *   reading only the records after the nearest one from the files, so a fresh process does
 *   not parse the whole session.
 */
import { isCompleteModel, userText, type OmniMessage, type SessionMetaPayload, type TokenCounts, type ToolCallPayload } from "@penguin/omnimessage";
import {
  contextSummaryText,
  describeRecord,
  foldFromSnapshot,
  foldTimeTravel,
  foldCache,
  plainSessionState,
  type SessionFolds,
  type PlainSessionState,
  type LineCutOptions,
  type SnapshotSource,
  type StateAtTarget,
  type TimeTravelState,
  type TraceFileRef,
} from "@penguin/trace";
import { formatPosition, resolvePosition, type RecordedSession } from "../replay/recording.js";
import { recordView } from "./replay.js";

export interface SessionView {
  sessionId: string;
  /** The record the state is taken after. */
  at: { n: number; position: string; record: string };
  records: number;
  settings: Pick<SessionMetaPayload, "provider" | "model_id" | "model_context_window" | "workspace"> & {
    source?: string;
    forkedFrom?: { session_id: string; at: string };
    /** The last recorded `settings_changed` value: the opening one (sessions since the starting settings are recorded) or a later change. */
    approvalMode?: string;
    thinkingLevel?: string;
  };
  /** What the model would see on the next request, after the system prompt. */
  nextContext: OmniMessage[];
  /** Committed messages of the current context. */
  history: OmniMessage[];
  /** Input waiting for the next request. */
  carryOver: OmniMessage[];
  /** A completed compaction's summary, waiting to open the next context. */
  pendingSummary: string | undefined;
  /** Calls allowed and still running at N. */
  openToolCalls: ToolCallPayload[];
  /** Calls received and not yet approved or denied at N. */
  pendingApprovals: ToolCallPayload[];
  /** Steering delivered in this session so far, oldest first. */
  steering: string[];
  /** Steering queued and not yet delivered (or recalled) at N. */
  steeringQueue: { id: string; text: string }[];
  /** A request is in flight, or tools of a committed request are still running. */
  running: boolean;
  usage: { session: TokenCounts; lastRequest: TokenCounts | undefined };
  /** Committed requests in the current context, and requests sent in the whole session. */
  turns: number;
  requests: number;
  compaction: { segment: number; completed: number; inProgress: boolean };
  goal: { objective?: string; budget?: number; rounds?: number; outcome?: string } | undefined;
  filesRead: string[];
  filesWritten: string[];
  /** The fold at the record as plain JSON: what `agent.sessionState()` answers for it (@penguin/trace plain-state.ts). */
  state: PlainSessionState;
}


/**
 * The state after record `at` (a 1-based count or `NNN:LLLLLL`), from the snapshots of the
 * process's fold cache (`folds`: another `SessionFolds`, a test's with a short interval).
 * `fromStart` folds records 1..N afresh, with no cache: the baseline tests compare against.
 */
export function stateAt(recording: RecordedSession, at: number | string, options: { folds?: SessionFolds; fromStart?: boolean } = {}): SessionView {
  const target = resolvePosition(recording.events, at);
  const fold =
    options.fromStart === true
      ? foldTimeTravel(recording.events.slice(0, target.n).map((e) => e.message))
      : (options.folds ?? foldCache).foldRecordingAt(recording, (i) => recording.events[i]!.message, target.n);
  return viewOf({
    sessionId: recording.sessionId,
    fold,
    at: { n: target.n, position: target.position, record: describeRecord(target.message) },
    records: recording.events.length,
    segment: target.fileIndex,
    fallbackMeta: recording.meta,
  });
}

/**
 * The same from a database's nearest snapshot (`SnapshotSource`, e.g. the timeline
 * projection): only the records after it are read from `files` (with `cut`, their long texts
 * cut to a head and a marker, cut-line.ts: for a server that must not hold its event loop). Undefined when the source
 * cannot answer for the session; the caller then loads the recording and uses `stateAt`.
 */
export async function stateAtFromSnapshots(source: SnapshotSource, sessionId: string, files: readonly TraceFileRef[], at: number | string | undefined, options: { cut?: LineCutOptions } = {}): Promise<SessionView | undefined> {
  if (files.length === 0) return undefined;
  const target = inspectTarget(at);
  if (at !== undefined && target === undefined) return undefined;
  let lookup;
  try {
    lookup = await source.nearest(sessionId, target, files);
  } catch {
    // A derived database that cannot be read (locked, damaged), or a snapshot whose references
    // into `files` no longer resolve, is not an answer: the trace is.
    return undefined;
  }
  if (lookup === undefined) return undefined;
  const folded = foldFromSnapshot(files, lookup.snapshot, target, options);
  const records = folded.atEnd ? folded.events : Math.max(lookup.totalEvents, folded.events);
  // A question that names no record (a position on a skipped line, a count out of range) is
  // answered by the whole-recording path, which says what the valid range is.
  if (target?.kind === "position" && !folded.exact) return undefined;
  if (target?.kind === "count" && (target.count < 1 || folded.events < target.count)) return undefined;
  if (folded.events === 0 || folded.position === undefined) return undefined;
  // The record itself was read when it lies past the snapshot; a snapshot names its own last record.
  const record = folded.message !== undefined ? describeRecord(folded.message) : (lookup.snapshot?.record ?? "record");
  const meta = folded.fold.session.meta;
  if (meta === undefined) return undefined;
  return viewOf({
    sessionId,
    fold: folded.fold,
    at: { n: folded.events, position: formatPosition(folded.position.file, folded.position.line), record },
    records,
    segment: folded.position.file,
    fallbackMeta: meta,
  });
}

function inspectTarget(at: number | string | undefined): StateAtTarget | undefined {
  if (at === undefined) return undefined;
  if (typeof at === "string" && /^\d+:\d+$/.test(at)) {
    const [file, line] = at.split(":").map(Number) as [number, number];
    return { kind: "position", position: { file, line } };
  }
  const n = typeof at === "number" ? at : /^\d+$/.test(at) ? Number(at) : Number.NaN;
  return Number.isInteger(n) ? { kind: "count", count: n } : undefined;
}

interface ViewInput {
  sessionId: string;
  fold: TimeTravelState;
  at: SessionView["at"];
  records: number;
  segment: number;
  fallbackMeta: SessionMetaPayload;
}

function viewOf({ sessionId, fold: folded, at, records, segment, fallbackMeta }: ViewInput): SessionView {
  // What is in flight at the record is shown as pending there, not closed as after a crash.
  const fold = recordView(folded.session, new Date().toISOString());
  const f = folded.facts;
  const calls = [...f.openCalls.values()];
  const openToolCalls = calls.filter((c) => f.decisions.get(c.tool_call_id) === "allow");
  const pendingApprovals = calls.filter((c) => !f.decisions.has(c.tool_call_id) && (c.stop_reason === undefined || c.stop_reason === "completed"));
  let goal: SessionView["goal"] = f.goalResult === undefined ? undefined : { rounds: f.goalResult.rounds, outcome: f.goalResult.outcome };
  const forkedFrom = f.forkedFrom;

  // Session facts the fold keeps (the trace package's evolve): settings, the steering queue, the goal.
  const facts = fold.state;
  if (facts.goal !== undefined) {
    goal = { objective: facts.goal.objective, budget: facts.goal.budget, ...goal };
    if (facts.goal.outcome !== undefined) goal.outcome = facts.goal.outcome;
    if (facts.goal.rounds !== undefined) goal.rounds = facts.goal.rounds;
  }
  const history = fold.contextClosed ? [] : fold.history;
  const summary = fold.pendingSummary !== undefined ? [userText(contextSummaryText(fold.pendingSummary), { sender: "harness" })] : [];
  const meta = fold.meta ?? fallbackMeta;
  return {
    sessionId,
    at,
    records,
    settings: {
      provider: meta.provider,
      model_id: meta.model_id,
      model_context_window: meta.model_context_window,
      workspace: meta.workspace,
      ...(meta.source !== undefined ? { source: meta.source } : {}),
      ...(forkedFrom !== undefined ? { forkedFrom } : {}),
      ...(facts.settings.approvalMode !== undefined ? { approvalMode: facts.settings.approvalMode } : {}),
      ...(facts.settings.thinkingLevel !== undefined ? { thinkingLevel: facts.settings.thinkingLevel } : {}),
    },
    nextContext: [...history, ...summary, ...fold.carryOver].filter(isCompleteModel),
    history,
    carryOver: fold.carryOver,
    pendingSummary: fold.pendingSummary,
    openToolCalls,
    pendingApprovals,
    steering: [...f.steeringSent.toArray()],
    steeringQueue: facts.steering.map((q) => ({ id: q.id, text: q.text })),
    running: f.windowOpen || openToolCalls.length > 0 || pendingApprovals.length > 0,
    usage: { session: fold.sessionUsage, lastRequest: fold.lastRequest },
    turns: fold.turns,
    requests: f.requests,
    compaction: { segment, completed: f.compactionsCompleted, inProgress: f.compactionInProgress },
    goal,
    filesRead: [...f.filesRead],
    filesWritten: [...f.filesWritten],
    state: plainSessionState(folded.session),
  };
}
