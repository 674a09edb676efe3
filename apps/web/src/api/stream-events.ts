/**
 * Decoding SSE frames into what the app understands: OmniMessages (default events, checked
 * with the protocol's `decodeEnvelope`, the browser entry's; a frame that fails is skipped
 * with a console warning naming the bad field) and server events (`event: server_event`, data
 * `{type, …}`), each narrowed field by field here so no page casts a loose object.
 *
 * Unknown server event types decode to `{type: "other"}` and are ignored by callers, so a
 * newer server never breaks an older page.
 */
import { decodeEnvelope, type GoalOutcome, type OmniMessage, type ToolCallPayload } from "@penguin/omnimessage";
import type { SseFrame } from "./sse";
import type { PendingFollowUp, SteeringNote, TaskInputItem, TaskState } from "./types";

export type ServerEvent =
  | { type: "task_state"; state: TaskState; queued: number; pendingFollowUps: PendingFollowUp[]; pendingSteering: SteeringNote[] }
  | { type: "approval_request"; toolCallId: string; toolCall: ToolCallPayload | undefined }
  | { type: "approval_resolved"; toolCallId: string; decision: string }
  | { type: "session_title"; sessionId: string | undefined; title: string }
  | { type: "resync_required" }
  | { type: "credentials_updated" }
  | { type: "task_error"; message: string }
  | { type: "session_state"; sessionId: string; state: TaskState }
  | { type: "session_created"; sessionId: string }
  | { type: "session_deleted"; sessionId: string }
  | { type: "session_updated"; sessionId: string }
  | { type: "goal_started"; objective: string; budget: number | null }
  | { type: "goal_round"; round: number; used: number }
  | { type: "goal_finished"; outcome: GoalOutcome; rounds: number; tokensUsed: number }
  | { type: "session_row"; position: number; row: SessionRow }
  | { type: "usage_totals"; position: number; projectId: string; added: UsageAdded }
  | { type: "other"; name: string };

/** A sessions-projection row as `/api/events` carries it (`session_row`, services/projection-feed.ts). */
export interface SessionRow {
  sessionId: string;
  projectId: string;
  agentId: string;
  title: string | null;
  archived: boolean;
  forkedFrom: string | null;
  provider: string | null;
  modelId: string | null;
  workspace: string | null;
  source: string;
  createdAt: number;
  lastEventAt: number;
  status: string;
}

/** What a project's usage totals grew by (`usage_totals.added`): the numbers the Usage page adds. */
export type UsageAdded = Partial<Record<"cacheRead" | "cacheWrite" | "output" | "total" | "requests" | "failures" | "cost", number>>;

const USAGE_NUMBERS = ["cacheRead", "cacheWrite", "output", "total", "requests", "failures", "cost"] as const;

function sessionRowOf(v: unknown): SessionRow | undefined {
  if (!isRecord(v)) return undefined;
  const { sessionId, projectId, agentId, createdAt, lastEventAt } = v;
  if (typeof sessionId !== "string" || typeof projectId !== "string" || typeof agentId !== "string") return undefined;
  if (typeof createdAt !== "number" || typeof lastEventAt !== "number") return undefined;
  const orNull = (x: unknown) => (typeof x === "string" ? x : null);
  return {
    sessionId,
    projectId,
    agentId,
    title: orNull(v.title),
    archived: v.archived === true,
    forkedFrom: orNull(v.forkedFrom),
    provider: orNull(v.provider),
    modelId: orNull(v.modelId),
    workspace: orNull(v.workspace),
    source: typeof v.source === "string" ? v.source : "",
    createdAt,
    lastEventAt,
    status: typeof v.status === "string" ? v.status : "",
  };
}

function usageAddedOf(v: unknown): UsageAdded {
  const out: UsageAdded = {};
  if (!isRecord(v)) return out;
  for (const key of USAGE_NUMBERS) {
    const n = v[key];
    if (typeof n === "number" && Number.isFinite(n)) out[key] = n;
  }
  return out;
}

export type StreamEvent =
  | { kind: "message"; id: string | undefined; message: OmniMessage }
  | { kind: "server"; id: string | undefined; event: ServerEvent };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const count = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined);

const GOAL_OUTCOMES: readonly GoalOutcome[] = ["complete", "blocked", "budget_limited", "aborted"];

function taskStateOf(v: unknown): TaskState | undefined {
  return v === "idle" || v === "running" || v === "compacting" ? v : undefined;
}

function inputItemOf(v: unknown): TaskInputItem | undefined {
  if (!isRecord(v)) return undefined;
  if (v.type === "text" && typeof v.text === "string") return { type: "text", text: v.text };
  if (v.type === "image_url" && typeof v.imageUrl === "string") return { type: "image_url", imageUrl: v.imageUrl };
  if (v.type === "file" && typeof v.fileName === "string" && typeof v.dataUrl === "string") {
    return { type: "file", fileName: v.fileName, dataUrl: v.dataUrl };
  }
  return undefined;
}

export function inputItemsOf(v: unknown): TaskInputItem[] {
  return Array.isArray(v) ? v.flatMap((i) => inputItemOf(i) ?? []) : [];
}

function toolCallOf(v: unknown): ToolCallPayload | undefined {
  if (!isRecord(v)) return undefined;
  const { name, tool_call_id } = v;
  if (typeof name !== "string" || typeof tool_call_id !== "string") return undefined;
  const args = v.arguments;
  return { type: "tool_call", role: "assistant", name, tool_call_id, arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}) };
}

/** Narrows the JSON data of a `server_event` frame. */
export function parseServerEvent(data: unknown): ServerEvent | undefined {
  if (!isRecord(data) || typeof data.type !== "string") return undefined;
  const sessionId = str(data.sessionId);
  switch (data.type) {
    case "task_state": {
      const state = taskStateOf(data.state);
      if (state === undefined) return undefined;
      const followUps = Array.isArray(data.pendingFollowUps) ? data.pendingFollowUps : [];
      const steering = Array.isArray(data.pendingSteering) ? data.pendingSteering : [];
      return {
        type: "task_state",
        state,
        queued: typeof data.queued === "number" ? data.queued : followUps.length,
        pendingFollowUps: followUps.flatMap((f) => (isRecord(f) && typeof f.id === "string" ? [{ id: f.id, input: inputItemsOf(f.input) }] : [])),
        pendingSteering: steering.flatMap((s) => (isRecord(s) && typeof s.id === "string" && typeof s.text === "string" ? [{ id: s.id, text: s.text }] : [])),
      };
    }
    case "approval_request": {
      const toolCallId = str(data.toolCallId);
      return toolCallId === undefined ? undefined : { type: "approval_request", toolCallId, toolCall: toolCallOf(data.toolCall) };
    }
    case "approval_resolved": {
      const toolCallId = str(data.toolCallId);
      return toolCallId === undefined ? undefined : { type: "approval_resolved", toolCallId, decision: str(data.decision) ?? "" };
    }
    case "session_title": {
      const title = str(data.title);
      return title === undefined ? undefined : { type: "session_title", sessionId, title };
    }
    case "resync_required":
    // The user feed's answer to a reconnect it could not replay (after a server restart): the
    // current read-model rows. The page's list comes from the sessions API, so it reloads.
    case "projection_snapshot":
      return { type: "resync_required" };
    case "credentials_updated":
      return { type: "credentials_updated" };
    case "session_row": {
      const row = sessionRowOf(data.session);
      // A row this client cannot read is ignored like an unknown event (the list stays as it is).
      return row === undefined ? { type: "other", name: "session_row" } : { type: "session_row", position: count(data.position) ?? 0, row };
    }
    case "usage_totals": {
      const projectId = str(data.projectId);
      return projectId === undefined ? undefined : { type: "usage_totals", position: count(data.position) ?? 0, projectId, added: usageAddedOf(data.added) };
    }
    case "task_error":
      return { type: "task_error", message: str(data.message) ?? "the task failed" };
    case "session_state": {
      const state = taskStateOf(data.state);
      return sessionId === undefined || state === undefined ? undefined : { type: "session_state", sessionId, state };
    }
    case "session_created":
    case "session_deleted":
    case "session_updated": {
      const id = sessionId ?? (isRecord(data.session) ? str(data.session.id) ?? str(data.session.sessionId) : undefined);
      return id === undefined ? undefined : { type: data.type, sessionId: id };
    }
    case "goal_started": {
      const objective = str(data.objective);
      // null (or -1) is "no limit"
      const budget = count(data.budget) ?? null;
      return objective === undefined ? undefined : { type: "goal_started", objective, budget };
    }
    case "goal_round": {
      const round = count(data.round);
      return round === undefined ? undefined : { type: "goal_round", round, used: count(data.used) ?? 0 };
    }
    case "goal_finished": {
      const outcome = GOAL_OUTCOMES.find((o) => o === data.outcome);
      const rounds = count(data.rounds);
      return outcome === undefined || rounds === undefined ? undefined : { type: "goal_finished", outcome, rounds, tokensUsed: count(data.tokensUsed) ?? 0 };
    }
    default:
      return { type: "other", name: data.type };
  }
}

/** Decodes one frame; undefined for frames that are not JSON or not a known shape. */
export function decodeFrame(frame: SseFrame): StreamEvent | undefined {
  let data: unknown;
  try {
    data = JSON.parse(frame.data);
  } catch {
    return undefined;
  }
  if (frame.event === "server_event") {
    const event = parseServerEvent(data);
    return event === undefined ? undefined : { kind: "server", id: frame.id, event };
  }
  if (frame.event !== "message") return undefined;
  const decoded = decodeEnvelope(data);
  if (!decoded.ok) {
    // Skipped, not drawn; the console says which field was wrong (a newer or broken server).
    console.warn(`penguin: skipped an SSE message (id ${frame.id ?? "none"}) that is not an OmniMessage: ${decoded.error}`);
    return undefined;
  }
  return { kind: "message", id: frame.id, message: decoded.message as OmniMessage };
}
