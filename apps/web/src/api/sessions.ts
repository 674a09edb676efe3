/**
 * Sessions over HTTP: list, create, read, settings, delete, fork, history, the run controls
 * (task or goal, approval, abort, steer, recall, retry now, compact), the latest goal's state
 * and the session's background processes. SPEC §9, `A/sessions` and `S/…`.
 *
 * Answers are normalised here (a session may be `{id}` or `{sessionId}`, a list bare or
 * wrapped), so the pages see one shape. History envelopes are checked with the protocol's
 * `parseEnvelope`; anything malformed is skipped rather than drawn.
 */
import { parseEnvelope, type OmniMessage } from "@penguin/omnimessage";
import { ApiError, del, get, patch, post, seg, withQuery } from "./http";
import { arr, asRecord, bool, isRecord, listOf, num, oneOf, str, time, type Json } from "./read";
import { inputItemsOf, parseServerEvent } from "./stream-events";
import { decodeAnswer, reportUndecoded } from "./contract-decode";
import { SessionDetailShape, SessionListShape, SessionViewShape } from "@penguin/server/contract-shapes";
import type * as C from "@penguin/server/contract";
import {
  APPROVAL_MODES,
  GOAL_STATUSES,
  THINKING_LEVELS,
  type ApprovalMode,
  type GoalState,
  type ProcessInfo,
  type SessionCommandsInfo,
  type SessionHistory,
  type SessionSummary,
  type TaskInputItem,
  type TaskState,
  type ThinkingLevel,
} from "./types";

const agentPath = (p: string, a: string) => `/api/projects/${seg(p)}/agents/${seg(a)}`;
const sessionPath = (id: string) => `/api/sessions/${seg(id)}`;

function taskStateOf(v: unknown): TaskState {
  return v === "running" || v === "compacting" ? v : "idle";
}

/** A session view that decoded with the contract, as the pages hold it. */
function summaryOfView(v: C.SessionView | C.SessionDetail): SessionSummary {
  const summary: SessionSummary = {
    id: v.id,
    projectId: v.projectId,
    agentId: v.agentId,
    title: v.title,
    provider: v.provider,
    modelId: v.modelId,
    workspace: v.workspace,
    approvalMode: v.approvalMode,
    thinkingLevel: v.thinkingLevel,
    archived: v.archived,
    source: v.source,
    forkedFrom: v.forkedFrom === null ? null : { ...v.forkedFrom },
    replayOf: v.replayOf,
    state: v.state,
    lastActiveAt: v.lastActiveAt,
    createdAt: v.createdAt,
    sandboxNetwork: v.sandboxNetwork,
  };
  if ("sandbox" in v) summary.commands = commandsOf(v.sandbox, v.permissions);
  return summary;
}

/**
 * A session from an answer (a view, a detail, or `{session}`): decoded with the contract
 * (api/contract-decode.ts), else, from a server of another version, read field by field.
 */
export function sessionOf(raw: unknown, fallback: { projectId?: string; agentId?: string } = {}): SessionSummary | undefined {
  const o: Json = isRecord(raw) && isRecord(raw.session) ? raw.session : asRecord(raw);
  const detail = isRecord(o.sandbox) ? decodeAnswer("SessionDetail", SessionDetailShape, o) : undefined;
  if (detail?.ok === true) return summaryOfView(detail.value);
  const view = detail === undefined ? decodeAnswer("SessionView", SessionViewShape, o) : detail;
  if (view.ok) return summaryOfView(view.value);
  reportUndecoded(detail === undefined ? "SessionView" : "SessionDetail", view.error);
  const id = str(o, "id", "sessionId");
  if (id === undefined) return undefined;
  const archivedAt = num(o, "archivedAt");
  const forked = isRecord(o.forkedFrom) ? o.forkedFrom : undefined;
  const forkedSession = forked === undefined ? undefined : str(forked, "sessionId");
  return {
    id,
    projectId: str(o, "projectId") ?? fallback.projectId ?? "",
    agentId: str(o, "agentId") ?? fallback.agentId ?? "",
    title: str(o, "title") ?? null,
    provider: str(o, "provider") ?? null,
    modelId: str(o, "modelId") ?? null,
    workspace: str(o, "workspace") ?? null,
    approvalMode: oneOf(o.approvalMode, APPROVAL_MODES) ?? "allow-all",
    thinkingLevel: oneOf(o.thinkingLevel, THINKING_LEVELS) ?? null,
    archived: bool(o, "archived") ?? (archivedAt !== undefined && archivedAt > 0),
    source: oneOf(o.source, ["subagent", "schedule"] as const) ?? null,
    forkedFrom: forked === undefined || forkedSession === undefined ? null : { sessionId: forkedSession, at: str(forked, "at") ?? "" },
    replayOf: str(o, "replayOf") ?? null,
    state: taskStateOf(o.state ?? o.runState ?? o.taskState),
    lastActiveAt: time(o, "lastActiveAt", "updatedAt") ?? 0,
    createdAt: time(o, "createdAt") ?? 0,
    ...(typeof o.sandboxNetwork === "boolean" ? { sandboxNetwork: o.sandboxNetwork } : {}),
    ...(isRecord(o.sandbox) ? { commands: commandsOf(o.sandbox, asRecord(o.permissions)) } : {}),
  };
}

/** The one-session read's `sandbox` and `permissions`; a permission the answer does not grant counts as refused. */
function commandsOf(sandbox: Json | C.SessionDetail["sandbox"], permissions: Json | C.SessionDetail["permissions"]): SessionCommandsInfo {
  return {
    sandboxAvailable: bool(sandbox, "available") ?? false,
    sandboxed: bool(sandbox, "enabled") ?? false,
    serverNetwork: bool(sandbox, "serverNetwork") ?? false,
    mayControl: bool(permissions as Json, "control") ?? false,
    mayAllowNetwork: bool(permissions as Json, "allowNetwork") ?? false,
  };
}

export type SessionCategory = "active" | "subagent" | "schedule" | "archived";

export async function listSessions(projectId: string, agentId: string, category: SessionCategory = "active"): Promise<SessionSummary[]> {
  const raw = await get(withQuery(`${agentPath(projectId, agentId)}/sessions`, { category }));
  const list = decodeAnswer("SessionList", SessionListShape, raw);
  if (list.ok) return list.value.sessions.map(summaryOfView);
  reportUndecoded("SessionList", list.error);
  return listOf(raw, "sessions").flatMap((s) => sessionOf(s, { projectId, agentId }) ?? []);
}

export interface CreateSessionInput {
  provider?: string;
  modelId?: string;
  workspace?: string;
  approvalMode?: ApprovalMode;
}

export async function createSession(projectId: string, agentId: string, input: CreateSessionInput): Promise<SessionSummary> {
  const raw = await post(`${agentPath(projectId, agentId)}/sessions`, input);
  const s = sessionOf(raw, { projectId, agentId });
  if (s === undefined) throw new Error("the server did not return the new session's id");
  return s;
}

export async function getSession(id: string): Promise<SessionSummary | undefined> {
  return sessionOf(await get(sessionPath(id)));
}

export interface SessionPatch {
  approvalMode?: ApprovalMode;
  /** Allow (owner/admin) or take back (creator/owner/admin) the network for the session's sandboxed commands. */
  sandboxNetwork?: boolean;
  thinkingLevel?: ThinkingLevel;
  archived?: boolean;
  title?: string;
}

export const patchSession = (id: string, body: SessionPatch) => patch(sessionPath(id), body);
export const deleteSession = (id: string) => del(sessionPath(id));

function messagesOf(v: unknown): OmniMessage[] {
  return Array.isArray(v) ? v.flatMap((m) => parseEnvelope(m) ?? []) : [];
}

export interface HistoryQuery {
  /** The newest N trace messages (the server's default and cap is 5000). */
  tailLimit?: number;
  /** `<fileIndex>:<line>`: the page before this position (older history). */
  before?: string;
  limit?: number;
}

function positionOf(v: unknown): string | null {
  if (typeof v === "string") return v;
  const o = asRecord(v);
  const file = num(o, "fileIndex");
  const line = num(o, "line");
  return file === undefined || line === undefined ? null : `${file}:${line}`;
}

export async function getHistory(id: string, signal?: AbortSignal, query: HistoryQuery = {}): Promise<SessionHistory> {
  const o = asRecord(await get(withQuery(`${sessionPath(id)}/messages`, { tailLimit: query.tailLimit, before: query.before, limit: query.limit }), signal));
  const live = isRecord(o.live) ? o.live : undefined;
  const liveCursor = live === undefined ? undefined : str(live, "cursor");
  const pendingApprovals = arr(o, "pendingApprovals").flatMap((raw) => {
    const e = parseServerEvent({ ...asRecord(raw), type: "approval_request" });
    return e?.type === "approval_request" && e.toolCall !== undefined ? [{ toolCallId: e.toolCallId, toolCall: e.toolCall }] : [];
  });
  const history: SessionHistory = {
    messages: messagesOf(o.messages),
    live: live === undefined || liveCursor === undefined ? null : { cursor: liveCursor, fragments: messagesOf(live.fragments) },
    cursor: str(o, "cursor", "lastEventId") ?? null,
    pendingApprovals,
    tracePosition: positionOf(o.tracePosition),
    hasMore: bool(o, "hasMore") ?? false,
  };
  const state = o.state ?? o.taskState;
  if (state === "idle" || state === "running" || state === "compacting") history.state = state;
  return history;
}

export interface TaskOptions {
  queueIfBusy?: boolean;
  thinkingLevel?: ThinkingLevel;
  /** Run the task as a goal; `budget` as typed (`500k`, `2m`, `120000`, `-1`), absent = no limit. The server validates it (400, field `goal.budget`). */
  goal?: { budget?: string };
}

/** 202: `started`, or `queued` with the follow-up id. */
export async function postTask(id: string, input: TaskInputItem[], options: TaskOptions = {}): Promise<{ status: string; followUpId?: string }> {
  const o = asRecord(await post(`${sessionPath(id)}/tasks`, { input, ...options }));
  const followUpId = str(o, "followUpId");
  return followUpId === undefined ? { status: str(o, "status") ?? "started" } : { status: str(o, "status") ?? "queued", followUpId };
}

/**
 * Forks the session after its last completed task (no position: the server finds the cut).
 * 201 answers the new session; 409 `cannot_fork` (no completed task to cut after) or
 * `task_in_progress` / `compacting` arrive as an ApiError with the server's message.
 */
export async function forkSession(id: string): Promise<SessionSummary> {
  const s = sessionOf(await post(`${sessionPath(id)}/fork`, {}));
  if (s === undefined) throw new Error("the server did not return the forked session's id");
  return s;
}

/** The session's latest goal (`GET S/goal`); undefined when it never ran one (404). */
export async function getGoal(id: string, signal?: AbortSignal): Promise<GoalState | undefined> {
  let raw: unknown;
  try {
    raw = await get(`${sessionPath(id)}/goal`, signal);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return undefined;
    throw e;
  }
  const o = asRecord(asRecord(raw).goal);
  const objective = str(o, "objective");
  const status = oneOf(o.status, GOAL_STATUSES);
  if (objective === undefined || status === undefined) return undefined;
  const budget = num(o, "budget");
  return { objective, status, budget: budget === undefined || budget < 0 ? null : budget, used: num(o, "used") ?? 0, rounds: num(o, "rounds") ?? 0 };
}

export const decide = (id: string, toolCallId: string, decision: "allow" | "deny") =>
  post(`${sessionPath(id)}/approvals/${seg(toolCallId)}`, { decision });

export const abortTask = (id: string) => post(`${sessionPath(id)}/abort`, {});

export async function steer(id: string, text: string): Promise<{ id: string | undefined }> {
  const o = asRecord(await post(`${sessionPath(id)}/steer`, { text }));
  return { id: str(o, "id") };
}

/** Recalls a steering note not yet delivered; answers the original text when the server gives it. */
export async function recallSteer(id: string, steerId: string): Promise<string | undefined> {
  const o = asRecord(await del(`${sessionPath(id)}/steer/${seg(steerId)}`));
  return str(o, "text");
}

/** Recalls a queued follow-up; answers the input it was queued with. */
export async function recallFollowUp(id: string, followUpId: string): Promise<TaskInputItem[]> {
  const o = asRecord(await del(`${sessionPath(id)}/follow-ups/${seg(followUpId)}`));
  return inputItemsOf(o.input ?? arr(o, "items"));
}

/** Ends the engine's wait before a retry; true when there was a wait to skip. */
export async function retryNow(id: string): Promise<boolean> {
  const o = asRecord(await post(`${sessionPath(id)}/retry-now`, {}));
  return o.skipped === true;
}

export const compactSession = (id: string) => post(`${sessionPath(id)}/compact`, {});

/** Background commands of the session (SPEC §9 `S/processes`), with `serviceUrl` when one serves a local page. */
export async function listProcesses(id: string): Promise<ProcessInfo[]> {
  return arr(asRecord(await get(`${sessionPath(id)}/processes`)), "processes").flatMap((raw) => {
    const o = asRecord(raw);
    const pid = str(o, "id");
    const status = oneOf(o.status, ["running", "exited", "killed"] as const);
    if (pid === undefined || status === undefined) return [];
    const p: ProcessInfo = { id: pid, command: str(o, "command") ?? "", label: str(o, "label") ?? "", status, started: time(o, "started") ?? 0 };
    const exitCode = o.exitCode;
    if (typeof exitCode === "number" || exitCode === null) p.exitCode = exitCode;
    const url = str(o, "serviceUrl");
    if (url !== undefined) p.serviceUrl = url;
    return [p];
  });
}

export const killProcess = (id: string, pid: string) => post(`${sessionPath(id)}/processes/${seg(pid)}/kill`, {});
export const removeProcess = (id: string, pid: string) => del(`${sessionPath(id)}/processes/${seg(pid)}`);
