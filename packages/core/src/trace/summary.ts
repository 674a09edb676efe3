/**
 * A session's trace, summarized: its tasks (a human prompt and what followed), each task's
 * requests (status, attempt, retry wait, usage, the tool calls they made with their
 * approval and outcome), compactions, and session totals and status. The input is the
 * envelopes core's reader parsed from the session's files, oldest file first.
 *
 * The rules follow the engine's trace format (core/src/engine/context-engine.ts):
 * - a human prompt (a user text without sender) is traced inside the window of the request
 *   that sends it, right after `request_begin`, so a new window is attached to a task only
 *   once its first record shows whether a new task starts; steering is a user text in the
 *   `[user_steering]` marker;
 * - requests between `compaction_begin` and `compaction_end` are the compaction's own and
 *   are counted there, not as turns;
 * - token usage is summed from `token_usage.request` (the `session` field is a running
 *   snapshot and is never summed);
 * - a task ends `aborted` on an `abort` caused by the user, `failed` on any other `abort`,
 *   `running?` when its last request has no `request_end` (a live session, or a crash), and
 *   `done` otherwise.
 *
 * Pure and free of I/O; shared by the CLI (`sessions`, `trace show`) and the server
 * (session list, trace analysis), so they report the same numbers.
 */
import type {
  ApprovalDecision,
  CompactionMode,
  CompactionReason,
  OmniMessage,
  SessionMetaPayload,
  StopReason,
  TokenCounts,
} from "@penguin/omnimessage";
import { addTokens, startsWithMarker, zeroTokens } from "@penguin/omnimessage";

export type TaskOutcome = "done" | "aborted" | "failed" | "running?";
export type SessionStatus = TaskOutcome | "empty";

export interface ToolCallSummary {
  id: string;
  name: string;
  arguments: string;
  decision?: ApprovalDecision;
  outputStatus?: StopReason;
  output?: string;
}

export interface RequestSummary {
  /** `open` while no request_end was recorded. */
  status: StopReason | "open";
  attempt?: number;
  retryInMs?: number;
  error?: string;
  usage?: TokenCounts;
  toolCalls: ToolCallSummary[];
}

export interface CompactionSummary {
  reason: CompactionReason;
  mode: CompactionMode;
  contextTokens: number;
  status: StopReason | "open";
  error?: string;
}

export interface TaskSummary {
  /** The human prompt; undefined for work recorded before any prompt (a resumed carry-over). */
  prompt: string | undefined;
  requests: RequestSummary[];
  steering: string[];
  compactions: CompactionSummary[];
  abort?: string;
  status: TaskOutcome;
}

export interface TraceSummary {
  meta: SessionMetaPayload | undefined;
  startedAt: string | undefined;
  endedAt: string | undefined;
  tasks: TaskSummary[];
  usage: TokenCounts;
  requests: number;
  /** Requests that ended with a retry planned. */
  retries: number;
  toolCalls: number;
  compactions: number;
  status: SessionStatus;
}

function newTask(prompt: string | undefined): TaskSummary {
  return { prompt, requests: [], steering: [], compactions: [], status: "done" };
}

export function summarizeTrace(messages: readonly OmniMessage[]): TraceSummary {
  let meta: SessionMetaPayload | undefined;
  const tasks: TaskSummary[] = [];
  const calls = new Map<string, ToolCallSummary>();
  let usage = zeroTokens();
  let startedAt: string | undefined;
  let endedAt: string | undefined;
  let task: TaskSummary | undefined;
  let request: RequestSummary | undefined;
  let unattached: RequestSummary | undefined;
  let compaction: CompactionSummary | undefined;

  const currentTask = (): TaskSummary => {
    if (task === undefined) {
      task = newTask(undefined);
      tasks.push(task);
    }
    return task;
  };
  /** A window whose first record is not a new prompt belongs to the current task. */
  const attach = (): void => {
    if (unattached === undefined) return;
    currentTask().requests.push(unattached);
    unattached = undefined;
  };

  for (const m of messages) {
    if (m.origin !== undefined && m.origin.length > 0) continue;
    startedAt ??= m.timestamp;
    endedAt = m.timestamp;
    if (m.type === "session_meta") {
      meta ??= m.payload;
      continue;
    }
    if (m.type === "model_msg") {
      const p = m.payload;
      if (compaction !== undefined) continue;
      if (p.type === "text" && p.role === "user") {
        if (p.sender !== undefined) continue;
        if (startsWithMarker(p.text, "user_steering")) {
          attach();
          currentTask().steering.push(p.text);
          continue;
        }
        task = newTask(p.text);
        tasks.push(task);
        attach();
        continue;
      }
      attach();
      if (p.type === "tool_call") {
        const call: ToolCallSummary = { id: p.tool_call_id, name: p.name, arguments: p.arguments };
        calls.set(call.id, call);
        request?.toolCalls.push(call);
      } else if (p.type === "tool_call_output") {
        const call = calls.get(p.tool_call_id);
        if (call !== undefined) {
          call.output = p.output;
          call.outputStatus = p.stop_reason ?? "completed";
        }
      }
      continue;
    }
    const e = m.payload;
    switch (e.type) {
      case "request_begin":
        if (compaction !== undefined) break;
        attach();
        request = { status: "open", toolCalls: [] };
        unattached = request;
        break;
      case "request_end":
        if (compaction !== undefined || request === undefined) break;
        attach();
        request.status = e.status;
        if (e.attempt !== undefined) request.attempt = e.attempt;
        if (e.retry_in_ms !== undefined) request.retryInMs = e.retry_in_ms;
        if (e.error_message !== undefined) request.error = e.error_message;
        break;
      case "token_usage":
        usage = addTokens(usage, e.request);
        if (compaction === undefined && request !== undefined) request.usage = { ...e.request };
        break;
      case "approval_decision": {
        const call = calls.get(e.tool_call_id);
        if (call !== undefined) call.decision = e.decision;
        break;
      }
      case "abort":
        attach();
        currentTask().abort = e.reason ?? "aborted";
        break;
      case "compaction_begin":
        attach();
        compaction = { reason: e.reason, mode: e.mode, contextTokens: e.context, status: "open" };
        currentTask().compactions.push(compaction);
        break;
      case "compaction_end":
        if (compaction !== undefined) {
          compaction.status = e.status;
          if (e.error_message !== undefined) compaction.error = e.error_message;
        }
        compaction = undefined;
        break;
      default:
        break;
    }
  }
  attach();

  for (const t of tasks) t.status = taskStatus(t);
  const allRequests = tasks.flatMap((t) => t.requests);
  const last = tasks[tasks.length - 1];
  return {
    meta,
    startedAt,
    endedAt,
    tasks,
    usage,
    requests: allRequests.length,
    retries: allRequests.filter((r) => r.retryInMs !== undefined).length,
    toolCalls: allRequests.reduce((n, r) => n + r.toolCalls.length, 0),
    compactions: tasks.reduce((n, t) => n + t.compactions.length, 0),
    status: last === undefined ? "empty" : last.status,
  };
}

function taskStatus(t: TaskSummary): TaskOutcome {
  if (t.abort !== undefined) return t.abort.startsWith("aborted") ? "aborted" : "failed";
  const last = t.requests[t.requests.length - 1];
  if (last !== undefined && last.status === "open") return "running?";
  if (t.compactions.some((c) => c.status === "open")) return "running?";
  return "done";
}
