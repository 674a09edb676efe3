/**
 * Lease rows: which node runs a session, cluster-wide. A row is (session, node, token, expiry,
 * wants_pickup); its expiry is on PostgreSQL's clock. The statements, each one atomic:
 *
 *   - claim: insert the row, or take it over when it has expired (or is already this node's):
 *     `insert … on conflict (session_id) do update … where expired or mine`. No row comes back
 *     when a live lease of another node stands, so of any number of nodes exactly one wins.
 *   - renew: push the expiry of every row this node holds (by node and token) forward; a row
 *     that no longer answers to its token was taken over, and is reported lost.
 *   - release: delete the row if it still has this holder's token.
 *   - wants pickup: set while a task runs or follow-ups wait, so that when the node dies the
 *     sweeper (cluster-node.ts) knows the session has work to resume elsewhere.
 */
import type { SyncPostgres } from "../db/postgres-sync.js";
import { DB_NOW_MS } from "./cluster-tables.js";

export interface LeaseHolderRow {
  nodeId: string;
  /** Whether the lease is still in force (not expired on PostgreSQL's clock). */
  live: boolean;
  wantsPickup: boolean;
}

export class SessionLeaseRows {
  constructor(
    private readonly db: SyncPostgres,
    readonly nodeId: string,
    readonly leaseMs: number,
  ) {}

  /**
   * Takes the session's row for this node: "refused" while another node's lease is in force;
   * "orphaned" when the row it took was another node's, expired with work left (a task, queued
   * follow-ups) that the taker must resume; else "taken".
   */
  claim(sessionId: string, token: string): "taken" | "orphaned" | "refused" {
    const taken = this.db.query(
      `with before as (select node_id, wants_pickup from cluster_session_leases where session_id = $1)
       insert into cluster_session_leases (session_id, node_id, token, expires_at, wants_pickup)
       values ($1, $2, $3, ${DB_NOW_MS} + $4::bigint, 0)
       on conflict (session_id) do update set node_id = excluded.node_id, token = excluded.token, expires_at = excluded.expires_at
       where cluster_session_leases.expires_at <= ${DB_NOW_MS} or cluster_session_leases.node_id = excluded.node_id
       returning (select node_id from before) as previous_node, (select wants_pickup from before) as previous_work`,
      [sessionId, this.nodeId, token, this.leaseMs],
    );
    const row = taken.rows[0];
    if (row === undefined) return "refused";
    return row.previous_node !== null && row.previous_node !== this.nodeId && Number(row.previous_work) === 1 ? "orphaned" : "taken";
  }

  /** Renews every given lease of this node; answers the session ids whose row was taken from it. */
  renew(held: ReadonlyMap<string, string>): string[] {
    if (held.size === 0) return [];
    const ids = [...held.keys()];
    const tokens = ids.map((id) => held.get(id)!);
    const kept = this.db.query(
      `update cluster_session_leases l set expires_at = ${DB_NOW_MS} + $2::bigint
       from unnest($3::text[], $4::text[]) as h(session_id, token)
       where l.session_id = h.session_id and l.token = h.token and l.node_id = $1
       returning l.session_id`,
      [this.nodeId, this.leaseMs, ids, tokens],
    );
    const still = new Set(kept.rows.map((r) => String(r.session_id)));
    return ids.filter((id) => !still.has(id));
  }

  /** A graceful stop with work left: the row expires now, marked for pickup, so another node resumes it at once. */
  handOver(sessionId: string, token: string): void {
    this.db.query(`update cluster_session_leases set expires_at = ${DB_NOW_MS}, wants_pickup = 1 where session_id = $1 and token = $2`, [sessionId, token]);
  }

  release(sessionId: string, token: string): void {
    this.db.query("delete from cluster_session_leases where session_id = $1 and token = $2", [sessionId, token]);
  }

  setWantsPickup(sessionId: string, token: string, wants: boolean): void {
    this.db.query("update cluster_session_leases set wants_pickup = $3 where session_id = $1 and token = $2", [sessionId, token, wants ? 1 : 0]);
  }

  holder(sessionId: string): LeaseHolderRow | undefined {
    const row = this.db.query(`select node_id, expires_at > ${DB_NOW_MS} as live, wants_pickup from cluster_session_leases where session_id = $1`, [sessionId]).rows[0];
    if (row === undefined) return undefined;
    return { nodeId: String(row.node_id), live: row.live === true, wantsPickup: Number(row.wants_pickup) === 1 };
  }

  /** Sessions whose holder's lease expired while they still had work (a task, queued follow-ups). */
  orphaned(limit: number): string[] {
    return this.db
      .query(`select session_id from cluster_session_leases where wants_pickup = 1 and expires_at <= ${DB_NOW_MS} order by expires_at limit $1`, [limit])
      .rows.map((r) => String(r.session_id));
  }

  /** Drops expired rows nobody needs to resume (their node died idle): the table keeps only live work. */
  forgetIdleExpired(): void {
    this.db.query(`delete from cluster_session_leases where wants_pickup = 0 and expires_at <= ${DB_NOW_MS}`);
  }
}
