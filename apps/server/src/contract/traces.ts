/**
 * Traces as the API answers them: file lists, pages of numbered envelopes (whole, or the
 * outline time travel names events by), the per-request analysis and a trace import.
 */
import { OmniMessageSchema } from "@penguin/omnimessage/schema";
import { Schema } from "effect";
import { TraceFileInfo } from "./common.js";

/** One record of a trace, whole (`GET S/records/:at`). */
export const TraceRecord = OmniMessageSchema;

export const SessionTraceFiles = Schema.Struct({ files: Schema.Array(TraceFileInfo) });

/** What the outline view keeps of an envelope. */
export const EventOutline = Schema.Struct({
  type: Schema.Literal("session_meta", "model_msg", "event_msg"),
  payload: Schema.Struct({ type: Schema.optional(Schema.String), role: Schema.optional(Schema.String), name: Schema.optional(Schema.String) }),
});
/** `cut`: what the server cut of the record (a text over 4 MiB keeps its head) and where it is whole. */
export const TraceLine = Schema.Struct({ line: Schema.Number, message: Schema.Union(OmniMessageSchema, EventOutline), cut: Schema.optional(Schema.Struct({ bytes: Schema.Number, at: Schema.String })) });
export const TraceFilePage = Schema.Struct({
  sessionId: Schema.optional(Schema.String),
  index: Schema.Number,
  lines: Schema.Array(TraceLine),
  total: Schema.Number,
  nextOffset: Schema.NullOr(Schema.Number),
});

export const AgentTraceSession = Schema.Struct({ sessionId: Schema.String, mtimeMs: Schema.Number, files: Schema.Array(TraceFileInfo) });
export const AgentTraceList = Schema.Struct({ sessions: Schema.Array(AgentTraceSession), total: Schema.Number });
export const TraceImported = Schema.Struct({
  sessionId: Schema.String,
  replaced: Schema.Array(Schema.Struct({ field: Schema.String, line: Schema.Number, path: Schema.String, replacement: Schema.String, reason: Schema.String })),
});

export const RequestAnalysis = Schema.Struct({
  n: Schema.Number,
  task: Schema.Number,
  fileIndex: Schema.Number,
  status: Schema.String,
  attempt: Schema.optional(Schema.Number),
  retryInMs: Schema.optional(Schema.Number),
  error: Schema.optional(Schema.String),
  context: Schema.Number,
  cacheRead: Schema.Number,
  cacheWrite: Schema.Number,
  output: Schema.Number,
  total: Schema.Number,
  cacheHitRate: Schema.optional(Schema.Number),
  startedAt: Schema.optional(Schema.String),
  durationMs: Schema.optional(Schema.Number),
  toolCalls: Schema.Number,
});
export const TraceAnalysis = Schema.Struct({
  sessionId: Schema.String,
  files: Schema.Number,
  model: Schema.NullOr(Schema.Struct({ provider: Schema.String, modelId: Schema.String, contextWindow: Schema.Union(Schema.Number, Schema.Literal("unknown")) })),
  source: Schema.NullOr(Schema.String),
  status: Schema.String,
  startedAt: Schema.NullOr(Schema.String),
  endedAt: Schema.NullOr(Schema.String),
  totals: Schema.Struct({
    requests: Schema.Number,
    retries: Schema.Number,
    toolCalls: Schema.Number,
    compactions: Schema.Number,
    cacheRead: Schema.Number,
    cacheWrite: Schema.Number,
    output: Schema.Number,
    total: Schema.Number,
    durationMs: Schema.Number,
  }),
  tasks: Schema.Array(
    Schema.Struct({ n: Schema.Number, prompt: Schema.NullOr(Schema.String), status: Schema.String, requests: Schema.Number, steering: Schema.Number, compactions: Schema.Number, output: Schema.Number, total: Schema.Number }),
  ),
  compactions: Schema.Array(Schema.Struct({ task: Schema.Number, reason: Schema.String, mode: Schema.String, contextTokens: Schema.Number, status: Schema.String, error: Schema.optional(Schema.String) })),
  requests: Schema.Array(RequestAnalysis),
  timeline: Schema.Struct({
    events: Schema.Number,
    toolCalls: Schema.Array(Schema.Struct({ position: Schema.String, name: Schema.String, durationMs: Schema.NullOr(Schema.Number), status: Schema.NullOr(Schema.String) })),
    subagents: Schema.Array(Schema.Struct({ position: Schema.String, sessionId: Schema.String })),
  }),
});

/** The decoded types, for code that reads these answers (the web app imports them as types). */
export type TraceRecord = typeof TraceRecord.Type;
export type SessionTraceFiles = typeof SessionTraceFiles.Type;
export type EventOutline = typeof EventOutline.Type;
export type TraceLine = typeof TraceLine.Type;
export type TraceFilePage = typeof TraceFilePage.Type;
export type AgentTraceSession = typeof AgentTraceSession.Type;
export type AgentTraceList = typeof AgentTraceList.Type;
export type TraceImported = typeof TraceImported.Type;
export type RequestAnalysis = typeof RequestAnalysis.Type;
export type TraceAnalysis = typeof TraceAnalysis.Type;
