/**
 * The sandbox description of one session, built from the agent's paths: what its commands and
 * its stdio MCP servers may see. It lives here, not inside the Agent, so that a host which runs
 * something "as a session would" without a session (the server's MCP connection test) builds
 * exactly the same description from the same paths.
 *
 * The same description is the session's boundary for its file tools (mount-table.ts), whether
 * its commands run in bwrap or not: `sessionBoundary` builds it without asking for bwrap.
 *
 * Visible inside: the workspace, the session's scratchpad, the agent's shared_env and
 * agent_state/memory (writable: the model keeps its memory there), agent_state (read-only, so
 * skills' scripts run; its vault masked: vault values reach commands through their environment
 * only), the project's AGENTS.md/CLAUDE.md files above the workspace (read-only, each file alone). Hidden: the whole data root (every
 * project's credentials, vaults, traces and databases) and the workspace's parent folder (the
 * other workspaces). Private: the host's home folders (empty and throwaway inside; PATH tools
 * in them stay). Masked too: the host's password hashes and SSH host keys.
 */
import { dirname } from "node:path";
import { PenguinError } from "../../errors.js";
import type { AgentPaths } from "../../state/paths.js";
import { defaultPrivateHomes, hostSecretFiles, probeSandbox, type CommandSandbox, type SandboxOptions } from "./sandbox.js";

export interface SessionPlace {
  /** The session's workspace (writable, the commands' working directory). */
  workspace: string;
  /** The session's scratchpad (writable); left out where there is no session (a probe). */
  scratchpad?: string;
  /** Project instruction files above the workspace it may read (state/project-instructions.ts `instructionGrants`). */
  instructionFiles?: readonly string[];
}

/**
 * The sandbox a session's commands and stdio MCP servers run in, or undefined when `options`
 * asks for none. Throws `sandbox_unavailable` when a sandbox is asked for and bwrap cannot run.
 */
export function sessionCommandSandbox(
  paths: AgentPaths,
  options: SandboxOptions | undefined,
  place: SessionPlace,
  bwrapPath?: string,
): CommandSandbox | undefined {
  if (options === undefined || !options.enabled) return undefined;
  const availability = probeSandbox(bwrapPath);
  if (!availability.available) {
    throw new PenguinError(
      "sandbox_unavailable",
      `commands were asked to run in a sandbox, but ${availability.reason ?? "bwrap cannot run here"}. Install bubblewrap, or turn the sandbox off to run commands unsandboxed.`,
    );
  }
  return sessionBoundary(paths, options, place, bwrapPath);
}

/** What a session may touch (the header's description), with no question of whether bwrap runs. */
export function sessionBoundary(paths: AgentPaths, options: SandboxOptions, place: SessionPlace, bwrapPath?: string): CommandSandbox {
  const workspace = place.workspace;
  const parent = dirname(workspace);
  return {
    writable: [workspace, ...(place.scratchpad === undefined ? [] : [place.scratchpad]), paths.sharedEnvDir, paths.memoryDir],
    readOnly: [paths.agentState, ...(place.instructionFiles ?? [])],
    hidden: [paths.root, ...(options.hide ?? [])],
    hiddenUnlessOnPath: parent === workspace ? [] : [parent],
    masked: [paths.vault, ...hostSecretFiles()],
    privateHomes: options.privateHomes ?? defaultPrivateHomes(),
    network: options.network === true,
    ...(bwrapPath === undefined ? {} : { bwrapPath }),
  };
}
