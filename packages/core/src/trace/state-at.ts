/**
 * Time travel: a session's state at any record, `stateAt(recording, N)`.
 *
 * This is the ONE function `penguin inspect`, `agent.inspectState` and `--diff` go through.
 * The engine state and the session facts (settings, steering queue, goal) come from the
 * resume fold (trace/replay.ts, the trace package's `evolve`) over records 1..N of the
 * session, all rotated files in order (a completed compaction closes the context there, as
 * it did live); the rest (open calls, pending approvals, files touched, compactions, goals)
 * is read from the same records here. Nothing is cached: a call is a fold from the start.
 */
import {
  extractMarker,
  isCompleteModel,
  startsWithMarker,
  userText,
  type OmniMessage,
  type SessionMetaPayload,
  type TokenCounts,
  type ToolCallPayload,
} from "@penguin/omnimessage";
import { contextSummaryText } from "@penguin/trace";
import { resolvePosition, type RecordedEvent, type RecordedSession } from "../replay/recording.js";
import { replayTrace } from "./replay.js";

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
}

const READERS = new Set(["read_file", "read_image"]);
const WRITERS = new Set(["write_file", "edit_file"]);

function pathArgument(call: ToolCallPayload): string | undefined {
  try {
    const args = JSON.parse(call.arguments) as { file_path?: unknown; path?: unknown };
    const p = args.file_path ?? args.path;
    return typeof p === "string" ? p : undefined;
  } catch {
    return undefined;
  }
}

const describe = (e: RecordedEvent): string => (e.message.type === "session_meta" ? "session_meta" : `${e.message.type} ${e.message.payload.type}`);

/** The state after record `at` (a 1-based count or `NNN:LLLLLL`). */
export function stateAt(recording: RecordedSession, at: number | string): SessionView {
  const target = resolvePosition(recording.events, at);
  const upTo = recording.events.slice(0, target.n).filter((e) => e.message.origin === undefined || e.message.origin.length === 0);
  const messages = upTo.map((e) => e.message);
  const fold = replayTrace(messages);

  const calls = new Map<string, ToolCallPayload>();
  const decided = new Map<string, string>();
  const finished = new Set<string>();
  const read = new Set<string>();
  const written = new Set<string>();
  const steering: string[] = [];
  let requests = 0;
  let windowOpen = false;
  let completed = 0;
  let inProgress = false;
  let goal: SessionView["goal"];
  let forkedFrom: SessionView["settings"]["forkedFrom"];
  for (const m of messages) {
    if (m.type === "model_msg") {
      const p = m.payload;
      if (p.type === "tool_call") calls.set(p.tool_call_id, p);
      else if (p.type === "tool_call_output") {
        finished.add(p.tool_call_id);
        const call = calls.get(p.tool_call_id);
        const path = call === undefined ? undefined : pathArgument(call);
        if (call !== undefined && path !== undefined && p.stop_reason === "completed") {
          if (READERS.has(call.name)) read.add(path);
          if (WRITERS.has(call.name)) written.add(path);
        }
      } else if (p.type === "text" && p.role === "user" && startsWithMarker(p.text, "user_steering")) {
        steering.push(extractMarker(p.text, "user_steering") ?? "");
      }
      continue;
    }
    if (m.type !== "event_msg") continue;
    const e = m.payload;
    if (e.type === "request_begin") {
      requests += 1;
      windowOpen = true;
    } else if (e.type === "request_end") windowOpen = false;
    else if (e.type === "approval_decision") decided.set(e.tool_call_id, e.decision);
    else if (e.type === "compaction_begin") inProgress = true;
    else if (e.type === "compaction_end") {
      inProgress = false;
      if (e.status === "completed") completed += 1;
    } else if (e.type === "abort") {
      // An abort closes every call still open: resume gives them placeholders.
      for (const id of calls.keys()) finished.add(id);
      windowOpen = false;
    } else if (e.type === "goal_finished") goal = { rounds: e.rounds, outcome: e.outcome };
    else if (e.type === "forked_from") forkedFrom = { session_id: e.session_id, at: e.at };
  }
  const openToolCalls = [...calls.values()].filter((c) => decided.get(c.tool_call_id) === "allow" && !finished.has(c.tool_call_id));
  const pendingApprovals = [...calls.values()].filter((c) => !decided.has(c.tool_call_id) && !finished.has(c.tool_call_id) && (c.stop_reason === undefined || c.stop_reason === "completed"));

  // Session facts the fold keeps (the trace package's evolve): settings, the steering queue, the goal.
  const facts = fold.state;
  if (facts.goal !== undefined) {
    goal = { objective: facts.goal.objective, budget: facts.goal.budget, ...goal };
    if (facts.goal.outcome !== undefined) goal.outcome = facts.goal.outcome;
    if (facts.goal.rounds !== undefined) goal.rounds = facts.goal.rounds;
  }
  const history = fold.contextClosed ? [] : fold.history;
  const summary = fold.pendingSummary !== undefined ? [userText(contextSummaryText(fold.pendingSummary), { sender: "harness" })] : [];
  const meta = fold.meta ?? recording.meta;
  return {
    sessionId: recording.sessionId,
    at: { n: target.n, position: target.position, record: describe(target) },
    records: recording.events.length,
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
    steering,
    steeringQueue: facts.steering.map((q) => ({ id: q.id, text: q.text })),
    running: windowOpen || openToolCalls.length > 0 || pendingApprovals.length > 0,
    usage: { session: fold.sessionUsage, lastRequest: fold.lastRequest },
    turns: fold.turns,
    requests,
    compaction: { segment: target.fileIndex, completed, inProgress },
    goal,
    filesRead: [...read],
    filesWritten: [...written],
  };
}
