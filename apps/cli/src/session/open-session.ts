/**
 * From the shared flags to an Agent and a Session: the one path `run` and `chat` (and the
 * chat's `/clear` and `/model`) take, so the rules are stated once:
 *
 * - the data root is `--root` > PENGUIN_HOME > ~/.penguin/data (core's resolveRoot);
 * - a new session's workspace is `--workspace`, else the current directory (core rejects a
 *   workspace that does not exist, with a message that says so);
 * - `--resume` continues a session on its own model and workspace, so it refuses
 *   `--provider/--model-id/--workspace` instead of silently ignoring them; `--resume` without
 *   an id (chat) means the agent's latest session;
 * - the model pair, its defaults and every "not configured" message are core's.
 *
 * PENGUIN_RETRY_DELAY_SCALE becomes the agent's injected reconnect sleep (retry-sleep.ts).
 *
 * A session is run by one process at a time: `--resume` of a session another process runs
 * (a chat, a server, an SDK host) is refused by core with `session_busy` (exit 2) before
 * anything is appended, naming the holder.
 *
 * The sandbox is an agent option, so every session the command opens (a resume, the chat's
 * `/clear` and `/model`) runs its commands the same way. It is on by default where bwrap can
 * run (sandbox-default.ts: `--no-sandbox` turns it off; where bwrap cannot run one line says
 * so and commands run unsandboxed); with an explicit `--sandbox` core refuses with
 * `sandbox_unavailable` (exit 2) instead of running the commands unsandboxed.
 */
import type { Agent, Session } from "@penguin/core";
import type { ThinkingLevel } from "@penguin/models";
import { THINKING_LEVELS } from "@penguin/models";
import { UsageError } from "../cli-error.js";
import { retrySleepFromEnv } from "../io/retry-sleep.js";
import { ensureWritableRoot } from "./data-root.js";
import { chooseSandbox } from "./sandbox-default.js";
import { releaseLeasesOnSignals } from "./release-on-signal.js";

export interface AgentFlags {
  root?: string;
  projectId?: string;
  agentId?: string;
  /** Commands in a bubblewrap sandbox: true `--sandbox`, false `--no-sandbox`, undefined where bwrap can run. */
  sandbox?: boolean;
  sandboxNetwork?: boolean;
}

export interface SessionFlags extends AgentFlags {
  provider?: string;
  modelId?: string;
  workspace?: string;
  thinking?: string;
  /** A session id, or `true` for the latest session. */
  resume?: string | true;
}

/**
 * `sandboxByDefault`: the command runs the model's commands (`run`, `chat`, `demo`), so without
 * `--sandbox`/`--no-sandbox` they are sandboxed where bwrap can run. The others (inspect, fork,
 * replay) sandbox only when asked and never probe bwrap. `holderCommand` is what the leases of
 * the sessions this agent runs name as their holder (`penguin run`): a second process that
 * tries to run one of them is told who runs it.
 */
export async function openAgent(
  flags: AgentFlags,
  holderCommand = "penguin",
  options: { sandboxByDefault?: boolean } = {},
): Promise<Agent> {
  const { createAgent, probeSandbox, probeSandboxAsync, resolveRoot, sandboxProbeMemo } = await import("@penguin/core");
  const root = resolveRoot(flags.root);
  ensureWritableRoot(root);
  await releaseLeasesOnSignals();
  const sleep = retrySleepFromEnv();
  const sandboxFlags = options.sandboxByDefault === true ? flags : { ...flags, sandbox: flags.sandbox ?? false };
  // `run` and `chat` started the probe before their modules loaded (early-sandbox-probe.ts):
  // its answer is awaited here, and core's later checks reuse it rather than start bwrap again.
  // Other commands asked for --sandbox probe here, with the same memo of a yes.
  const probed = sandboxFlags.sandbox === false ? undefined : await probeSandboxAsync(undefined, { memoFile: sandboxProbeMemo(root) });
  const chosen = chooseSandbox(sandboxFlags, { probe: () => probed ?? probeSandbox(), warn: (line) => process.stderr.write(`${line}\n`) });
  const sandbox = chosen === undefined ? {} : { sandbox: chosen };
  const agent = await createAgent({ root: flags.root, projectId: flags.projectId, agentId: flags.agentId, sleep, holderCommand, ...sandbox });
  if (chosen !== undefined) SANDBOXED.add(agent);
  return agent;
}

const SANDBOXED = new WeakSet<Agent>();

/** Whether openAgent gave this agent a sandbox (its sessions' commands run in bubblewrap). */
export function agentSandboxed(agent: Agent): boolean {
  return SANDBOXED.has(agent);
}

export function parseThinking(value: string | undefined): ThinkingLevel | undefined {
  if (value === undefined) return undefined;
  const level = THINKING_LEVELS.find((l) => l === value);
  if (level === undefined) throw new UsageError(`unknown thinking level "${value}": use one of ${THINKING_LEVELS.join(", ")}`);
  return level;
}

/** `approvalMode`: the mode a new session starts with, recorded in its trace from the start (a resume keeps its own). */
export async function openSession(agent: Agent, flags: SessionFlags, approvalMode?: string): Promise<Session> {
  const thinkingLevel = parseThinking(flags.thinking);
  if (flags.resume !== undefined) {
    const conflicts = [
      flags.provider !== undefined ? "--provider" : undefined,
      flags.modelId !== undefined ? "--model-id" : undefined,
      flags.workspace !== undefined ? "--workspace" : undefined,
    ].filter((f) => f !== undefined);
    if (conflicts.length > 0) {
      throw new UsageError(`--resume continues a session on its own model and workspace; drop ${conflicts.join(" and ")} (or start a new session with them)`);
    }
    const sessionId = flags.resume === true ? agent.latestSessionId() : flags.resume;
    if (sessionId === undefined) {
      throw new UsageError(`there is no session to resume yet in ${agent.paths.tracesDir}; start one with penguin chat or penguin run -m TEXT`);
    }
    const session = await agent.resumeSession({ sessionId });
    if (thinkingLevel !== undefined) session.thinkingLevel = thinkingLevel;
    return session;
  }
  return agent.createSession({
    workspaceDir: flags.workspace ?? process.cwd(),
    provider: flags.provider,
    modelId: flags.modelId,
    thinkingLevel,
    client: "cli",
    ...(approvalMode === undefined ? {} : { approvalMode }),
  });
}

/**
 * The base URL of the session's model entry, for error messages ("which endpoint rejected
 * the key"). The session resolved its endpoint at creation but does not expose it, so it is
 * resolved again from the project config; undefined when that fails. The key is never read.
 */
export async function endpointBaseUrl(agent: Agent, session: Session): Promise<string | undefined> {
  const { resolveModelEndpoint } = await import("@penguin/core");
  try {
    const ref = { provider: session.provider, modelId: session.modelId };
    return resolveModelEndpoint(agent.projectConfig(), ref, { env: process.env, configFile: agent.paths.projectConfig }).baseUrl;
  } catch {
    return undefined;
  }
}
