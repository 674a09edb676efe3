/**
 * Sessions as the API answers them: the list/read view, the one-session read's extras, the
 * history page, task acceptance, steering, follow-ups, goals and background processes.
 * Protocol data (messages, tool calls) is the protocol's own schema from
 * `@penguin/omnimessage`, so a history answer is checked envelope by envelope.
 */
import { OmniMessageSchema, ToolCallPayloadSchema } from "@penguin/omnimessage/schema";
import { Schema } from "effect";
import { ApprovalMode, ThinkingLevel, TraceFileInfo } from "./common.js";

export const TaskState = Schema.Literal("idle", "running", "compacting");

/** One session in a list, a create, a fork or a change (services/session-view.ts builds it). */
export const SessionView = Schema.Struct({
  id: Schema.String,
  projectId: Schema.String,
  agentId: Schema.String,
  provider: Schema.NullOr(Schema.String),
  modelId: Schema.NullOr(Schema.String),
  workspace: Schema.NullOr(Schema.String),
  approvalMode: ApprovalMode,
  thinkingLevel: Schema.NullOr(ThinkingLevel),
  title: Schema.NullOr(Schema.String),
  archived: Schema.Boolean,
  archivedAt: Schema.NullOr(Schema.Number),
  /** The program that created it, as its session_meta records it (`web`/`cli` by the old rule for a trace from before that). */
  client: Schema.Literal("web", "cli", "sdk", "acp", "schedule", "subagent"),
  /** Who started it, from its trace: a subagent's child session, a schedule, or a person (null). */
  source: Schema.NullOr(Schema.Literal("subagent", "schedule")),
  hasTrace: Schema.Boolean,
  /** The session's sandboxed commands may use the network. */
  sandboxNetwork: Schema.Boolean,
  createdAt: Schema.Number,
  lastActiveAt: Schema.Number,
  state: TaskState,
  pendingApprovals: Schema.Number,
  queued: Schema.Number,
  /** The session and event (`NNN:LLLLLL`) this one was forked from. */
  forkedFrom: Schema.NullOr(Schema.Struct({ sessionId: Schema.String, at: Schema.String })),
  /** The recorded session this one re-executes. */
  replayOf: Schema.NullOr(Schema.String),
});
export const SessionList = Schema.Struct({ sessions: Schema.Array(SessionView) });

export const PendingApproval = Schema.Struct({ toolCallId: Schema.String, toolCall: ToolCallPayloadSchema, requestedAt: Schema.Number });

/** `GET /api/sessions/:id`: the view plus where its trace is, its usage, how its commands run and what the caller may change. */
export const SessionDetail = Schema.Struct({
  ...SessionView.fields,
  tracePath: Schema.NullOr(Schema.String),
  traceFiles: Schema.Array(TraceFileInfo),
  usage: Schema.Struct({ requests: Schema.Number, total: Schema.Number }),
  pending: Schema.Array(PendingApproval),
  sandbox: Schema.Struct({ available: Schema.Boolean, enabled: Schema.Boolean, serverNetwork: Schema.Boolean }),
  permissions: Schema.Struct({ control: Schema.Boolean, allowNetwork: Schema.Boolean }),
});

/** A trace position as the history page gives it. */
export const TracePosition = Schema.Struct({ fileIndex: Schema.Number, line: Schema.Number });

/** `GET S/messages`: a page of the trace's messages, the run state and, while a task runs, its open fragments. */
export const SessionHistory = Schema.Struct({
  messages: Schema.Array(OmniMessageSchema),
  tracePosition: Schema.NullOr(TracePosition),
  hasMore: Schema.Boolean,
  state: TaskState,
  cursor: Schema.NullOr(Schema.String),
  pendingApprovals: Schema.Array(PendingApproval),
  live: Schema.optional(Schema.Struct({ cursor: Schema.NullOr(Schema.String), fragments: Schema.Array(OmniMessageSchema) })),
});

export const TaskInputItem = Schema.Union(
  Schema.Struct({ type: Schema.Literal("text"), text: Schema.String }),
  Schema.Struct({ type: Schema.Literal("image_url"), imageUrl: Schema.String }),
  Schema.Struct({ type: Schema.Literal("file"), fileName: Schema.String, dataUrl: Schema.String }),
);

export const TaskAccepted = Schema.Union(Schema.Struct({ status: Schema.Literal("started") }), Schema.Struct({ status: Schema.Literal("queued"), followUpId: Schema.String }));
export const RecalledFollowUp = Schema.Struct({ input: Schema.Array(TaskInputItem) });
export const SteeringNote = Schema.Struct({ id: Schema.String, text: Schema.String });
export const AbortAnswer = Schema.Struct({ aborted: Schema.Literal(true), recalled: Schema.Array(Schema.Struct({ id: Schema.String, input: Schema.Array(TaskInputItem) })) });
export const RetryNowAnswer = Schema.Struct({ skipped: Schema.Boolean });
export const CompactStarted = Schema.Struct({ status: Schema.Literal("started") });

export const GOAL_STATUS_VALUES = ["active", "complete", "blocked", "budget_limited", "aborted"] as const;
export const GoalStatus = Schema.Literal(...GOAL_STATUS_VALUES);
export const GoalAnswer = Schema.Struct({
  goal: Schema.Struct({
    id: Schema.Number,
    sessionId: Schema.String,
    objective: Schema.String,
    status: GoalStatus,
    /** Token budget; null = no limit. */
    budget: Schema.NullOr(Schema.Number),
    used: Schema.Number,
    rounds: Schema.Number,
    createdAt: Schema.Number,
  }),
});

export const ProcessView = Schema.Struct({
  id: Schema.String,
  command: Schema.String,
  label: Schema.String,
  status: Schema.Literal("running", "exited", "killed"),
  /** ISO time the command started. */
  started: Schema.String,
  exitCode: Schema.optional(Schema.NullOr(Schema.Number)),
  serviceUrl: Schema.optional(Schema.String),
});
export const ProcessList = Schema.Struct({ processes: Schema.Array(ProcessView) });
export const ProcessKilled = Schema.Struct({ id: Schema.String, status: Schema.Literal("killed", "exited") });

/** `GET S/state` (time travel): what `penguin inspect --at` prints, as JSON; its parts are core's fold, described by name here. */
export const SessionStateAnswer = Schema.Record({ key: Schema.String, value: Schema.Unknown });

/** The decoded types, for code that reads these answers (the web app imports them as types). */
export type TaskState = typeof TaskState.Type;
export type SessionView = typeof SessionView.Type;
export type SessionList = typeof SessionList.Type;
export type PendingApproval = typeof PendingApproval.Type;
export type SessionDetail = typeof SessionDetail.Type;
export type TracePosition = typeof TracePosition.Type;
export type SessionHistory = typeof SessionHistory.Type;
export type TaskInputItem = typeof TaskInputItem.Type;
export type TaskAccepted = typeof TaskAccepted.Type;
export type RecalledFollowUp = typeof RecalledFollowUp.Type;
export type SteeringNote = typeof SteeringNote.Type;
export type AbortAnswer = typeof AbortAnswer.Type;
export type RetryNowAnswer = typeof RetryNowAnswer.Type;
export type CompactStarted = typeof CompactStarted.Type;
export type GoalStatus = typeof GoalStatus.Type;
export type GoalAnswer = typeof GoalAnswer.Type;
export type ProcessView = typeof ProcessView.Type;
export type ProcessList = typeof ProcessList.Type;
export type ProcessKilled = typeof ProcessKilled.Type;
export type SessionStateAnswer = typeof SessionStateAnswer.Type;
