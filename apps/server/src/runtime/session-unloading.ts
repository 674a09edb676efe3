/**
 * Unloading sessions while the server runs: idle eviction (a session idle for `idleMs` has its
 * core Session disposed, its lease let go, and its hub dropped once nobody listens) and the
 * reloads after an agent's state or a project's models change (idle sessions at once, running
 * ones after their run, marked `stale`). Module functions over `ManagerParts`; the
 * SessionManager's methods of the same names delegate here.
 */
import type { ManagerParts } from "./session-manager-parts.js";

/** Disposes sessions idle for longer than `idleMs`; drops hubs nobody follows. */
export async function evictIdle(m: ManagerParts): Promise<number> {
  const now = m.deps.now();
  let evicted = 0;
  for (const hub of [...m.hubs.values()]) {
    if (hub.busy || hub.followUps.length > 0 || hub.loading !== undefined || now - hub.lastActiveAt < m.deps.idleMs) continue;
    if (hub.core !== undefined) {
      await m.unload(hub);
      evicted += 1;
    }
    if (hub.channel.subscriberCount === 0 && hub.core === undefined) m.hubs.delete(hub.sessionId);
  }
  return evicted;
}

/** An agent's state was replaced (snapshot import): reload its idle sessions, the others after their run. */
export function reloadAgent(m: Pick<ManagerParts, "hubs" | "unload">, projectId: string, agentId: string): void {
  for (const hub of m.hubs.values()) {
    if (hub.projectId !== projectId || hub.agentId !== agentId) continue;
    if (hub.busy) hub.stale = true;
    else void m.unload(hub);
  }
}

/** The project's models changed: tell every open session, and reload their core Sessions. */
export function invalidateProject(m: Pick<ManagerParts, "hubs" | "unload">, projectId: string): void {
  for (const hub of m.hubs.values()) {
    if (hub.projectId !== projectId) continue;
    hub.serverEvent({ type: "credentials_updated", projectId });
    if (hub.busy) hub.stale = true;
    else void m.unload(hub);
  }
}
