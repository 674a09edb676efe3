/**
 * A session's trace as an OpenTelemetry span tree, following the GenAI semantic conventions:
 *
 *   invoke_agent <agent>          one per task (from the human's input to the next one)
 *     chat <model>                one per model request (request_begin → request_end), with the
 *                                 token usage recorded after it and the finish reason
 *     execute_tool <tool>         one per tool call (tool_call → tool_call_output)
 *     compaction                  compaction_begin → compaction_end
 *     invoke_agent subagent       a child session started by run_subagent (its id as attribute)
 *
 * Built from trace records only (no clock, no randomness), so the same trace gives the same
 * tree live and long after: the trace id comes from the session id, each span id from the
 * session id and the record number that opens the span. A collector that gets a span twice
 * sees the same ids and can drop the copy; the live exporter uses them to send none twice.
 * `gen_ai.conversation.id` is the session id on every span. Prompt and output contents are
 * left out unless `contents` is set (the conventions treat them as opt-in).
 */
import { createHash } from "node:crypto";
import type { OmniMessage } from "@penguin/omnimessage";

/** One trace record as the projection reads it: its 1-based number in the session, and the message. */
export interface TraceRecord {
  n: number;
  message: OmniMessage;
}

export type SpanAttributeValue = string | number | boolean | string[];

export interface SessionSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: "internal" | "client";
  /** Epoch milliseconds, from the records' timestamps. */
  startMs: number;
  endMs: number;
  attributes: Record<string, SpanAttributeValue>;
  status: { code: "ok" | "error" | "unset"; message?: string };
}

export interface SpanTreeOptions {
  /** Put prompts, answers, tool arguments and results on the spans (default false). */
  contents?: boolean;
  /** A remote parent for the tasks (a `traceparent` the task arrived with): its trace id and span id. */
  parentFor?: (taskRecord: number) => { traceId: string; spanId: string } | undefined;
  /** The agent's name on invoke_agent spans (default "penguin"). */
  agentName?: string;
}

/** The GenAI attribute names used here (tests check each against @opentelemetry/semantic-conventions). */
export const GEN_AI = {
  operationName: "gen_ai.operation.name",
  conversationId: "gen_ai.conversation.id",
  providerName: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  agentName: "gen_ai.agent.name",
  agentId: "gen_ai.agent.id",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  finishReasons: "gen_ai.response.finish_reasons",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolArguments: "gen_ai.tool.call.arguments",
  toolResult: "gen_ai.tool.call.result",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
} as const;

const hex = (text: string, chars: number): string => createHash("sha256").update(text).digest("hex").slice(0, chars);

export const traceIdOf = (sessionId: string): string => hex(`penguin-trace:${sessionId}`, 32);
export const spanIdOf = (sessionId: string, kind: string, n: number): string => hex(`penguin-span:${sessionId}:${kind}:${n}`, 16);

const timeOf = (m: OmniMessage): number => {
  const t = Date.parse(m.timestamp);
  return Number.isNaN(t) ? 0 : t;
};

function isHumanInput(m: OmniMessage): boolean {
  if (m.type !== "model_msg") return false;
  const p = m.payload;
  if (p.type !== "text" || p.role !== "user") return false;
  return p.sender === undefined && !p.text.startsWith("[user_steering]");
}

/** A W3C traceparent (`00-<trace id>-<span id>-<flags>`) as ids; undefined when it is not one. */
export function parseTraceparent(header: string): { traceId: string; spanId: string } | undefined {
  const match = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(header.trim());
  if (match === null || match[1] === "ff" || /^0+$/.test(match[2]!) || /^0+$/.test(match[3]!)) return undefined;
  return { traceId: match[2]!, spanId: match[3]! };
}

/** The span tree of one session's records (top-level ones: child sessions have their own trees). */
export function sessionSpans(records: readonly TraceRecord[], options: SpanTreeOptions = {}): SessionSpan[] {
  const meta = records.find((r) => r.message.type === "session_meta")?.message;
  if (meta === undefined || meta.type !== "session_meta") return [];
  const { session_id: sessionId, provider, model_id: model } = meta.payload;
  const common = { [GEN_AI.conversationId]: sessionId };
  const spans: SessionSpan[] = [];
  let traceId = traceIdOf(sessionId);
  let task: SessionSpan | undefined;
  let chat: SessionSpan | undefined;
  let lastChat: SessionSpan | undefined;
  let chatOutput: string[] = [];
  let compaction: SessionSpan | undefined;
  const tools = new Map<string, SessionSpan>();
  /** A `traceparent` recorded for the next task. */
  let remoteParent: { traceId: string; spanId: string } | undefined;

  const open = (kind: string, n: number, at: number, name: string, attributes: Record<string, SpanAttributeValue>, spanKind: SessionSpan["kind"] = "internal"): SessionSpan => {
    const span: SessionSpan = {
      traceId,
      spanId: spanIdOf(sessionId, kind, n),
      ...(task === undefined || kind === "task" ? {} : { parentSpanId: task.spanId }),
      name,
      kind: spanKind,
      startMs: at,
      endMs: at,
      attributes: { ...common, ...attributes },
      status: { code: "unset" },
    };
    spans.push(span);
    return span;
  };
  const closeTask = (at: number): void => {
    if (task === undefined) return;
    for (const span of [chat, compaction, ...tools.values()]) if (span !== undefined) span.endMs = Math.max(span.startMs, at);
    task.endMs = Math.max(task.startMs, at);
    task = undefined;
    chat = undefined;
    compaction = undefined;
    tools.clear();
  };

  // A task opens at the request that carries the human's input (the engine records the
  // request_begin just before the input), or at the input itself when no request precedes it.
  const top = records.filter((r) => r.message.origin === undefined || r.message.origin.length === 0);
  const taskStarts = new Map<number, TraceRecord>();
  top.forEach((r, i) => {
    if (!isHumanInput(r.message) || (i > 0 && isHumanInput(top[i - 1]!.message))) return;
    const before = top[i - 1]?.message;
    const opener = before !== undefined && before.type === "event_msg" && before.payload.type === "request_begin" ? top[i - 1]! : r;
    taskStarts.set(opener.n, r);
  });

  for (const { n, message: m } of top) {
    const at = timeOf(m);
    if (task !== undefined) task.endMs = Math.max(task.endMs, at);
    if (m.type === "event_msg" && m.payload.type === "trace_context") {
      remoteParent = parseTraceparent(m.payload.traceparent);
      continue;
    }
    const input = taskStarts.get(n);
    if (input !== undefined) {
      closeTask(at);
      const parent = remoteParent ?? options.parentFor?.(input.n);
      remoteParent = undefined;
      traceId = parent?.traceId ?? traceIdOf(sessionId);
      const agent = options.agentName ?? "penguin";
      task = open("task", n, at, `invoke_agent ${agent}`, {
        [GEN_AI.operationName]: "invoke_agent",
        [GEN_AI.agentName]: agent,
        [GEN_AI.providerName]: provider,
        [GEN_AI.requestModel]: model,
      });
      if (parent !== undefined) task.parentSpanId = parent.spanId;
      const text = input.message.type === "model_msg" && input.message.payload.type === "text" ? input.message.payload.text : undefined;
      if (options.contents === true && text !== undefined) task.attributes[GEN_AI.inputMessages] = JSON.stringify([{ role: "user", parts: [{ type: "text", content: text }] }]);
    }
    if (task === undefined) continue;
    if (m.type === "model_msg") {
      const p = m.payload;
      if (p.type === "tool_call") {
        const span = open("tool", n, at, `execute_tool ${p.name}`, { [GEN_AI.operationName]: "execute_tool", [GEN_AI.toolName]: p.name, [GEN_AI.toolCallId]: p.tool_call_id, [GEN_AI.toolType]: "function" });
        if (options.contents === true) span.attributes[GEN_AI.toolArguments] = p.arguments;
        tools.set(p.tool_call_id, span);
      } else if (p.type === "tool_call_output") {
        const span = tools.get(p.tool_call_id);
        if (span !== undefined) {
          span.endMs = Math.max(span.startMs, at);
          const stop = p.stop_reason ?? "completed";
          span.status = stop === "completed" ? { code: "ok" } : { code: "error", message: stop };
          if (options.contents === true) span.attributes[GEN_AI.toolResult] = p.output;
          tools.delete(p.tool_call_id);
        }
      } else if (p.type === "text" && p.role === "assistant" && chat !== undefined) {
        chatOutput.push(p.text);
      }
      continue;
    }
    if (m.type !== "event_msg") continue;
    const e = m.payload;
    switch (e.type) {
      case "request_begin":
        chatOutput = [];
        chat = open("chat", n, at, `chat ${model}`, { [GEN_AI.operationName]: "chat", [GEN_AI.providerName]: provider, [GEN_AI.requestModel]: model }, "client");
        if (compaction !== undefined) chat.parentSpanId = compaction.spanId;
        break;
      case "request_end":
        if (chat !== undefined) {
          chat.endMs = Math.max(chat.startMs, at);
          chat.attributes[GEN_AI.finishReasons] = [e.status];
          chat.status = e.status === "completed" ? { code: "ok" } : e.status === "aborted" ? { code: "unset" } : { code: "error", message: e.status };
          if (options.contents === true && chatOutput.length > 0) chat.attributes[GEN_AI.outputMessages] = JSON.stringify([{ role: "assistant", parts: chatOutput.map((text) => ({ type: "text", content: text })) }]);
          lastChat = chat;
          chat = undefined;
        }
        break;
      case "token_usage":
        if (lastChat !== undefined && lastChat.attributes[GEN_AI.outputTokens] === undefined) {
          lastChat.attributes[GEN_AI.inputTokens] = Math.max(0, e.request.total - e.request.output);
          lastChat.attributes[GEN_AI.outputTokens] = e.request.output;
        }
        break;
      case "compaction_begin":
        compaction = open("compaction", n, at, "compaction", { "penguin.compaction.reason": e.reason, "penguin.compaction.mode": e.mode });
        break;
      case "compaction_end":
        if (compaction !== undefined) {
          compaction.endMs = Math.max(compaction.startMs, at);
          compaction = undefined;
        }
        break;
      case "subagent": {
        const span = open("subagent", n, at, "invoke_agent subagent", { [GEN_AI.operationName]: "invoke_agent", [GEN_AI.agentId]: e.session_id, "penguin.subagent.session_id": e.session_id });
        const call = [...tools.values()].at(-1);
        if (call !== undefined) span.parentSpanId = call.spanId;
        break;
      }
      case "hook_run":
        // Hooks are not GenAI operations; they show as spans of their own under the task.
        open("hook", n, at, `hook ${e.hook_event}`, { "penguin.hook.event": e.hook_event, "penguin.hook.outcome": e.outcome, ...(e.decision === undefined ? {} : { "penguin.hook.decision": e.decision }) });
        break;
      case "abort":
        task.status = { code: "error", message: e.reason ?? "aborted" };
        break;
      default:
        break;
    }
  }
  closeTask(task?.endMs ?? 0);
  return spans;
}
