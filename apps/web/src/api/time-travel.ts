/**
 * Time travel over HTTP: the session's state after one event (`GET S/state?at=`, what
 * `penguin inspect --at` prints, as JSON) and a fork from any event (`POST S/fork {at}`).
 * `at` is always sent as a trace position `NNN:LLLLLL`, which the server resolves the same
 * way as a count but which stays right however the page numbered the events it loaded.
 *
 * The answer is read field by field into `SessionState` (missing parts become empty), so the
 * state panel and the diff never see a half-shaped object.
 */
import { parseEnvelope, type OmniMessage } from "@penguin/omnimessage";
import { get, post, seg, withQuery } from "./http";
import { arr, asRecord, bool, isRecord, num, str, type Json } from "./read";
import { sessionOf } from "./sessions";
import type { SessionSummary } from "./types";

export interface TokenTotals {
  cacheRead: number;
  cacheWrite: number;
  output: number;
  total: number;
}

export interface StateToolCall {
  toolCallId: string;
  name: string;
  arguments: string;
}

/**
 * What the server cut of a record it answered (`payload.cut`: a text over 4 MiB keeps its head):
 * the bytes left out, and the record's position, where `recordUrl` gives it whole.
 */
export interface RecordCut {
  bytes: number;
  at: string;
}

/** The cut marker of a raw envelope as the server sent it; undefined for a whole record. */
export function recordCutOf(raw: unknown): RecordCut | undefined {
  const cut = asRecord(asRecord(asRecord(raw).payload).cut);
  const bytes = num(cut, "bytes");
  const at = str(cut, "at");
  return bool(cut, "truncated") === true && bytes !== undefined && at !== undefined && /^\d{3}:\d{6}$/.test(at) ? { bytes, at } : undefined;
}

/** Where one record of a session is served whole, as its trace line's JSON. */
export function recordUrl(sessionId: string, at: string): string {
  return `/api/sessions/${seg(sessionId)}/records/${at}`;
}

export interface SessionState {
  sessionId: string;
  at: { n: number; position: string; record: string };
  records: number;
  settings: Record<string, string | number>;
  forkedFrom: { sessionId: string; at: string } | undefined;
  nextContext: OmniMessage[];
  /** For each message of `nextContext`, what the server cut of it (undefined: whole). */
  contextCuts: (RecordCut | undefined)[];
  pendingSummary: string | undefined;
  openToolCalls: StateToolCall[];
  pendingApprovals: StateToolCall[];
  steering: string[];
  steeringQueue: { id: string; text: string }[];
  running: boolean;
  usage: { session: TokenTotals; lastRequest: TokenTotals | undefined };
  turns: number;
  requests: number;
  compaction: { segment: number; completed: number; inProgress: boolean };
  goal: { objective?: string; budget?: number; rounds?: number; outcome?: string } | undefined;
  filesRead: string[];
  filesWritten: string[];
}

function tokensOf(v: unknown): TokenTotals | undefined {
  if (!isRecord(v)) return undefined;
  return { cacheRead: num(v, "cache_read") ?? 0, cacheWrite: num(v, "cache_write") ?? 0, output: num(v, "output") ?? 0, total: num(v, "total") ?? 0 };
}

function callsOf(v: unknown[]): StateToolCall[] {
  return v.flatMap((raw) => {
    const o = asRecord(raw);
    const toolCallId = str(o, "tool_call_id");
    return toolCallId === undefined ? [] : [{ toolCallId, name: str(o, "name") ?? "", arguments: str(o, "arguments") ?? "" }];
  });
}

function settingsOf(o: Json): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(o)) if (typeof value === "string" || typeof value === "number") out[key] = value;
  return out;
}

function goalOf(v: unknown): SessionState["goal"] {
  if (!isRecord(v)) return undefined;
  const goal: NonNullable<SessionState["goal"]> = {};
  const objective = str(v, "objective");
  const budget = num(v, "budget");
  const rounds = num(v, "rounds");
  const outcome = str(v, "outcome");
  if (objective !== undefined) goal.objective = objective;
  if (budget !== undefined) goal.budget = budget;
  if (rounds !== undefined) goal.rounds = rounds;
  if (outcome !== undefined) goal.outcome = outcome;
  return goal;
}

export function sessionStateOf(raw: unknown): SessionState {
  const o = asRecord(raw);
  const at = asRecord(o.at);
  const settings = asRecord(o.settings);
  const forked = asRecord(settings.forkedFrom);
  const forkedSession = str(forked, "session_id");
  const usage = asRecord(o.usage);
  const compaction = asRecord(o.compaction);
  const strings = (key: string) => arr(o, key).filter((s): s is string => typeof s === "string");
  const context = arr(o, "nextContext").flatMap((m) => {
    const message = parseEnvelope(m);
    return message === undefined ? [] : [{ message, cut: recordCutOf(m) }];
  });
  return {
    sessionId: str(o, "sessionId") ?? "",
    at: { n: num(at, "n") ?? 0, position: str(at, "position") ?? "", record: str(at, "record") ?? "" },
    records: num(o, "records") ?? 0,
    settings: settingsOf(settings),
    forkedFrom: forkedSession === undefined ? undefined : { sessionId: forkedSession, at: str(forked, "at") ?? "" },
    nextContext: context.map((c) => c.message),
    contextCuts: context.map((c) => c.cut),
    pendingSummary: str(o, "pendingSummary"),
    openToolCalls: callsOf(arr(o, "openToolCalls")),
    pendingApprovals: callsOf(arr(o, "pendingApprovals")),
    steering: strings("steering"),
    steeringQueue: arr(o, "steeringQueue").flatMap((raw) => {
      const q = asRecord(raw);
      const id = str(q, "id");
      return id === undefined ? [] : [{ id, text: str(q, "text") ?? "" }];
    }),
    running: bool(o, "running") ?? false,
    usage: { session: tokensOf(usage.session) ?? { cacheRead: 0, cacheWrite: 0, output: 0, total: 0 }, lastRequest: tokensOf(usage.lastRequest) },
    turns: num(o, "turns") ?? 0,
    requests: num(o, "requests") ?? 0,
    compaction: { segment: num(compaction, "segment") ?? 1, completed: num(compaction, "completed") ?? 0, inProgress: bool(compaction, "inProgress") ?? false },
    goal: goalOf(o.goal),
    filesRead: strings("filesRead"),
    filesWritten: strings("filesWritten"),
  };
}

/** The state after the event at `position` (`NNN:LLLLLL`). */
export async function getSessionState(sessionId: string, position: string, signal?: AbortSignal): Promise<SessionState> {
  return sessionStateOf(await get(withQuery(`/api/sessions/${seg(sessionId)}/state`, { at: position }), signal));
}

/** Starts a new session from the state after the event at `position`; answers the new session. */
export async function forkSessionAt(sessionId: string, position: string): Promise<SessionSummary> {
  const s = sessionOf(await post(`/api/sessions/${seg(sessionId)}/fork`, { at: position }));
  if (s === undefined) throw new Error("the server did not return the forked session's id");
  return s;
}
