/**
 * The chat view model: what the stream renders, one item per row.
 *
 * The reducer (reducer.ts) turns OmniMessages into these items; components only draw them.
 * Items are immutable: when one changes (a text grows, a tool finishes) the reducer puts a
 * new object in its slot, so the controller can tell which rows changed since its last
 * flush. Each item has a stable `id` (its position of creation): the Solid store reconciles
 * rows by it, so a row keeps its DOM while it grows.
 */
import type { ApprovalDecision, GoalOutcome, MarkerTag, McpServerResult, StopReason, TextSender, TokenCounts } from "@penguin/omnimessage";

export interface Attachment {
  kind: "image" | "file";
  path: string;
}

/** What the human (or the server, for scheduled tasks) sent. */
export interface UserItem {
  kind: "user";
  id: string;
  text: string;
  images: string[];
  attachments: Attachment[];
  /** Skills named in a `[use_skills]` block. */
  skills: string[];
  /** `steer` for `[user_steering]` texts sent while a task ran. */
  variant: "prompt" | "steer" | "scheduled";
  sender: TextSender | undefined;
  timestamp: string;
}

export interface AssistantTextItem {
  kind: "assistant";
  id: string;
  text: string;
  streaming: boolean;
  stopReason: StopReason | undefined;
  origin: string[] | undefined;
}

export interface ThinkingItem {
  kind: "thinking";
  id: string;
  text: string;
  streaming: boolean;
  /** Inline (binary) thinking: a data URL to show instead of text. */
  dataUrl?: string;
}

export type ToolStatus =
  /** The model is still writing the arguments. */
  | "streaming"
  /** Complete call, waiting for approval or execution. */
  | "pending"
  | "running"
  | "done"
  | "failed"
  | "denied"
  | "forbidden"
  | "aborted";

export interface ToolItem {
  kind: "tool";
  id: string;
  toolCallId: string;
  name: string;
  /** The arguments JSON as streamed so far (complete once status leaves `streaming`). */
  args: string;
  status: ToolStatus;
  output: string;
  images: string[];
  outputStreaming: boolean;
  decision: ApprovalDecision | undefined;
  policyRule: string | undefined;
  /** ms since epoch, from message timestamps: the live timer runs from here to `endedAt`. */
  startedAt: number;
  endedAt: number | undefined;
}

/** A request that did not complete: a failure (maybe retried), an auth rejection, a timeout. */
export interface RequestErrorItem {
  kind: "request_error";
  id: string;
  status: StopReason;
  message: string;
  attempt: number | undefined;
  retryInMs: number | undefined;
  /** When the engine will retry (ms since epoch), if it will. */
  retryAt: number | undefined;
  /** A later request began: the countdown is over. */
  superseded: boolean;
}

export interface CompactionItem {
  kind: "compaction";
  id: string;
  reason: string;
  mode: string;
  status: "running" | StopReason;
  error: string | undefined;
  context: number | undefined;
}

export interface McpItem {
  kind: "mcp";
  id: string;
  servers: string[];
  status: "connecting" | StopReason;
  results: McpServerResult[];
}

export interface SubagentItem {
  kind: "subagent";
  id: string;
  childId: string;
  messages: number;
  /** The newest text the child wrote, for a one-line preview. */
  preview: string;
  active: boolean;
}

/** Harness-written blocks: context summaries, aborted or retried turns, instructions. */
export interface NoticeItem {
  kind: "notice";
  id: string;
  tag: MarkerTag | "abort" | "task_error";
  title: string;
  body: string;
}

/** The start of one goal round: the header of its `[goal]` block, and the whole block to expand. */
export interface GoalRoundItem {
  kind: "goal_round";
  id: string;
  round: number | undefined;
  /** Tokens spent before this round. */
  used: number | undefined;
  /** null: no limit. */
  budget: number | null | undefined;
  goalFile: string | undefined;
  body: string;
}

/** How a goal ended (the `goal_finished` event). */
export interface GoalFinishedItem {
  kind: "goal_finished";
  id: string;
  outcome: GoalOutcome;
  rounds: number;
  tokensUsed: number;
}

export interface TaskStats {
  /** Requests in the task (completed or not). */
  requests: number;
  tokens: TokenCounts;
  /** Time from the task's first message to its last, ms. */
  durationMs: number;
  /** Time spent inside model requests, ms (the tokens/s denominator). */
  generationMs: number;
}

export interface StatsItem {
  kind: "stats";
  id: string;
  stats: TaskStats;
  running: boolean;
  /** The task ended on a final answer (a completed request with text and no tool call): a fork can cut after it. */
  completed: boolean;
}

export type ViewItem =
  | UserItem
  | AssistantTextItem
  | ThinkingItem
  | ToolItem
  | RequestErrorItem
  | CompactionItem
  | McpItem
  | SubagentItem
  | NoticeItem
  | GoalRoundItem
  | GoalFinishedItem
  | StatsItem;

export const ZERO_TOKENS: TokenCounts = { cache_read: 0, cache_write: 0, output: 0, total: 0 };
