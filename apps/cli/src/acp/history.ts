/**
 * What `session/load` and `session/list` read of the traces: a session's messages across its
 * rotated files, and one line per session (id, workspace, title, last activity), a page at a
 * time behind an opaque cursor. Straight from
 * the trace files (core's reader), the one write model, so a session run by `penguin run`, the
 * server or another editor is listed and loadable like one started here.
 */
import { realpathSync } from "node:fs";
import type { Agent } from "@penguin/core";
import type { OmniMessage } from "@penguin/omnimessage";

export async function sessionMessages(agent: Agent, sessionId: string): Promise<OmniMessage[]> {
  const { readTraceFile, sessionTraceFiles } = await import("@penguin/core");
  return sessionTraceFiles(agent.paths, sessionId).flatMap((ref) => readTraceFile(ref.file).messages);
}

/** The workspace a session works in, as its first trace file's session_meta records it; undefined when there is none. */
export async function recordedWorkspace(agent: Agent, sessionId: string): Promise<string | undefined> {
  const { readTraceFile, sessionTraceFiles } = await import("@penguin/core");
  const first = sessionTraceFiles(agent.paths, sessionId)[0];
  const meta = first === undefined ? undefined : readTraceFile(first.file).messages[0];
  return meta?.type === "session_meta" ? meta.payload.workspace : undefined;
}

/** Whether `cwd` (as an editor gives it, maybe through a symlink) is the recorded workspace. */
export function isRecordedWorkspace(cwd: string, workspace: string): boolean {
  return asRecorded(cwd) === workspace;
}

export interface ListedSession {
  sessionId: string;
  cwd: string;
  title: string | null;
  updatedAt: string;
}

/** A folder as sessions record their workspace: its real path (the editor may give a symlinked one). */
function asRecorded(cwd: string): string {
  try {
    return realpathSync(cwd);
  } catch {
    return cwd;
  }
}

/** Sessions per `session/list` page; the rest is behind `nextCursor`. */
export const LIST_PAGE_SIZE = 50;

/** A bad `cursor`: the connection answers it as invalid params with this message. */
export class InvalidListCursor extends Error {}

/** Where a page ended: the last session's activity time and id, in the list's order. */
interface ListPosition {
  mtimeMs: number;
  sessionId: string;
}

/** Opaque to the editor (the protocol says so): the position, as base64url JSON. */
function encodeCursor(at: ListPosition): string {
  return Buffer.from(JSON.stringify({ v: 1, m: at.mtimeMs, id: at.sessionId })).toString("base64url");
}

function decodeCursor(cursor: string): ListPosition {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { v?: unknown; m?: unknown; id?: unknown };
    if (parsed.v === 1 && typeof parsed.m === "number" && typeof parsed.id === "string") return { mtimeMs: parsed.m, sessionId: parsed.id };
  } catch {
    // reported below
  }
  throw new InvalidListCursor(`"cursor" ${JSON.stringify(cursor)} is not one this agent gave: send the nextCursor of the previous session/list answer, or none for the first page`);
}

/** The list's order: most recently active first, then by id (so a position is a total order). */
function comesFirst(a: ListPosition, b: ListPosition): boolean {
  return a.mtimeMs !== b.mtimeMs ? a.mtimeMs > b.mtimeMs : a.sessionId > b.sessionId;
}

/**
 * One page of the agent's sessions, most recently active first; with `cwd`, only those working
 * there. Subagents' sessions are their parents'. A `cursor` (a previous page's `nextCursor`)
 * starts after where that page ended, so a session that becomes active meanwhile moves to the
 * first page rather than being shown twice on later ones.
 */
export async function listSessions(agent: Agent, cwdGiven: string | undefined, cursor?: string): Promise<{ sessions: ListedSession[]; nextCursor?: string }> {
  const { listTracedSessions, readTraceFile } = await import("@penguin/core");
  const cwd = cwdGiven === undefined ? undefined : asRecorded(cwdGiven);
  const after = cursor === undefined ? undefined : decodeCursor(cursor);
  const ordered = listTracedSessions(agent.paths).sort((a, b) => (comesFirst(a, b) ? -1 : comesFirst(b, a) ? 1 : 0));
  const listed: ListedSession[] = [];
  let last: ListPosition | undefined;
  for (const summary of ordered) {
    if (after !== undefined && !comesFirst(after, summary)) continue;
    const first = summary.files[0];
    if (first === undefined) continue;
    const messages = readTraceFile(first.file).messages;
    const meta = messages[0];
    if (meta === undefined || meta.type !== "session_meta" || meta.payload.source === "subagent") continue;
    if (cwd !== undefined && meta.payload.workspace !== cwd) continue;
    if (listed.length === LIST_PAGE_SIZE) return { sessions: listed, nextCursor: encodeCursor(last!) };
    let title: string | null = null;
    for (const m of summary.files.length === 1 ? messages : messages.concat(...summary.files.slice(1).map((f) => readTraceFile(f.file).messages))) {
      if (m.type === "event_msg" && m.payload.type === "session_title") title = m.payload.title;
    }
    listed.push({ sessionId: summary.sessionId, cwd: meta.payload.workspace, title, updatedAt: new Date(summary.mtimeMs).toISOString() });
    last = { mtimeMs: summary.mtimeMs, sessionId: summary.sessionId };
  }
  return { sessions: listed };
}
