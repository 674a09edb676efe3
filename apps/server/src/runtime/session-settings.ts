/**
 * A session's settings as facts of its trace: approval mode, thinking level, sandbox network,
 * and any other fact a host decides (title, archive), each recorded at once through the open
 * core Session or appended to the trace on disk; and the defaults a new session starts from
 * (approval mode, thinking level) and the sandbox its settings give it. Module functions over
 * `ManagerParts`; the SessionManager's methods of the same names delegate here.
 */
import { readFileSync } from "node:fs";
import { isApprovalMode, isThinkingLevel, parseSystemConfig, type Agent, type ApprovalMode, type SandboxOptions } from "@penguin/core";
import { settingsChanged, type OmniMessage } from "@penguin/omnimessage";
import type { ThinkingLevel } from "@penguin/models";
import type { SessionRow } from "../db/sessions-store.js";
import type { ManagerParts } from "./session-manager-parts.js";
import { announceUnsent } from "./followed-streams.js";

/** A web session's approval mode when neither the request nor the project names one: ask before writes and commands. */
export const WEB_SESSION_DEFAULT_APPROVAL: ApprovalMode = "read-only";

/**
 * A person changed the session's approval mode: recorded in its trace at once, as
 * `settings_changed` (through its open core Session, whose fold the approvals read, or
 * appended to the file, which the next resume and the sessions projection fold).
 */
export async function setApprovalMode(m: Pick<ManagerParts, "hubs" | "agent" | "deps">, row: SessionRow, mode: ApprovalMode): Promise<void> {
  const core = m.hubs.get(row.sessionId)?.core;
  if (core !== undefined) core.setApprovalMode(mode);
  else await recordFact(m, row, settingsChanged({ approval_mode: mode }));
}

/**
 * A person changed the session's thinking level: recorded at once as `settings_changed`
 * (the open core Session takes it for its next request). `null` goes back to the agent's
 * default, which is recorded as the level it is now, so the trace alone says what runs.
 */
export async function setThinkingLevel(m: Pick<ManagerParts, "hubs" | "agent" | "deps">, row: SessionRow, level: ThinkingLevel | null): Promise<void> {
  const agent = await m.agent(row.projectId, row.agentId);
  const chosen = level ?? agentDefaultThinkingLevel(agent);
  const core = m.hubs.get(row.sessionId)?.core;
  if (core !== undefined) core.thinkingLevel = chosen;
  await recordFact(m, row, settingsChanged({ thinking_level: chosen }));
}

/**
 * Record a host-decided fact (title, archive) in the session's trace: through its open core
 * Session when there is one, else appended by core to the trace on disk.
 */
export async function recordFact(m: Pick<ManagerParts, "hubs" | "agent" | "deps">, row: SessionRow, fact: OmniMessage<"event_msg">): Promise<void> {
  const core = m.hubs.get(row.sessionId)?.core;
  if (core !== undefined) return core.recordFact(fact);
  (await m.agent(row.projectId, row.agentId)).recordSessionFact(row.sessionId, fact);
  // Written without the session loaded: whoever follows its stream gets it from the file (on
  // another node of a cluster, after this node's notice).
  m.hubs.get(row.sessionId)?.channel.catchUp();
  announceUnsent(m, row);
}

/**
 * Allows or forbids the network to a session's sandboxed commands (the route checks who may).
 * The sandbox is fixed when the core session is built, so a loaded session is rebuilt: at
 * once when idle, after its run when busy (the running task keeps the sandbox it started with).
 */
export async function setSandboxNetwork(m: ManagerParts, row: SessionRow, allowed: boolean): Promise<void> {
  if ((await m.deps.traceInfo(row)).sandboxNetwork === allowed) return;
  await recordFact(m, row, settingsChanged({ sandbox_network: allowed }));
  const hub = m.hubs.get(row.sessionId);
  if (hub === undefined || hub.core === undefined) return;
  if (hub.busy) hub.stale = true;
  else await m.unload(hub);
}

/**
 * The sandbox of one session: the server's (undefined when commands run unsandboxed), with
 * the network when the server allows it to every session or this session is allowed it.
 */
export function sessionSandbox(base: SandboxOptions | undefined, sandboxNetwork: boolean): SandboxOptions | undefined {
  if (base === undefined) return undefined;
  return { ...base, network: base.enabled && (base.network === true || sandboxNetwork) };
}

/** The thinking level the agent gives a new session (its system config, then the project's default chat). */
function agentDefaultThinkingLevel(agent: Agent): ThinkingLevel {
  let level: string | undefined;
  try {
    level = parseSystemConfig(readFileSync(agent.paths.systemConfig, "utf8"), agent.paths.systemConfig).model.thinking_level;
  } catch {
    level = undefined;
  }
  level ??= agent.projectConfig().default_chat?.thinking_level;
  return level !== undefined && isThinkingLevel(level) ? level : "medium";
}

/**
 * A new session's approval mode when the request names none: the project's
 * `default_chat.approval_mode` (an owner sets it), else `read-only` for a session a person
 * opens (read-only tools run, writes and commands ask), or `allow-all` for a schedule's run,
 * which nobody watches to answer an approval.
 */
export function defaultApprovalMode(agent: Agent, source?: "schedule"): ApprovalMode {
  const mode = agent.projectConfig().default_chat?.approval_mode;
  if (isApprovalMode(mode)) return mode;
  return source === "schedule" ? "allow-all" : WEB_SESSION_DEFAULT_APPROVAL;
}
