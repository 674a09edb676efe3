/**
 * The two tables a cluster of server nodes shares in PostgreSQL, beside the facts:
 *
 *   - `cluster_nodes`: one row per running node (its id, the URL other nodes reach it at, its
 *     last heartbeat), so a node can tell where a session runs and forward a write there.
 *   - `cluster_session_leases`: one row per session a node runs (the node, a random token, an
 *     expiry on PostgreSQL's clock, whether the session has work left if the node dies).
 *
 * They are not facts migrations: SQLite never needs them (one server per facts.db), so they are
 * created here, on PostgreSQL only, under a transaction-scoped advisory lock so nodes starting
 * at once do not race on `create table`. Times are epoch milliseconds taken from PostgreSQL's
 * own clock (`DB_NOW_MS`), never a node's, so nodes whose clocks disagree agree on expiry.
 */
import type { SyncPostgres } from "../db/postgres-sync.js";

/** PostgreSQL's clock in epoch milliseconds (the transaction's start would stand still inside one). */
export const DB_NOW_MS = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

/** Serialises the creation below across nodes (an arbitrary key, unique to this purpose). */
const CREATE_LOCK_KEY = 0x70656e67;

export function ensureClusterTables(db: SyncPostgres): void {
  db.query("begin");
  try {
    db.query("select pg_advisory_xact_lock($1)", [CREATE_LOCK_KEY], true);
    db.query(
      `create table if not exists cluster_nodes (
        node_id text primary key,
        url text,
        started_at bigint not null,
        heartbeat_at bigint not null
      )`,
      [],
      true,
    );
    db.query(
      `create table if not exists cluster_session_leases (
        session_id text primary key,
        node_id text not null,
        token text not null,
        expires_at bigint not null,
        wants_pickup integer not null default 0
      )`,
      [],
      true,
    );
    db.query("create index if not exists cluster_session_leases_pickup on cluster_session_leases (expires_at) where wants_pickup = 1", [], true);
    db.query("commit", [], true);
  } catch (error) {
    try {
      db.query("rollback", [], true);
    } catch {
      // the connection is gone: PostgreSQL rolled back itself
    }
    throw error;
  }
}
