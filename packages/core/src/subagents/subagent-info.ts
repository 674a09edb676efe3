/**
 * SubagentInfo: one live child as hosts list it (Session.subagents, Environment.listSubagents).
 * A type module of its own because interfaces.ts names it and the subagents service imports
 * interfaces.ts: kept in subagents.ts it tied the two (and child.ts) into an import circle.
 */

export interface SubagentInfo {
  /** The child session id (also its `subagent_id`). */
  id: string;
  /** The child's model, for pricing its usage. */
  provider: string | undefined;
  modelId: string | undefined;
  status: "running" | "idle";
  /** What its latest task is for. */
  label: string | undefined;
  /** ISO time the child was spawned. */
  started: string;
  /** Model requests and tokens over all its tasks so far. */
  turns: number;
  tokens: number;
}
