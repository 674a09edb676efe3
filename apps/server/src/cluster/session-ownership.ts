/**
 * What the SessionManager asks of "who runs this session" beyond the file lease core takes:
 * nothing on SQLite (one server per facts.db, the file lease is the whole story), the lease row
 * of cluster-node.ts on PostgreSQL. A type-only module, so the runtime imports no cluster code.
 */
export interface SessionOwnership {
  /** What this node writes as the holder of the sessions' file leases (`penguin server node <id>`). */
  readonly holderCommand: string;
  /**
   * Makes this node the session's runner before it loads the session, or throws 409
   * `session_busy` naming the node that runs it. `leaseFile` is the session's file lease: one a
   * dead (or fenced-off) node left is removed once the row proves that node no longer runs it.
   * True when the row was a dead node's with work left: the caller resumes its queue.
   */
  claim(sessionId: string, leaseFile: string): boolean;
  /**
   * A graceful stop is about to unload these sessions, which still have work: their rows are
   * handed over (expired now, marked for pickup) instead of deleted, so another node resumes them.
   */
  handOver(sessionIds: readonly string[]): void;
  /** The session was unloaded here: its row goes (idempotent). */
  release(sessionId: string): void;
  /** Whether the session has work (a run, queued follow-ups) another node must resume if this one dies. */
  setActive(sessionId: string, active: boolean): void;
  /** A lease row of a session that no longer exists: dropped so nobody tries to resume it. */
  abandon(sessionId: string): void;
  /** How the node tells the manager about sessions it lost, and hands it sessions to resume. */
  bind(handlers: { onLost(sessionId: string): void; pickUp(sessionId: string): Promise<void> }): void;
  /** The server stops, its sessions already unloaded: whatever this node still holds is let go. */
  stop(): void;
}
