/**
 * The trash of deleted sessions: deleting a session moves its only history aside instead of
 * destroying it. A trashed session lives in one folder under the data root,
 *
 *   <root>/.trash/<project>/<agent>/<sessionId>-<yyyymmddThhmmssmmmZ>/
 *       session.json   what was deleted, when, by whom, and the host's record of it
 *       traces/        the trace files and their companions (`<sid>_NNN.jsonl`, `.resume.json`, …)
 *       scratchpad/    the session's scratchpad, when it had one
 *
 * `.trash` is not a valid project id, so no reader of the data root (the index scan, the
 * projections) mistakes it for a project, and it lies outside every workspace (the sandbox
 * hides the whole data root). Files are moved with rename (same file system: instant and
 * byte-identical); a restore moves them back where they were. Restoring onto a session that
 * exists again is refused. Purging (the admin's `penguin trash purge`) is the only deletion.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentPaths, PROJECT_OR_AGENT_ID, sessionScratchpad, type AgentPaths } from "./paths.js";

export const TRASH_DIR_NAME = ".trash";
const MANIFEST = "session.json";
const SESSION_ID_DATE = /^session-(\d{4}-\d{2}-\d{2})-\d{2}-\d{2}-\d{2}-[0-9a-f]{8}$/;
/** `<sessionId>-<stamp>`: what routes and commands name a trashed session by. */
export const TRASH_ENTRY_ID = /^(session-\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}-[0-9a-f]{8})-(\d{8}T\d{9}Z)$/;

export interface TrashManifest {
  format: 1;
  sessionId: string;
  projectId: string;
  agentId: string;
  /** Milliseconds since the epoch. */
  deletedAt: number;
  /** Who deleted it (a server user id), or null when unknown (a local command). */
  deletedBy: string | null;
  /** The trace folder's date (`traces/<date>/`), where a restore puts the files back. */
  traceDate: string;
  /** Names of the files moved from the trace folder. */
  traceFiles: string[];
  scratchpad: boolean;
  /** What the host kept about the session (the server's index row), opaque here; restored by the host. */
  record: unknown;
}

export interface TrashEntry {
  id: string;
  dir: string;
  manifest: TrashManifest;
}

export class TrashError extends Error {
  constructor(
    readonly code: "session_exists" | "agent_missing" | "nothing_to_trash" | "not_in_trash",
    message: string,
  ) {
    super(message);
    this.name = "TrashError";
  }
}

export function trashRoot(root: string): string {
  return join(root, TRASH_DIR_NAME);
}

/** `20261203T132448123Z`: sortable, no characters a file system or a URL minds. */
function stampOf(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:.]/g, "");
}

/** The trace folder's entries that belong to the session: its files and their companions. */
function companionNames(paths: AgentPaths, sessionId: string, date: string): string[] {
  let names: string[];
  try {
    names = readdirSync(join(paths.tracesDir, date));
  } catch {
    return [];
  }
  return names.filter((n) => n.startsWith(`${sessionId}_`) || n.startsWith(`${sessionId}.`)).sort();
}

/** Rename, or copy then remove when the two paths are on different file systems. */
function move(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
    cpSync(from, to, { recursive: true, preserveTimestamps: true, errorOnExist: true, force: false });
    rmSync(from, { recursive: true, force: true });
  }
}

/** Whether anything of the session is in its live place (trace files, companions or scratchpad). */
export function sessionExistsOnDisk(paths: AgentPaths, sessionId: string): boolean {
  const date = SESSION_ID_DATE.exec(sessionId)?.[1];
  return (date !== undefined && companionNames(paths, sessionId, date).length > 0) || existsSync(sessionScratchpad(paths, sessionId));
}

/**
 * Moves a session's traces, their companions and its scratchpad into a new trash entry.
 * The manifest is written first, so an entry interrupted half-way is still recognized (and
 * restorable: a restore moves back whatever the entry holds).
 */
export function moveSessionToTrash(paths: AgentPaths, sessionId: string, info: { deletedAt: number; deletedBy?: string | null; record?: unknown }): TrashEntry {
  const date = SESSION_ID_DATE.exec(sessionId)?.[1];
  if (date === undefined) throw new TrashError("nothing_to_trash", `"${sessionId}" is not a session id`);
  const traceFiles = companionNames(paths, sessionId, date);
  const scratch = sessionScratchpad(paths, sessionId);
  const hasScratchpad = existsSync(scratch);
  const agentTrash = join(trashRoot(paths.root), paths.projectId, paths.agentId);
  mkdirSync(agentTrash, { recursive: true, mode: 0o700 });
  let deletedAt = info.deletedAt;
  // One folder per deletion: a session deleted, restored and deleted again in the same millisecond gets the next one.
  while (existsSync(join(agentTrash, `${sessionId}-${stampOf(deletedAt)}`))) deletedAt += 1;
  const id = `${sessionId}-${stampOf(deletedAt)}`;
  const dir = join(agentTrash, id);
  mkdirSync(join(dir, "traces"), { recursive: true, mode: 0o700 });
  const manifest: TrashManifest = {
    format: 1,
    sessionId,
    projectId: paths.projectId,
    agentId: paths.agentId,
    deletedAt,
    deletedBy: info.deletedBy ?? null,
    traceDate: date,
    traceFiles,
    scratchpad: hasScratchpad,
    record: info.record ?? null,
  };
  writeFileSync(join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  for (const name of traceFiles) move(join(paths.tracesDir, date, name), join(dir, "traces", name));
  if (hasScratchpad) move(scratch, join(dir, "scratchpad"));
  return { id, dir, manifest };
}

function readManifest(dir: string): TrashManifest | undefined {
  try {
    const m = JSON.parse(readFileSync(join(dir, MANIFEST), "utf8")) as Partial<TrashManifest>;
    if (m.format !== 1 || typeof m.sessionId !== "string" || typeof m.deletedAt !== "number" || typeof m.traceDate !== "string") return undefined;
    return m as TrashManifest;
  } catch {
    return undefined;
  }
}

function dirNames(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  } catch {
    return [];
  }
}

/** Every readable entry in the trash, of one project or all, most recently deleted first. */
export function listTrash(root: string, projectId?: string): TrashEntry[] {
  const out: TrashEntry[] = [];
  const projects = projectId === undefined ? dirNames(trashRoot(root)).filter((p) => PROJECT_OR_AGENT_ID.test(p)) : [projectId];
  for (const p of projects) {
    for (const a of dirNames(join(trashRoot(root), p)).filter((n) => PROJECT_OR_AGENT_ID.test(n))) {
      for (const id of dirNames(join(trashRoot(root), p, a))) {
        if (!TRASH_ENTRY_ID.test(id)) continue;
        const dir = join(trashRoot(root), p, a, id);
        const manifest = readManifest(dir);
        if (manifest !== undefined && manifest.projectId === p && manifest.agentId === a) out.push({ id, dir, manifest });
      }
    }
  }
  return out.sort((x, y) => y.manifest.deletedAt - x.manifest.deletedAt || (x.id < y.id ? 1 : -1));
}

/** One project's entry by its id, or undefined. */
export function findTrashEntry(root: string, projectId: string, entryId: string): TrashEntry | undefined {
  if (!TRASH_ENTRY_ID.test(entryId)) return undefined;
  return listTrash(root, projectId).find((e) => e.id === entryId);
}

/**
 * Moves an entry's files back where they were and removes the entry. Refused, with nothing
 * moved, when the agent is gone or anything of the session exists again.
 */
export function restoreFromTrash(root: string, entry: TrashEntry): AgentPaths {
  const m = entry.manifest;
  const paths = agentPaths(root, m.projectId, m.agentId);
  if (!existsSync(paths.agentState)) throw new TrashError("agent_missing", `agent ${m.agentId} of project ${m.projectId} no longer exists: create it again, then restore ${entry.id}`);
  if (sessionExistsOnDisk(paths, m.sessionId)) {
    throw new TrashError("session_exists", `session ${m.sessionId} exists again (its traces or scratchpad are back in ${m.projectId}/${m.agentId}); restoring would overwrite it. Delete that session first, or keep ${entry.id} in the trash`);
  }
  const traceDir = join(paths.tracesDir, m.traceDate);
  mkdirSync(traceDir, { recursive: true });
  for (const name of readdirSafe(join(entry.dir, "traces"))) move(join(entry.dir, "traces", name), join(traceDir, name));
  if (existsSync(join(entry.dir, "scratchpad"))) {
    mkdirSync(paths.scratchpadDir, { recursive: true });
    move(join(entry.dir, "scratchpad"), sessionScratchpad(paths, m.sessionId));
  }
  removeEntry(entry.dir);
  return paths;
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** Removes an entry and the agent and project folders it leaves empty. */
function removeEntry(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  for (const parent of [join(dir, ".."), join(dir, "..", "..")]) {
    try {
      rmdirSync(parent);
    } catch {
      return; // not empty (or gone): stop climbing
    }
  }
}

export interface PurgeResult {
  purged: { id: string; projectId: string; agentId: string; deletedAt: number }[];
  kept: number;
}

/**
 * Deletes trash entries for good: every one, or those deleted more than `olderThanMs` before
 * `now`. An entry without a readable manifest is dated by its folder's modification time.
 */
export function purgeTrash(root: string, options: { olderThanMs?: number; now: number }): PurgeResult {
  const result: PurgeResult = { purged: [], kept: 0 };
  for (const p of dirNames(trashRoot(root))) {
    for (const a of dirNames(join(trashRoot(root), p))) {
      for (const id of dirNames(join(trashRoot(root), p, a))) {
        const dir = join(trashRoot(root), p, a, id);
        const deletedAt = readManifest(dir)?.deletedAt ?? statSync(dir).mtimeMs;
        if (options.olderThanMs !== undefined && options.now - deletedAt < options.olderThanMs) {
          result.kept += 1;
          continue;
        }
        removeEntry(dir);
        result.purged.push({ id, projectId: p, agentId: a, deletedAt });
      }
    }
  }
  return result;
}

/** Drops a whole project's trash (the project itself is being deleted). */
export function dropProjectTrash(root: string, projectId: string): void {
  if (!PROJECT_OR_AGENT_ID.test(projectId)) return;
  rmSync(join(trashRoot(root), projectId), { recursive: true, force: true });
}
