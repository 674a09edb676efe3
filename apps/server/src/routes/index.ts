/**
 * Every resource's routes, in one list: the table enforces access and validation and turns
 * them into the OpenAPI document. More specific paths come before ones with a parameter in
 * the same place (e.g. `traces/:sid/download` before `traces/:sid/:idx`).
 */
import type { RouteTable } from "../http/route-table.js";
import type { ServerContext } from "../server-context.js";
import { adminRoutes } from "./admin.js";
import { agentConfigRoutes } from "./agent-config.js";
import { agentSkillRoutes } from "./agent-skills.js";
import { agentToolRoutes } from "./agent-tools.js";
import { agentTraceRoutes } from "./agent-traces.js";
import { agentRoutes } from "./agents.js";
import { authRoutes } from "./auth.js";
import { benchmarkRoutes } from "./benchmarks.js";
import { dirsRoutes } from "./dirs.js";
import { eventsRoutes } from "./events.js";
import { meRoutes } from "./me.js";
import { memoryRoutes } from "./memory.js";
import { metaRoutes } from "./meta.js";
import { previewRoutes } from "./preview.js";
import { processRoutes } from "./processes.js";
import { modelRoutes } from "./models.js";
import { projectSettingsRoutes } from "./project-settings.js";
import { projectRoutes } from "./projects.js";
import { scheduleRoutes } from "./schedules.js";
import { sessionFileRoutes } from "./session-files.js";
import { sessionCheckpointRoutes } from "./session-checkpoints.js";
import { sessionMessageRoutes } from "./session-messages.js";
import { sessionStreamRoutes } from "./session-stream.js";
import { sessionTaskRoutes } from "./session-tasks.js";
import { sessionTraceRoutes } from "./session-traces.js";
import { sessionRoutes } from "./sessions.js";
import { skillsRoutes } from "./skills.js";
import { snapshotRoutes } from "./snapshots.js";
import { trashRoutes } from "./trash.js";
import { usageRoutes } from "./usage.js";
import { vaultRoutes } from "./vault.js";

export function registerRoutes(table: RouteTable, ctx: ServerContext): void {
  metaRoutes(table, ctx);
  authRoutes(table, ctx);
  meRoutes(table, ctx);
  adminRoutes(table, ctx);
  eventsRoutes(table, ctx);
  skillsRoutes(table);
  projectRoutes(table, ctx);
  modelRoutes(table, ctx);
  projectSettingsRoutes(table, ctx);
  dirsRoutes(table, ctx);
  usageRoutes(table, ctx);
  agentRoutes(table, ctx);
  agentConfigRoutes(table, ctx);
  vaultRoutes(table, ctx);
  memoryRoutes(table);
  scheduleRoutes(table, ctx);
  agentSkillRoutes(table);
  agentToolRoutes(table);
  benchmarkRoutes(table);
  snapshotRoutes(table, ctx);
  agentTraceRoutes(table, ctx);
  sessionRoutes(table, ctx);
  sessionMessageRoutes(table, ctx);
  sessionStreamRoutes(table, ctx);
  sessionTaskRoutes(table, ctx);
  sessionFileRoutes(table, ctx);
  sessionCheckpointRoutes(table, ctx);
  sessionTraceRoutes(table, ctx);
  trashRoutes(table, ctx);
  processRoutes(table, ctx);
  previewRoutes(table, ctx);
}
