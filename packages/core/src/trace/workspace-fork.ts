/**
 * A fork's own workspace (issue 29): `penguin fork SID --at N` starts the new session in a
 * folder holding the workspace's files as of N. When the source workspace lies in a git
 * repository, the folder is a `git worktree add --detach` of the repository's HEAD (the one
 * change to the user's repository is that worktree's entry: no commit, branch, stash, index or
 * ref) made equal to the checkpoint; otherwise it is a new folder filled from the checkpoint.
 * Either way it lies under the agent's `workspaces/` folder, and the fork's session_meta names it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { CheckpointSettings, RestoreReport } from "@penguin/trace";
import type { AgentPaths } from "../state/paths.js";
import { sessionTraceFiles } from "./reader.js";
import { checkpointAt, openCheckpoints } from "./workspace-files.js";

export interface ForkWorkspace {
  workspace: string;
  kind: "git-worktree" | "copy";
  /** The record whose checkpoint filled it. */
  checkpointRecord: number;
  files: RestoreReport;
}

function gitTopLevel(folder: string): string | undefined {
  try {
    const top = execFileSync("git", ["-C", folder, "rev-parse", "--show-toplevel"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    execFileSync("git", ["-C", folder, "rev-parse", "--verify", "--quiet", "HEAD"], { stdio: "ignore" });
    return top === "" ? undefined : top;
  } catch {
    return undefined;
  }
}

/** Makes the fork's workspace and points the fork's session_meta at it; undefined when the source has no checkpoint. */
export function forkWorkspace(paths: AgentPaths, sourceId: string, forkId: string, at: number | string, settings?: CheckpointSettings): ForkWorkspace | undefined {
  let found: ReturnType<typeof checkpointAt>;
  try {
    found = checkpointAt(paths, sourceId, at);
  } catch {
    return undefined;
  }
  const folder = join(paths.workspacesDir, `fork-${forkId}`);
  mkdirSync(paths.workspacesDir, { recursive: true });
  let workspace = folder;
  let kind: ForkWorkspace["kind"] = "copy";
  const top = existsSync(found.workspace) ? gitTopLevel(found.workspace) : undefined;
  if (top !== undefined) {
    try {
      execFileSync("git", ["-C", top, "worktree", "add", "--detach", folder, "HEAD"], { stdio: ["ignore", "ignore", "pipe"] });
      workspace = join(folder, relative(realpathSync(top), realpathSync(found.workspace)));
      kind = "git-worktree";
    } catch {
      kind = "copy";
    }
  }
  mkdirSync(workspace, { recursive: true });
  const files = openCheckpoints(paths, workspace, settings).restore(found.checkpoint.message.payload.tree);
  pointMetaAt(paths, forkId, workspace);
  return { workspace, kind, checkpointRecord: found.checkpoint.n, files };
}

/** Rewrites the workspace the fork's session_meta lines name. */
function pointMetaAt(paths: AgentPaths, sessionId: string, workspace: string): void {
  for (const file of sessionTraceFiles(paths, sessionId)) {
    const lines = readFileSync(file.file, "utf8").split("\n");
    let changed = false;
    lines.forEach((raw, i) => {
      if (!raw.includes('"session_meta"')) return;
      try {
        const m = JSON.parse(raw) as { type?: string; payload?: { workspace?: string } };
        if (m.type !== "session_meta" || m.payload === undefined) return;
        m.payload.workspace = workspace;
        lines[i] = JSON.stringify(m);
        changed = true;
      } catch {
        // not a whole line: left as it is
      }
    });
    if (changed) writeFileSync(file.file, lines.join("\n"), { mode: 0o600 });
  }
}
