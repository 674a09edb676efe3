/**
 * The SubagentRunner core builds for a top-level session (agent.ts): children are new
 * sessions of the same data root and project, in the parent's workspace, each with its own
 * trace marked `source: "subagent"`.
 *
 * - The agent: `agent_id` when given (it must exist already: a child never creates an
 *   agent), else the parent's own agent.
 * - The model: the explicit `(provider, model_id)` pair when given, both or neither (the pair
 *   is never completed or guessed), else the parent session's model.
 * - The thinking level: when given, else the parent session's current level.
 * - Depth is capped at 1 by construction: agent.ts gives sessions with `source: "subagent"`
 *   no runner, so a child has no subagent tools.
 *
 * `spawn` rejects with a message the model can act on; the table turns that into a `failed`
 * tool output.
 */
import type { ThinkingLevel } from "@penguin/models";
import type { CreateSessionOptions } from "../agent-options.js";
import type { SandboxOptions } from "../environment/commands/sandbox.js";
import type { SubagentHandle, SubagentRunner, SubagentSpawnOptions } from "../interfaces.js";
import type { Session } from "../session.js";
import { sessionHandle } from "./session-handle.js";

/** What the runner needs of an Agent. */
export interface ChildSessionFactory {
  createSession(options: CreateSessionOptions): Promise<Session>;
}

/** The parent session's model and thinking level at the moment of a spawn. */
export interface ParentModel {
  provider: string;
  modelId: string;
  thinkingLevel: ThinkingLevel;
}

export interface SubagentRunnerOptions {
  /** The parent's workspace; children work in it too. */
  workspaceDir: string;
  /** The parent's sandbox: a child's commands are confined as the parent's are. */
  sandbox?: SandboxOptions;
  /** The agent a child belongs to: `undefined` is the parent's own. Rejects for an unknown id. */
  agentFor: (agentId: string | undefined) => Promise<ChildSessionFactory>;
  parent: () => ParentModel;
}

export function createSubagentRunner(options: SubagentRunnerOptions): SubagentRunner {
  return {
    async spawn(spawn: SubagentSpawnOptions): Promise<SubagentHandle> {
      if ((spawn.provider === undefined) !== (spawn.modelId === undefined)) {
        throw new Error("model_id and provider go together: give both to pick the child's model, or neither to use the parent's");
      }
      const parent = options.parent();
      const agent = await options.agentFor(spawn.agentId);
      const session = await agent.createSession({
        workspaceDir: options.workspaceDir,
        provider: spawn.provider ?? parent.provider,
        modelId: spawn.modelId ?? parent.modelId,
        thinkingLevel: spawn.thinkingLevel ?? parent.thinkingLevel,
        source: "subagent",
        ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
      });
      return sessionHandle(session);
    },
  };
}
