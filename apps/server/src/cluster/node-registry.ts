/**
 * This node in `cluster_nodes`: registered at start (no URL until the server listens),
 * heartbeat on every lease tick, removed on a graceful stop. Another node reads it to learn
 * where a session's runner answers (forwarding.ts); a node that died keeps its row, but its
 * heartbeat goes old, and its leases expire anyway, so nobody forwards to it for long.
 */
import type { SyncPostgres } from "../db/postgres-sync.js";
import { DB_NOW_MS } from "./cluster-tables.js";

export interface NodeInfo {
  nodeId: string;
  url: string | null;
  /** Milliseconds since its last heartbeat, on PostgreSQL's clock. */
  silentForMs: number;
}

export class NodeRegistry {
  constructor(
    private readonly db: SyncPostgres,
    readonly nodeId: string,
  ) {}

  register(): void {
    this.db.query(
      `insert into cluster_nodes (node_id, url, started_at, heartbeat_at) values ($1, null, ${DB_NOW_MS}, ${DB_NOW_MS})
       on conflict (node_id) do update set heartbeat_at = excluded.heartbeat_at`,
      [this.nodeId],
    );
  }

  /** The URL other nodes reach this one at (its listening address, or what the operator gave). */
  advertise(url: string): void {
    this.db.query(`update cluster_nodes set url = $2, heartbeat_at = ${DB_NOW_MS} where node_id = $1`, [this.nodeId, url]);
  }

  heartbeat(): void {
    this.db.query(`update cluster_nodes set heartbeat_at = ${DB_NOW_MS} where node_id = $1`, [this.nodeId]);
  }

  lookup(nodeId: string): NodeInfo | undefined {
    const row = this.db.query(`select node_id, url, ${DB_NOW_MS} - heartbeat_at as silent from cluster_nodes where node_id = $1`, [nodeId]).rows[0];
    if (row === undefined) return undefined;
    return { nodeId: String(row.node_id), url: typeof row.url === "string" ? row.url : null, silentForMs: Number(row.silent) };
  }

  deregister(): void {
    this.db.query("delete from cluster_nodes where node_id = $1", [this.nodeId]);
  }
}
