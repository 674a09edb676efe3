/**
 * Indexing the traces: the scan that makes sessions started elsewhere (the CLI, the SDK)
 * appear in the web, and that `--reindex` runs from scratch.
 *
 * For every project folder under the root (registered to the admin when the server did not
 * know it) and every agent in it, each traced session the index does not know yet is indexed
 * from the first line of its first file (model, workspace; created at the time in its id).
 * A session the index knows is skipped without reading its files (a full reindex reads them
 * all again), so a restart over thousands of traces reads almost nothing: what a session's
 * later lines change (its last activity, run source, counts) is the sessions projection's,
 * which follows the traces itself. Nothing of the scan is cached in facts.db.
 *
 * A session found this way is shown with the title its trace gives it: a recorded
 * `session_title`, else its first prompt (the sessions projection folds both); nothing of it
 * is written here.
 *
 * Sessions the index knows but that have no trace in their project's folder are dropped
 * (the server creates sessions persisted, so this only concerns rows whose files were removed
 * by hand or an older server's sessions that never ran): facts.db keeps no flag saying
 * whether a trace exists, the folder is asked. A project whose folder is not on disk at all
 * keeps its rows (a folder missing for a while must not cost the sessions' settings), except
 * in a full reindex, which drops every row without a trace.
 */
import { readdirSync, statSync, type Stats } from "node:fs";
import { join } from "node:path";
import { agentPaths, listTracedSessions, PROJECT_OR_AGENT_ID, projectPaths, SESSION_ID } from "@penguin/core";
import type { Stores } from "../db/stores.js";
import { agentIdsOnDisk, readSessionMeta } from "./trace-files.js";

export interface IndexResult {
  scanned: number;
  indexed: number;
  dropped: number;
}

export function indexTraces(root: string, stores: Stores, options: { full: boolean; owner: string; now: number }): IndexResult {
  const seen = new Set<string>();
  let scanned = 0;
  let indexed = 0;
  const scannedProjects = new Set<string>();
  for (const projectId of projectIdsOnDisk(root)) {
    scannedProjects.add(projectId);
    stores.projects.insert({ projectId, ownerUserId: options.owner, name: null, createdAt: options.now });
    const project = projectPaths(root, projectId);
    for (const agentId of agentIdsOnDisk(project)) {
      stores.projects.insertAgent(projectId, { agentId, name: null, description: null, createdAt: options.now });
      for (const s of listTracedSessions(agentPaths(root, projectId, agentId))) {
        scanned += 1;
        seen.add(s.sessionId);
        if (!options.full && stores.sessions.get(s.sessionId) !== undefined) continue;
        const first = s.files[0];
        const meta = first === undefined ? undefined : readSessionMeta(first.file);
        if (meta === undefined || meta.session_id !== s.sessionId) continue;
        stores.sessions.upsertFromTrace({
          sessionId: s.sessionId,
          projectId,
          agentId,
          provider: meta.provider,
          modelId: meta.model_id,
          workspace: meta.workspace,
          createdAt: startOf(s.sessionId) ?? Math.floor(s.mtimeMs),
        });
        indexed += 1;
      }
    }
  }
  let dropped = 0;
  // `seen` is every session with a trace on disk: a row without one has nothing to show or resume.
  for (const project of stores.projects.all()) {
    if (!options.full && !scannedProjects.has(project.projectId)) continue;
    for (const id of stores.sessions.idsInProject(project.projectId)) {
      if (seen.has(id)) continue;
      stores.sessions.delete(id);
      dropped += 1;
    }
  }
  return { scanned, indexed, dropped };
}

/** Project folders under the root: valid ids that hold an `agents/` folder. */
export function projectIdsOnDisk(root: string): string[] {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  return names.filter((name) => PROJECT_OR_AGENT_ID.test(name) && statOf(join(root, name, "agents"))?.isDirectory() === true).sort();
}

function statOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** The local start time written into a session id. */
function startOf(sessionId: string): number | undefined {
  const m = SESSION_ID.exec(sessionId);
  if (m === null) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number);
  if ([y, mo, d, h, mi, s].some((n) => n === undefined || Number.isNaN(n))) return undefined;
  return new Date(y ?? 0, (mo ?? 1) - 1, d ?? 1, h ?? 0, mi ?? 0, s ?? 0).getTime();
}
