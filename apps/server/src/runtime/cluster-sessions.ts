/**
 * The SessionManager's side of running in a cluster (cluster/cluster-node.ts says the protocol):
 * claiming a session's lease row before it loads, noting when the row taken was a dead node's
 * with work left, restoring such a session's queue once (the sweeper, the start-up restore and a
 * load may all ask), telling the cluster whether a session has work, handing sessions with
 * work over on a graceful stop, and giving up a session whose row another node took. Module
 * state over `ManagerParts`, so session-manager.ts only says when each happens. Without
 * `deps.ownership` (SQLite) every method does nothing.
 */
import { sessionLeaseFile, type AgentPaths } from "@penguin/core";
import type { SessionRow } from "../db/sessions-store.js";
import type { SessionHub } from "./session-hub.js";
import type { ManagerParts } from "./session-manager-parts.js";
import { restoreQueue } from "./task-queue.js";

export class ClusterSessions {
  /** Sessions whose row this node took from a dead node with work left: their queue is restored once loaded. */
  readonly #orphaned = new Set<string>();
  /** Queue restores in flight, by session id. */
  readonly #restoring = new Map<string, Promise<number>>();

  constructor(private readonly m: ManagerParts) {}

  /** Before a session loads: the row, or 409 naming the node that runs it. */
  claim(paths: AgentPaths, sessionId: string): void {
    if (this.m.deps.ownership?.claim(sessionId, sessionLeaseFile(paths, sessionId)) === true) this.#orphaned.add(sessionId);
  }

  release(sessionId: string): void {
    this.#orphaned.delete(sessionId);
    this.m.deps.ownership?.release(sessionId);
  }

  /** After a load: a session that was a dead node's with work left gets its queued follow-ups back. */
  loaded(row: SessionRow): void {
    if (this.#orphaned.delete(row.sessionId)) void this.restoreOnce(row).catch((error: unknown) => this.m.deps.report(error));
  }

  /** Restores a session's queue from its trace, one restore of a session at a time. */
  restoreOnce(row: SessionRow): Promise<number> {
    let restoring = this.#restoring.get(row.sessionId);
    if (restoring === undefined) {
      restoring = restoreQueue(this.m, row)
        .then((restored) => {
          const hub = this.m.hubs.get(row.sessionId);
          if (hub !== undefined) this.markActivity(hub);
          return restored;
        })
        .finally(() => this.#restoring.delete(row.sessionId));
      this.#restoring.set(row.sessionId, restoring);
    }
    return restoring;
  }

  /** The sweeper hands over a session whose runner died with work left: resumed here, its queue run. */
  async pickUp(sessionId: string): Promise<void> {
    if (this.m.closing()) return;
    const row = this.m.deps.stores.sessions.get(sessionId);
    if (row === undefined) {
      this.m.deps.ownership?.abandon(sessionId);
      return;
    }
    await this.restoreOnce(row);
  }

  /** Tells the cluster whether the session has work another node must resume should this one die. */
  markActivity(hub: SessionHub): void {
    if (hub.core === undefined) return;
    try {
      this.m.deps.ownership?.setActive(hub.sessionId, hub.busy || hub.followUps.length > 0);
    } catch (error) {
      this.m.deps.report(error);
    }
  }

  /** A graceful stop begins: sessions with work left (a run, queued follow-ups, which their traces record) go to another node. */
  handOverBusy(): void {
    this.m.deps.ownership?.handOver([...this.m.hubs.values()].filter((h) => h.core !== undefined && (h.busy || h.followUps.length > 0)).map((h) => h.sessionId));
  }

  /**
   * Another node took the session's row (this one stalled past its lease): stop writing to it
   * at once — the run aborted, the queue dropped (the trace keeps it for the new runner), the
   * session unloaded.
   */
  async lost(sessionId: string): Promise<void> {
    const hub = this.m.hubs.get(sessionId);
    if (hub === undefined) return;
    hub.followUps.splice(0);
    if (hub.run !== undefined) {
      hub.run.controller.abort();
      hub.approvals.denyAll();
      await hub.run.done.catch(() => undefined);
    }
    await this.m.unload(hub);
  }
}
