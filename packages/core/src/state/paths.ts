/**
 * The data-root layout, in one place. Every file PenguinHarness reads or writes is named
 * here, so the layout in the seeds is the layout on disk and nothing else invents a path.
 *
 *   <root>/<project>/.project_config.toml
 *   <root>/<project>/agents/<agent>/agent_state/{system_config.yaml, AGENTS.md, .vault.toml,
 *                                               tools/, skills/, memory/, schedule/}
 *   <root>/<project>/agents/<agent>/traces/<yyyy-mm-dd>/<sessionId>_<NNN>.jsonl
 *   <root>/<project>/agents/<agent>/{scratchpad/<sid>/, workspaces/tmp-<8hex>/, shared_env/,
 *                                    benchmarks/, snapshots/}
 *   <root>/<project>/agents/<agent>/cache/system_config.json   (0600; a shortcut, safe to delete)
 *   <root>/.cache/sandbox-probe.json   (a cache: the sandbox probe's last yes, see data-root.ts)
 *
 * The root is `--root` > `PENGUIN_HOME` > `~/.penguin/data`.
 */
import { join } from "node:path";
import { PROJECT_OR_AGENT_ID } from "@penguin/trace";

export const DEFAULT_PROJECT = "default_project";
export const DEFAULT_AGENT = "default_agent";

/** Project and agent ids (the trace package's rule: readers of a data root below core list folders by it). */
export { PROJECT_OR_AGENT_ID };
/** Server user ids. */
export const USER_ID = /^[a-z][a-z0-9_]{1,31}$/;

export class InvalidIdError extends Error {
  constructor(kind: string, id: string, pattern: RegExp) {
    super(`invalid ${kind} id "${id}": it must match ${pattern.source} (lowercase letters, digits and _, starting with a letter)`);
    this.name = "InvalidIdError";
  }
}

export function checkId(kind: "project" | "agent" | "user", id: string): string {
  const pattern = kind === "user" ? USER_ID : PROJECT_OR_AGENT_ID;
  if (!pattern.test(id)) throw new InvalidIdError(kind, id, pattern);
  return id;
}

/** The data root's rule lives in a module light enough for the CLI's early probe (data-root.ts). */
export { resolveRoot, sandboxProbeMemo } from "./data-root.js";

export interface ProjectPaths {
  root: string;
  projectId: string;
  projectDir: string;
  /** `.project_config.toml`: models, credentials, defaults (0600). */
  projectConfig: string;
  agentsDir: string;
}

export interface AgentPaths extends ProjectPaths {
  agentId: string;
  agentDir: string;
  agentState: string;
  systemConfig: string;
  agentsMd: string;
  /** `.vault.toml` (0600): secrets that reach only subprocess environments. */
  vault: string;
  toolsDir: string;
  skillsDir: string;
  memoryDir: string;
  scheduleDir: string;
  tracesDir: string;
  scratchpadDir: string;
  workspacesDir: string;
  sharedEnvDir: string;
  benchmarksDir: string;
  snapshotsDir: string;
  /** The workspace checkpoint store (packs of content-addressed blobs), shared by the agent's sessions. */
  checkpointsDir: string;
  /** Derived files that only save work (never in a snapshot): deleting the folder loses nothing. */
  cacheDir: string;
  /** The parsed system_config.yaml (system-config-cache.ts), 0600: it holds what the YAML holds. */
  systemConfigCache: string;
}

export function projectPaths(root: string, projectId: string): ProjectPaths {
  checkId("project", projectId);
  const projectDir = join(root, projectId);
  return {
    root,
    projectId,
    projectDir,
    projectConfig: join(projectDir, ".project_config.toml"),
    agentsDir: join(projectDir, "agents"),
  };
}

export function agentPaths(root: string, projectId: string, agentId: string): AgentPaths {
  checkId("agent", agentId);
  const project = projectPaths(root, projectId);
  const agentDir = join(project.agentsDir, agentId);
  const agentState = join(agentDir, "agent_state");
  return {
    ...project,
    agentId,
    agentDir,
    agentState,
    systemConfig: join(agentState, "system_config.yaml"),
    agentsMd: join(agentState, "AGENTS.md"),
    vault: join(agentState, ".vault.toml"),
    toolsDir: join(agentState, "tools"),
    skillsDir: join(agentState, "skills"),
    memoryDir: join(agentState, "memory"),
    scheduleDir: join(agentState, "schedule"),
    tracesDir: join(agentDir, "traces"),
    scratchpadDir: join(agentDir, "scratchpad"),
    workspacesDir: join(agentDir, "workspaces"),
    sharedEnvDir: join(agentDir, "shared_env"),
    benchmarksDir: join(agentDir, "benchmarks"),
    snapshotsDir: join(agentDir, "snapshots"),
    checkpointsDir: join(agentDir, "checkpoints"),
    cacheDir: join(agentDir, "cache"),
    systemConfigCache: join(agentDir, "cache", "system_config.json"),
  };
}

/** `scratchpad/<sid>/`: uploads, archived tool output, goal files. Deleted with the session. */
export function sessionScratchpad(paths: AgentPaths, sessionId: string): string {
  return join(paths.scratchpadDir, sessionId);
}

/** `traces/<yyyy-mm-dd>/<sid>_<NNN>.jsonl`. `date` is the session's local start date. */
export function traceFilePath(paths: AgentPaths, date: string, sessionId: string, index: number): string {
  return join(paths.tracesDir, date, `${sessionId}_${String(index).padStart(3, "0")}.jsonl`);
}
