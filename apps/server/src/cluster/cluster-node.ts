/**
 * This server as one node of a cluster (facts in PostgreSQL, several nodes on one data root):
 * it registers in `cluster_nodes`, and makes itself the runner of a session before loading it
 * (a lease row, session-leases.ts), renewing its rows on a ticker (`tickMs`: every second, or a
 * third of a shorter lease) and letting a row go when the session is unloaded or the server stops.
 *
 * How the row combines with core's file lease (`<sid>.lease`): a node holds both. The file
 * lease keeps CLI processes on the same root out (they know nothing of PostgreSQL), and it
 * names the node (`penguin server node <id>`). Between server nodes the row decides: once a
 * node holds the row, a file lease naming another node is proof of nothing any more (that node
 * died, on this host or another, or lost its row), so `claim` removes it — still only if it
 * names a server node and is the same lease that was read; core then takes a fresh one. A file
 * lease of a CLI is never removed: the load fails with `session_busy` as before.
 *
 * Failover: every tick, the node holding the `session-pickup` duty (an advisory lock, one node
 * at a time, taken over when its holder's connection dies) looks for rows that expired while
 * their session had work (`wants_pickup`: a task running, follow-ups queued) and resumes each
 * here (SessionManager.pickUp: core's usual carry-over for the interrupted turn, then the
 * queued follow-ups from the trace).
 *
 * A graceful stop hands sessions with work over: their rows expire at once, marked for pickup,
 * so another node resumes them on its next tick instead of after the lease.
 *
 * Fencing is best effort: a node whose renewal finds a row taken from it (it stalled longer
 * than the lease) aborts that session's run and unloads it (`onLost`).
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { liveLeaseHolder, readLease } from "@penguin/core";
import type { SyncPostgres } from "../db/postgres-sync.js";
import { ApiError } from "../http/api-error.js";
import type { Ticker } from "../runtime/clock.js";
import { ensureClusterTables } from "./cluster-tables.js";
import { NodeRegistry } from "./node-registry.js";
import type { SessionOwnership } from "./session-ownership.js";
import { SessionLeaseRows } from "./session-leases.js";

/** The default lease: a dead node's sessions resume elsewhere within this (plus one tick). */
export const DEFAULT_LEASE_MS = 15_000;

/** The duty (facts-db.ts `holdsDuty`) of the one node that resumes orphaned sessions. */
export const PICKUP_DUTY = "session-pickup";

/** At most this many orphaned sessions are resumed per tick, so one tick stays short. */
const PICKUPS_PER_TICK = 20;

const HOLDER_PREFIX = "penguin server node ";

export interface ClusterNodeOptions {
  leaseMs: number;
  ticker: Ticker;
  /** Whether this node holds a cluster duty now (the facts engine's advisory lock). */
  holdsDuty(name: string): boolean;
  report(error: unknown): void;
}

export interface RunnerLocation {
  nodeId: string;
  /** Where that node answers, when it has said (it listens). */
  url: string | null;
}

export class ClusterNode implements SessionOwnership {
  readonly nodeId = `n${randomBytes(6).toString("hex")}`;
  readonly holderCommand = `${HOLDER_PREFIX}${this.nodeId}`;
  readonly leaseMs: number;
  readonly #registry: NodeRegistry;
  readonly #rows: SessionLeaseRows;
  readonly #options: ClusterNodeOptions;
  /** The sessions this node holds: session id → its row's token. */
  readonly #held = new Map<string, string>();
  readonly #picking = new Set<string>();
  /** Sessions a graceful stop hands over to other nodes (their rows expire marked, not deleted). */
  readonly #handingOver = new Set<string>();
  #handlers: { onLost(sessionId: string): void; pickUp(sessionId: string): Promise<void> } | undefined;
  #stopTicker: (() => void) | undefined;
  #stopped = false;

  constructor(db: SyncPostgres, options: ClusterNodeOptions) {
    this.#options = options;
    this.leaseMs = options.leaseMs;
    ensureClusterTables(db);
    this.#registry = new NodeRegistry(db, this.nodeId);
    this.#rows = new SessionLeaseRows(db, this.nodeId, options.leaseMs);
    this.#registry.register();
    this.#stopTicker = options.ticker.every(tickMs(options.leaseMs), () => this.tick());
  }

  bind(handlers: { onLost(sessionId: string): void; pickUp(sessionId: string): Promise<void> }): void {
    this.#handlers = handlers;
  }

  advertise(url: string): void {
    this.#registry.advertise(url);
  }

  claim(sessionId: string, leaseFile: string): boolean {
    if (this.#stopped) throw new ApiError(503, "session_unavailable", "the server is shutting down");
    const token = this.#held.get(sessionId) ?? randomBytes(16).toString("hex");
    const outcome = this.#rows.claim(sessionId, token);
    if (outcome === "refused") {
      const where = this.whereRuns(sessionId);
      const at = where === undefined ? "another node" : `node ${where.nodeId}${where.url === null ? "" : ` (${where.url})`}`;
      throw new ApiError(409, "session_busy", `session ${sessionId} is being run by ${at} of this cluster; send its tasks there, or wait until it is idle (its lease is ${this.leaseMs / 1000} s)`);
    }
    this.#held.set(sessionId, token);
    removeOtherNodesFileLease(leaseFile, this.nodeId);
    return outcome === "orphaned";
  }

  handOver(sessionIds: readonly string[]): void {
    for (const id of sessionIds) this.#handingOver.add(id);
  }

  release(sessionId: string): void {
    const token = this.#held.get(sessionId);
    if (token === undefined) return;
    this.#held.delete(sessionId);
    if (this.#handingOver.delete(sessionId)) this.#rows.handOver(sessionId, token);
    else this.#rows.release(sessionId, token);
  }

  setActive(sessionId: string, active: boolean): void {
    const token = this.#held.get(sessionId);
    // Sessions being handed over keep their mark whatever their aborted run reports.
    if (token !== undefined && !this.#handingOver.has(sessionId)) this.#rows.setWantsPickup(sessionId, token, active);
  }

  abandon(sessionId: string): void {
    this.#rows.release(sessionId, this.#held.get(sessionId) ?? "");
    this.#held.delete(sessionId);
  }

  /** The other node whose lease on the session is in force, if any (this node's own: undefined). */
  whereRuns(sessionId: string): RunnerLocation | undefined {
    const holder = this.#rows.holder(sessionId);
    if (holder === undefined || !holder.live || holder.nodeId === this.nodeId) return undefined;
    return { nodeId: holder.nodeId, url: this.#registry.lookup(holder.nodeId)?.url ?? null };
  }

  /** Renews this node's rows and heartbeat, hands lost sessions back, and resumes orphaned ones when on duty. */
  tick(): void {
    if (this.#stopped) return;
    try {
      this.#registry.heartbeat();
      for (const lost of this.#rows.renew(this.#held)) {
        this.#held.delete(lost);
        this.#handlers?.onLost(lost);
      }
      if (this.#options.holdsDuty(PICKUP_DUTY)) this.#sweep();
    } catch (error) {
      // PostgreSQL unreachable for a moment: the next tick tries again (the lease outlives two misses).
      this.#options.report(error);
    }
  }

  /** Graceful stop, after the sessions were unloaded: whatever rows remain go, then this node's registration. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#stopTicker?.();
    try {
      for (const sessionId of [...this.#held.keys()]) this.release(sessionId);
      this.#registry.deregister();
    } catch (error) {
      this.#options.report(error);
    }
  }

  #sweep(): void {
    this.#rows.forgetIdleExpired();
    const pickUp = this.#handlers?.pickUp;
    if (pickUp === undefined) return;
    for (const sessionId of this.#rows.orphaned(PICKUPS_PER_TICK)) {
      if (this.#picking.has(sessionId) || this.#held.has(sessionId)) continue;
      this.#picking.add(sessionId);
      void pickUp(sessionId)
        .catch((error: unknown) => this.#options.report(error))
        .finally(() => this.#picking.delete(sessionId));
    }
  }
}

/**
 * After this node took the row: a file lease naming another server node of the cluster is
 * that node's leftover (the row says it no longer runs the session), removed if it is still the
 * same lease. A stale lease of this host is left to core, which takes it over by itself; a CLI's
 * lease is never touched.
 */
function removeOtherNodesFileLease(leaseFile: string, nodeId: string): void {
  const read = readLease(leaseFile);
  const holder = read?.holder;
  if (holder === undefined || !holder.command.startsWith(HOLDER_PREFIX)) return;
  if (holder.command === `${HOLDER_PREFIX}${nodeId}`) return;
  if (liveLeaseHolder(leaseFile) === undefined) return;
  if (readLease(leaseFile)?.token === read!.token) rmSync(leaseFile, { force: true });
}

/**
 * How often a node renews, heartbeats and (on duty) sweeps: every second, or every third of a
 * shorter lease. Renewing often keeps a dead node's rows from outliving it by more than the lease;
 * sweeping often makes the pickup follow the expiry within a second. Each is one small statement.
 */
export function tickMs(leaseMs: number): number {
  return Math.max(100, Math.min(1000, Math.floor(leaseMs / 3)));
}

/** The lease time from PENGUIN_LEASE_MS (milliseconds), else the default; a bad value is refused by name. */
export function leaseMsFrom(env: NodeJS.ProcessEnv): number {
  const raw = env.PENGUIN_LEASE_MS;
  if (raw === undefined || raw.trim() === "") return DEFAULT_LEASE_MS;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 300 || ms > 600_000) throw new Error(`PENGUIN_LEASE_MS must be a whole number of milliseconds from 300 to 600000 (got "${raw}"); leave it unset for ${DEFAULT_LEASE_MS} ms`);
  return ms;
}
