/**
 * The check a schedule file passes before it is written, through the schedule routes or inside
 * an imported snapshot: it must parse as TOML and as a schedule (services/schedule-definition.ts),
 * and a workspace it names must be one the workspace roots allow for this agent, as if a session
 * were created there by hand. A file that fails is a 400 whose message names the file, the line
 * (for a TOML syntax error) or the field, and what is wrong; nothing is written.
 */
import type { AgentPaths } from "@penguin/core";
import { ApiError } from "../http/api-error.js";
import { parseSchedule } from "./schedule-definition.js";
import type { WorkspaceRoots } from "./workspace-roots.js";

/**
 * Throws a 400 when `text` is not a schedule this agent may keep. `field` names the input
 * (`text` in the routes, `schedule/<name>.toml` in a snapshot); the faulty field is appended.
 */
export function checkScheduleText(text: string, name: string, agent: AgentPaths, roots: WorkspaceRoots, field: string): void {
  const parsed = parseSchedule(text);
  if (!parsed.ok) {
    const where = parsed.line !== undefined ? ` (line ${parsed.line})` : parsed.field !== undefined ? ` (field ${parsed.field})` : "";
    throw new ApiError(400, "invalid_config", `schedule ${name} is not valid${where}: ${parsed.reason}; the file was not written`, { field: parsed.field === undefined ? field : `${field}: ${parsed.field}` });
  }
  const target = parsed.def.target;
  if (target.kind === "new" && target.workspace !== undefined) {
    try {
      roots.confine(target.workspace, [agent.workspacesDir]);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      throw new ApiError(400, "invalid_path", `schedule ${name}: ${error.message}; the file was not written`, { field: `${field}: workspace` });
    }
  }
}
