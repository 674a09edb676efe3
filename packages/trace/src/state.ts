/**
 * SessionState: everything known about a session at one point of its trace, as `evolve`
 * folds it. It is immutable: `evolve` returns a new state and never changes the one it gets,
 * so a state can be kept as a snapshot and shared by later ones (the growing lists are
 * Sequences, the id set a persistent HashSet, so sharing is cheap).
 *
 * Two kinds of fields:
 * - the public view (meta, context, usage, approvals, steering, settings, title, goal…),
 *   read by the engine on resume, by time travel (`stateAt`) and by inspectors;
 * - the fold's own bookkeeping for the current request window and compaction span, which
 *   the rules need to decide what a later `request_end` commits. They are part of the state
 *   because the state at a position must be enough to continue the fold from there.
 */
import * as HashSet from "effect/HashSet";
import {
  zeroTokens,
  type CompactionMode,
  type CompactionReason,
  type CompleteModelPayload,
  type GoalOutcome,
  type OmniMessage,
  type SessionMetaPayload,
  type StopReason,
  type TokenCounts,
  type ToolCallOutputPayload,
  type ToolCallPayload,
  type ToolDefinition,
} from "@penguin/omnimessage";
import { Sequence } from "./sequence.js";

/** One LLM request in progress: what it was sent and what it has produced so far. */
export interface OpenWindow {
  /** User-side messages traced inside the window (the Human's input, steering, notes). */
  readonly inputs: Sequence<OmniMessage>;
  /** Complete assistant messages the request produced, in order. */
  readonly produced: Sequence<CompleteModelPayload>;
  readonly producedMessages: Sequence<OmniMessage>;
}

/** A compaction span in progress (`compaction_begin` seen, its end not yet). */
export interface CompactionSpan {
  readonly reason: CompactionReason;
  readonly mode: CompactionMode;
  /** The assistant text of the last completed compaction request: the summary to extract. */
  readonly reply: string;
  /** Assistant text of the compaction request in progress. */
  readonly windowText: string;
  /** The context the compaction closes (for the activity digest of the summary). */
  readonly before: readonly OmniMessage[];
}

/** A tool (or a shell command prefix) the Human allowed for the rest of the session. */
export interface SessionApprovalRule {
  readonly tool: string;
  /** For a shell tool: the words a command must start with (absent: the whole tool). */
  readonly commandPrefix?: string;
}

export interface PendingApproval {
  readonly toolCallId: string;
  readonly name: string;
}

export interface QueuedSteering {
  readonly id: string;
  readonly text: string;
}

export interface SessionSettings {
  readonly approvalMode?: string;
  readonly thinkingLevel?: string;
}

export interface GoalState {
  readonly objective: string;
  /** Tokens; -1 means no limit. */
  readonly budget: number;
  readonly startedAt: string;
  /** Set by `goal_finished`. */
  readonly outcome?: GoalOutcome;
  readonly rounds?: number;
  readonly tokensUsed?: number;
}

export type CompactionStatus =
  | { readonly status: "idle"; readonly last?: { readonly reason: CompactionReason; readonly mode: CompactionMode; readonly status: StopReason } }
  | { readonly status: "running"; readonly reason: CompactionReason; readonly mode: CompactionMode };

export interface SessionState {
  /** The first `session_meta` folded (a session's meta is the same in all its files). */
  readonly meta: SessionMetaPayload | undefined;
  /** Trace files started so far in the fold (one per `session_meta`). */
  readonly segments: number;

  // --- the model-visible context of the current segment --------------------------------------
  /** Committed messages, oldest first: what the model saw and answered. */
  readonly history: Sequence<OmniMessage>;
  /** User-side input sent but not committed (failed or aborted requests, input before a request). */
  readonly pending: Sequence<OmniMessage>;
  /** The tool calls of the last committed request, whose outputs open the next request. */
  readonly lastCalls: readonly ToolCallPayload[];
  /** Outputs of the calls still open (of the last committed request and of the current window). */
  readonly outputs: ReadonlyMap<string, ToolCallOutputPayload>;
  /** An `abort` was recorded since the last commit (decides the placeholder of missing outputs). */
  readonly abortedSinceCommit: boolean;
  readonly window: OpenWindow | undefined;
  readonly compactionSpan: CompactionSpan | undefined;
  /** Set when a completed compaction closed the context: the summary for the next context. */
  readonly pendingSummary: string | undefined;
  /** The last completed compaction closed this segment; the next records start a new file. */
  readonly contextClosed: boolean;

  // --- accounting ----------------------------------------------------------------------------
  /** Committed requests in the current context. */
  readonly turns: number;
  readonly sessionUsage: TokenCounts;
  readonly lastRequest: TokenCounts | undefined;

  // --- tools ---------------------------------------------------------------------------------
  /** A tool_list_ready is already in the current file. */
  readonly toolsAnnounced: boolean;
  readonly tools: readonly ToolDefinition[] | undefined;
  /** Every tool_call id of the session, first occurrence order (for the id allocator). */
  readonly toolCallIds: Sequence<string>;
  readonly seenToolCallIds: HashSet.HashSet<string>;

  // --- session facts -------------------------------------------------------------------------
  readonly pendingApprovals: readonly PendingApproval[];
  /** `approval_rule` events, oldest first. */
  readonly approvalRules: readonly SessionApprovalRule[];
  readonly steering: readonly QueuedSteering[];
  readonly settings: SessionSettings;
  readonly title: string | undefined;
  readonly archived: boolean;
  readonly goal: GoalState | undefined;
  readonly forkedFrom: { readonly sessionId: string; readonly at: string } | undefined;
  readonly subagents: readonly string[];
  readonly compaction: CompactionStatus;
  /** Paths given to `read_file`, and to `write_file` / `edit_file`, first use first. */
  readonly filesRead: readonly string[];
  readonly filesWritten: readonly string[];
}

export const initialSessionState: SessionState = {
  meta: undefined,
  segments: 0,
  history: Sequence.empty(),
  pending: Sequence.empty(),
  lastCalls: [],
  outputs: new Map(),
  abortedSinceCommit: false,
  window: undefined,
  compactionSpan: undefined,
  pendingSummary: undefined,
  contextClosed: false,
  turns: 0,
  sessionUsage: zeroTokens(),
  lastRequest: undefined,
  toolsAnnounced: false,
  tools: undefined,
  toolCallIds: Sequence.empty(),
  seenToolCallIds: HashSet.empty(),
  pendingApprovals: [],
  approvalRules: [],
  steering: [],
  settings: {},
  title: undefined,
  archived: false,
  goal: undefined,
  forkedFrom: undefined,
  subagents: [],
  compaction: { status: "idle" },
  filesRead: [],
  filesWritten: [],
};
