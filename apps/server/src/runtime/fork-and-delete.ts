/**
 * The changes that copy or move a session's files: a fork (core copies the trace and the
 * scratchpad under a new id; the index gets the copy, titled `<source title> (n)`) and a
 * delete (traces and scratchpad to the data root's trash, the index row with them), and the
 * 409 `session_busy` refused to either while another process holds the session's lease.
 * Module functions over `ManagerParts`; the SessionManager's methods delegate here.
 */
import { describeLeaseHolder, isPenguinError, liveLeaseHolder, moveSessionToTrash, sessionLeaseFile, sessionTraceFiles, type ForkPosition, type TrashEntry } from "@penguin/core";
import { sessionArchived, sessionTitle } from "@penguin/omnimessage";
import type { SessionRow } from "../db/sessions-store.js";
import { conflict } from "../http/api-error.js";
import { readSessionMeta } from "../services/trace-files.js";
import { busyError } from "./run-control.js";
import type { ManagerParts } from "./session-manager-parts.js";

/**
 * Forks an idle session after a completed task (the last one, or the answer at `position`):
 * core copies the trace and scratchpad under a new id (its settings, approval mode and
 * thinking level included, and a `forked_from` naming the source); the index gets a plain
 * web session with the copy's model and workspace, titled `<source title> (n)` where n is one
 * more than the forks the source has (counted by their `forked_from`), or than the highest
 * number a fork of it is titled with, so a title does not repeat when a fork was deleted.
 * A fork of an archived session is not archived.
 */
export async function forkSession(m: ManagerParts, row: SessionRow, position: ForkPosition | { at: number | string } | undefined): Promise<SessionRow> {
  const hub = m.hubs.get(row.sessionId);
  if (hub?.busy) throw busyError(hub);
  const agent = await m.agent(row.projectId, row.agentId);
  // The source as its trace says before this fork: its title, archive state and forks so far.
  const source = await m.deps.traceInfo(row);
  let forkId: string;
  try {
    forkId = await agent.forkSession({ sessionId: row.sessionId, client: "web", ...(position === undefined ? {} : "at" in position ? { at: position.at } : { position }) });
  } catch (error) {
    if (isPenguinError(error) && error.code === "invalid_argument") throw conflict("cannot_fork", error.message);
    throw error;
  }
  // A fork at a record starts in a workspace of its own holding the files as of then (issue 29:
  // a git worktree or a copy under the agent's workspaces/); none when the source has no checkpoint.
  if (position !== undefined && "at" in position) agent.forkWorkspace({ sourceId: row.sessionId, forkId, at: position.at });
  const stores = m.deps.stores;
  const now = m.deps.now();
  // The copied trace's meta is the fork's truth (the index row may predate it). It is the
  // copy's first line: a fork of a 50 MB session is not decoded whole to find it.
  const first = sessionTraceFiles(agent.paths, forkId)[0];
  const meta = first === undefined ? undefined : readSessionMeta(first.file);
  if (meta === undefined) throw new Error(`fork ${forkId} has no session_meta`);
  stores.sessions.insert({
    sessionId: forkId,
    projectId: row.projectId,
    agentId: row.agentId,
    provider: meta.provider,
    modelId: meta.model_id,
    workspace: meta.workspace,
    createdAt: now,
  });
  const base = source.title ?? "Session";
  const n = Math.max(source.forkCount, await highestForkNumber(m, row, base)) + 1;
  agent.recordSessionFact(forkId, sessionTitle(`${base} (${n})`));
  if (source.archivedAt !== null) agent.recordSessionFact(forkId, sessionArchived(false));
  const forked = stores.sessions.get(forkId);
  if (forked === undefined) throw new Error(`fork ${forkId} was not indexed`);
  return forked;
}

/** The highest `n` of the source's forks titled `<base> (n)` (0 when none is). */
async function highestForkNumber(m: ManagerParts, row: SessionRow, base: string): Promise<number> {
  let highest = 0;
  const prefix = `${base} (`;
  for (const info of (await m.deps.agentTraceInfo(row.projectId, row.agentId)).values()) {
    if (info.forkedFrom?.sessionId !== row.sessionId || info.title === null || !info.title.startsWith(prefix) || !info.title.endsWith(")")) continue;
    const k = Number(info.title.slice(prefix.length, -1));
    if (Number.isInteger(k) && k > highest) highest = k;
  }
  return highest;
}

/**
 * Deletes a session: its traces (with their companions) and its scratchpad move to the data
 * root's trash (core's session-trash: restorable by an owner, purged by the admin), its index
 * row goes, kept in the trash entry so a restore brings its settings back.
 */
export async function deleteSession(m: ManagerParts, row: SessionRow, deletedBy: string): Promise<TrashEntry> {
  const hub = m.hubs.get(row.sessionId);
  if (hub?.busy) throw busyError(hub);
  if (hub !== undefined) {
    await m.unload(hub);
    hub.channel.closeAll();
    m.hubs.delete(row.sessionId);
  }
  await refuseIfHeldElsewhere(m, row, "deleting it");
  const agent = await m.agent(row.projectId, row.agentId);
  // The entry keeps the index row and, for the trash list, the title the trace gave it.
  const { title } = await m.deps.traceInfo(row);
  const entry = moveSessionToTrash(agent.paths, row.sessionId, { deletedAt: m.deps.now(), deletedBy, record: { ...row, title } });
  m.deps.stores.sessions.delete(row.sessionId);
  return entry;
}

/**
 * 409 `session_busy` when another process (a CLI, another server) holds the session's lease:
 * asked before a change that would append to its trace, so nothing is half done. A session
 * loaded here is held by this server.
 */
export async function refuseIfHeldElsewhere(m: Pick<ManagerParts, "hubs" | "agent">, row: SessionRow, doing: string): Promise<void> {
  if (m.hubs.get(row.sessionId)?.core !== undefined) return;
  const agent = await m.agent(row.projectId, row.agentId);
  const holder = liveLeaseHolder(sessionLeaseFile(agent.paths, row.sessionId));
  if (holder !== undefined) throw conflict("session_busy", `session ${row.sessionId} is being run by another process: ${describeLeaseHolder(holder)}. Wait for it to finish (or stop it) before ${doing}; \`penguin attach ${row.sessionId}\` follows it live.`);
}
