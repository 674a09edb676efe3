// Subagents: child sessions in the parent's workspace, each with its own trace. The runner
// core builds for top-level sessions, the handle over a Session, the Subagents service (live
// children as resources in a Scope) and the numbers.
export { createSubagentRunner, type ChildSessionFactory, type ParentModel, type SubagentRunnerOptions } from "./runner.js";
export { sessionHandle } from "./session-handle.js";
export { Subagents, SubagentsLive, makeSubagents, SubagentRefused } from "./subagents.js";
export type { SubagentInfo, SubagentsShape, SubagentsOptions } from "./subagents.js";
export type { Child } from "./child.js";
export type { TaskReport, TaskStatus } from "./task-report.js";
export {
  DETACHED_BUFFER_MESSAGES,
  INPUT_SUBAGENT_POLL_YIELD_MS,
  INPUT_SUBAGENT_PROMPT_YIELD_MS,
  MAX_LIVE_SUBAGENTS,
  RUN_SUBAGENT_YIELD_MS,
  SUBAGENT_TOOL_TIMEOUTS_MS,
} from "./limits.js";
