/**
 * The subagents a run starts, as the server shows them: each child is indexed (its own page
 * and stream resolve, and the project hears `session_created`), and its messages, which reach
 * the parent's run with an origin, are mirrored onto the child's own stream. Module functions
 * over `ManagerParts`; the SessionManager passes them to its TaskRunner.
 */
import { basename, dirname } from "node:path";
import { PROJECT_OR_AGENT_ID } from "@penguin/core";
import { isTraceable, type OmniMessage, type SessionMetaPayload } from "@penguin/omnimessage";
import { JUST_CREATED } from "../services/session-trace-info.js";
import { sessionView } from "../services/session-view.js";
import type { SessionHub } from "./session-hub.js";
import type { ManagerParts } from "./session-manager-parts.js";
import { announceUnsent } from "./followed-streams.js";

/**
 * A run started a subagent: index the child (its trace is in the agent named by its
 * agent_state path, in the parent's project) so its own page and stream resolve.
 */
export function indexChild(m: Pick<ManagerParts, "deps">, parent: SessionHub, meta: SessionMetaPayload): void {
  const { stores } = m.deps;
  const agentId = basename(dirname(meta.agent_state));
  if (!PROJECT_OR_AGENT_ID.test(agentId) || stores.sessions.get(meta.session_id) !== undefined) return;
  const now = m.deps.now();
  stores.sessions.upsertFromTrace({ sessionId: meta.session_id, projectId: parent.projectId, agentId, provider: meta.provider, modelId: meta.model_id, workspace: meta.workspace, createdAt: now });
  const row = stores.sessions.get(meta.session_id);
  // The child's own header (meta) says it is a subagent's run: the event names that source.
  if (row !== undefined) m.deps.userEvents.toProject(parent.projectId, { type: "session_created", session: { ...sessionView(row, undefined, { ...JUST_CREATED, source: "subagent", client: "subagent" }, false), parentSessionId: parent.sessionId } });
}

/** A child's message, as its own stream shows it: the outermost origin hop removed. */
export function mirrorChild(m: Pick<ManagerParts, "hubs" | "deps">, message: OmniMessage): void {
  const [child, ...rest] = message.origin ?? [];
  const hub = child === undefined ? undefined : m.hubs.get(child);
  // Nobody here follows the child: a node of the cluster that does reads its new records itself.
  if (hub === undefined && child !== undefined && isTraceable(message)) announceUnsent(m, { sessionId: child });
  if (hub === undefined) return;
  const { origin: _origin, ...plain } = message;
  const mirrored = (rest.length === 0 ? plain : { ...plain, origin: rest }) as OmniMessage;
  // The child's records are in its own trace (its writer put them there before the parent
  // saw them): they are sent from there, with their positions; the rest is volatile.
  if (isTraceable(mirrored)) hub.channel.catchUp();
  else hub.channel.volatile(JSON.stringify(mirrored));
}
