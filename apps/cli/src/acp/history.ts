/**
 * What `session/load` and `session/list` read of the traces: a session's messages across its
 * rotated files, and one line per session (id, workspace, title, last activity). Straight from
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

/** Every session of the agent, most recently active first; with `cwd`, only those working there. Subagents' sessions are their parents'. */
export async function listSessions(agent: Agent, cwdGiven: string | undefined): Promise<ListedSession[]> {
  const { listTracedSessions, readTraceFile } = await import("@penguin/core");
  const cwd = cwdGiven === undefined ? undefined : asRecorded(cwdGiven);
  const listed: ListedSession[] = [];
  for (const summary of listTracedSessions(agent.paths)) {
    const first = summary.files[0];
    if (first === undefined) continue;
    const messages = readTraceFile(first.file).messages;
    const meta = messages[0];
    if (meta === undefined || meta.type !== "session_meta" || meta.payload.source === "subagent") continue;
    if (cwd !== undefined && meta.payload.workspace !== cwd) continue;
    let title: string | null = null;
    for (const m of summary.files.length === 1 ? messages : messages.concat(...summary.files.slice(1).map((f) => readTraceFile(f.file).messages))) {
      if (m.type === "event_msg" && m.payload.type === "session_title") title = m.payload.title;
    }
    listed.push({ sessionId: summary.sessionId, cwd: meta.payload.workspace, title, updatedAt: new Date(summary.mtimeMs).toISOString() });
  }
  return listed;
}
