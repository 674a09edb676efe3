/**
 * Finding every trace file of a data root, the way packages/core lays them out:
 * `<root>/<project>/agents/<agent>/traces/<yyyy-mm-dd>/<sessionId>_<NNN>.jsonl`.
 *
 * The list is sorted by project, agent, session and file index, so the files of one session
 * are always read in order (a session's later file continues its earlier one). Folders that
 * are not valid project or agent ids, and files that are not trace files, are ignored: a data
 * root also holds databases, configs and scratch files.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_OR_AGENT_ID, traceFileIndex } from "@penguin/trace";

export interface TraceFile {
  /** Path relative to the data root: the checkpoint key, stable if the root moves. */
  key: string;
  path: string;
  projectId: string;
  agentId: string;
  sessionId: string;
  fileIndex: number;
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

function fileNames(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * The directories a watcher should observe: each project's `agents/` (a new agent), every
 * agent's `traces/` (a new date) and its date folders (new and growing trace files). Not the
 * root itself: the databases beside the projects change on every write, and a watcher there
 * would wake for each of them; a new project is found by polling.
 */
export function traceDirectories(root: string): string[] {
  const out: string[] = [];
  for (const projectId of dirNames(root)) {
    if (!PROJECT_OR_AGENT_ID.test(projectId)) continue;
    out.push(join(root, projectId, "agents"));
    for (const agentId of dirNames(join(root, projectId, "agents"))) {
      if (!PROJECT_OR_AGENT_ID.test(agentId)) continue;
      const traces = join(root, projectId, "agents", agentId, "traces");
      out.push(traces, ...dirNames(traces).map((d) => join(traces, d)));
    }
  }
  return out;
}

export function listTraceFiles(root: string): TraceFile[] {
  const out: TraceFile[] = [];
  for (const projectId of dirNames(root)) {
    if (!PROJECT_OR_AGENT_ID.test(projectId)) continue;
    for (const agentId of dirNames(join(root, projectId, "agents"))) {
      if (!PROJECT_OR_AGENT_ID.test(agentId)) continue;
      const tracesRel = join(projectId, "agents", agentId, "traces");
      for (const date of dirNames(join(root, tracesRel))) {
        for (const name of fileNames(join(root, tracesRel, date))) {
          const fileIndex = traceFileIndex(name);
          if (fileIndex === undefined) continue;
          const key = join(tracesRel, date, name);
          out.push({ key, path: join(root, key), projectId, agentId, sessionId: name.slice(0, name.lastIndexOf("_")), fileIndex });
        }
      }
    }
  }
  return out.sort((a, b) => compare(a.projectId, b.projectId) || compare(a.agentId, b.agentId) || compare(a.sessionId, b.sessionId) || a.fileIndex - b.fileIndex);
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
