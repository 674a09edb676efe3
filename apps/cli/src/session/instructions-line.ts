/**
 * The one line that says which project instruction files (the workspace's AGENTS.md/CLAUDE.md
 * and its parents', core's project-instructions.ts) a new session put into its system prompt,
 * and which it skipped and why. A plain function of the session so the line chat, `run
 * --verbose` and the terminal UI print is one and the same; undefined when there is nothing to
 * say (no files, or a resumed session, whose recorded prompt was not read again).
 */
import { relative } from "node:path";
import type { Session } from "@penguin/core";

/** A path as the user reads it best: relative to the workspace (`../AGENTS.md`), absolute when far away. */
function shown(path: string, workspace: string): string {
  const rel = relative(workspace, path);
  return rel.split("/").filter((part) => part === "..").length > 3 ? path : rel;
}

export function projectInstructionsLine(session: Pick<Session, "projectInstructions" | "workspace">): string | undefined {
  const { loaded, skipped } = session.projectInstructions;
  if (loaded.length === 0 && skipped.length === 0) return undefined;
  const parts: string[] = [];
  if (loaded.length > 0) parts.push(`instructions loaded: ${loaded.map((f) => shown(f.path, session.workspace) + (f.truncated ? " (cut)" : "")).join(", ")}`);
  for (const s of skipped) parts.push(`skipped ${shown(s.path, session.workspace)}: ${s.reason}`);
  return parts.join(" · ");
}
