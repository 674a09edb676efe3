/**
 * A SessionState as plain JSON: what the SDK's `agent.sessionState()`, `penguin inspect --json`
 * and the server's `/state` hand out, one shape from one function.
 *
 * The fold keeps its growing lists as Sequences and its id set as a HashSet so that a state per
 * event costs little (state.ts); those print as `{"size":13}` and cannot be spread, so they stay
 * inside the fold. Here each becomes an array (oldest first), the outputs map an object keyed by
 * tool-call id, and the id set, which only mirrors `toolCallIds` for lookups, is left out; an
 * absent value is an absent key, as JSON writes it. The
 * messages are the fold's own envelopes, shared, not copied: JSON.stringify of the result
 * round-trips to an equal value.
 */
import type { OmniMessage, SessionMetaPayload, TokenCounts, ToolCallOutputPayload, ToolCallPayload, ToolDefinition, CompleteModelPayload } from "@penguin/omnimessage";
import type { CompactionStatus, GoalState, PendingApproval, QueuedSteering, SessionSettings, SessionState } from "./state.js";

export interface PlainSessionState {
  meta?: SessionMetaPayload;
  segments: number;
  history: OmniMessage[];
  pending: OmniMessage[];
  lastCalls: ToolCallPayload[];
  /** Outputs of the calls still open, by tool-call id. */
  outputs: Record<string, ToolCallOutputPayload>;
  abortedSinceCommit: boolean;
  window?: { inputs: OmniMessage[]; produced: CompleteModelPayload[] };
  compactionSpan?: { reason: string; mode: string; reply: string; windowText: string; before: OmniMessage[] };
  pendingSummary?: string;
  contextClosed: boolean;
  turns: number;
  sessionUsage: TokenCounts;
  lastRequest?: TokenCounts;
  toolsAnnounced: boolean;
  tools?: ToolDefinition[];
  toolCallIds: string[];
  pendingApprovals: PendingApproval[];
  steering: QueuedSteering[];
  settings: SessionSettings;
  title?: string;
  archived: boolean;
  goal?: GoalState;
  forkedFrom?: { sessionId: string; at: string };
  subagents: string[];
  compaction: CompactionStatus;
  filesRead: string[];
  filesWritten: string[];
}

/** `state` as plain objects and arrays. */
export function plainSessionState(state: SessionState): PlainSessionState {
  // mapToArray, not toArray: an array cached on the node of every state asked about (time
  // travel asks about any) would stay as long as later states point back to it.
  const list = <A>(seq: { mapToArray<B>(f: (a: A) => B): B[] }): A[] => seq.mapToArray((a) => a);
  const plain: PlainSessionState = {
    segments: state.segments,
    history: list(state.history),
    pending: list(state.pending),
    lastCalls: [...state.lastCalls],
    outputs: Object.fromEntries(state.outputs),
    abortedSinceCommit: state.abortedSinceCommit,
    contextClosed: state.contextClosed,
    turns: state.turns,
    sessionUsage: { ...state.sessionUsage },
    toolsAnnounced: state.toolsAnnounced,
    toolCallIds: list(state.toolCallIds),
    pendingApprovals: state.pendingApprovals.map((a) => ({ ...a })),
    steering: state.steering.map((q) => ({ ...q })),
    settings: { ...state.settings },
    archived: state.archived,
    subagents: [...state.subagents],
    compaction: state.compaction,
    filesRead: [...state.filesRead],
    filesWritten: [...state.filesWritten],
  };
  if (state.meta !== undefined) plain.meta = state.meta;
  const window = state.window;
  if (window !== undefined) plain.window = { inputs: list(window.inputs), produced: list(window.produced) };
  const span = state.compactionSpan;
  if (span !== undefined) plain.compactionSpan = { reason: span.reason, mode: span.mode, reply: span.reply, windowText: span.windowText, before: [...span.before] };
  if (state.pendingSummary !== undefined) plain.pendingSummary = state.pendingSummary;
  if (state.lastRequest !== undefined) plain.lastRequest = { ...state.lastRequest };
  if (state.tools !== undefined) plain.tools = [...state.tools];
  if (state.title !== undefined) plain.title = state.title;
  if (state.goal !== undefined) plain.goal = { ...state.goal };
  if (state.forkedFrom !== undefined) plain.forkedFrom = { ...state.forkedFrom };
  return plain;
}
