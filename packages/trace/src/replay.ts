/**
 * replayTrace: what a resumed engine starts from, read off the fold of one trace file.
 *
 * There are no rules here: the state comes from `evolve` (evolve.ts), the one reducer. This
 * module only closes what a crash left dangling (an open request window becomes pending
 * input with a `[turn_aborted]` note) and reports it in the shape the engine and the
 * session builder take (history, carry-over, usage…).
 */
import type { CompactionMode, CompactionReason, OmniMessage, SessionMetaPayload, TokenCounts } from "@penguin/omnimessage";
import { carryOverOf, closeDanglingWindow, foldTrace, pendingAsOfRecord } from "./evolve.js";
import type { SessionState } from "./state.js";

export interface ReplayResult {
  meta: SessionMetaPayload | undefined;
  /** Committed messages, oldest first (the context the next request continues). */
  history: OmniMessage[];
  /** What the next request must send before any new input. */
  carryOver: OmniMessage[];
  /** Set when the context was closed by a completed compaction: the summary to carry over. */
  pendingSummary: string | undefined;
  /** The file ends in a completed compaction: the next record goes to a new file. */
  contextClosed: boolean;
  /** A compaction_begin without its end: resume must record it as failed. */
  danglingCompaction: { reason: CompactionReason; mode: CompactionMode } | undefined;
  /** Committed requests in this context. */
  turns: number;
  sessionUsage: TokenCounts;
  lastRequest: TokenCounts | undefined;
  /** A tool_list_ready is already in this file. */
  toolsAnnounced: boolean;
  /** Every tool_call id the file mentions, for the session's id allocator. */
  toolCallIds: string[];
  /** The folded state itself, for hosts that want the session facts too. */
  state: SessionState;
}

/**
 * `messages` folded and what a crash left dangling closed. `folded`: their fold, when the
 * caller has it already (resume folds a long file from its resume snapshot; the messages then
 * lack the lines the snapshot stood for, so they must not be folded again).
 */
export function replayTrace(messages: readonly OmniMessage[], folded?: SessionState): ReplayResult {
  return resumeView(folded ?? foldTrace(messages), new Date().toISOString());
}

/** A folded state as a resumed session starts from it; `at` stamps the notes resume adds. */
export function resumeView(folded: SessionState, at: string): ReplayResult {
  const state = closeDanglingWindow(folded, at);
  return viewOfState(state, carryOverOf(state, at));
}

/**
 * A folded state as it stands at its last record (time travel): what is in flight there is
 * shown as pending, not closed as a crash would be (`pendingAsOfRecord`).
 */
export function recordView(folded: SessionState, at: string): ReplayResult {
  const { state, carryOver } = pendingAsOfRecord(folded, at);
  return viewOfState(state, carryOver);
}

function viewOfState(state: SessionState, carryOver: OmniMessage[]): ReplayResult {
  const span = state.compactionSpan;
  return {
    meta: state.meta,
    history: [...state.history.toArray()],
    carryOver,
    pendingSummary: state.pendingSummary,
    contextClosed: state.contextClosed,
    danglingCompaction: span !== undefined ? { reason: span.reason, mode: span.mode } : undefined,
    turns: state.turns,
    sessionUsage: { ...state.sessionUsage },
    lastRequest: state.lastRequest === undefined ? undefined : { ...state.lastRequest },
    toolsAnnounced: state.toolsAnnounced,
    toolCallIds: [...state.toolCallIds.toArray()],
    state,
  };
}
