/**
 * The handle every facts store uses: Kysely builds and compiles the queries (typed against
 * `FactsSchema`), better-sqlite3 runs them, synchronously.
 *
 * Why synchronous: the stores' callers are. Authentication, the access policy, the routes,
 * the session manager and the scheduler read and write facts inline, between other steps
 * whose order matters (a busy check and the task start, a password check and the session it
 * mints); turning every store call into a Promise would add an await, and so an interleaving
 * point, to each of those paths without buying anything, since better-sqlite3 never yields
 * anyway. So a store builds its query with Kysely (`facts.query`), and `all`/`first`/`run`
 * compile it (`.compile()` gives the SQL text and its parameters) and execute the compiled
 * SQL on the better-sqlite3 connection. Prepared statements are cached by SQL text: a store's
 * queries have a fixed shape, so each is prepared once, as the hand-written statements were.
 *
 * The queries on every request's path (the cookie lookup, the access checks) are compiled
 * once instead (`prepare`): the query is built with one placeholder per argument, compiled,
 * and each call only swaps the placeholders for its arguments in the compiled parameters.
 * Building a Kysely query costs tens of microseconds (a join more), the prepared statement a
 * few; the SQL is the same either way.
 *
 * Kysely's own executor (async) is used only by the migrations at open (db/migrations.ts).
 *
 * Two engines run the compiled SQL (db/dialect.ts lists how they differ): better-sqlite3 on
 * `facts.db`, or, with `--database postgres://…`, one PostgreSQL connection driven
 * synchronously (db/postgres-sync.ts). `FactEngine` is the little each must do.
 */
import type BetterSqlite3 from "better-sqlite3";
import type { Compilable, Kysely } from "kysely";
import type { FactsSchema } from "./facts-schema.js";
import type { SyncPostgres } from "./postgres-sync.js";

/** A store's queries are few and fixed; the bound only guards against an unforeseen shape per call. */
const STATEMENT_CACHE_LIMIT = 512;

export interface RunResult {
  changes: number;
}

/** Stands for one argument of a prepared query until the call supplies it. */
class Placeholder {
  constructor(readonly index: number) {}
}

/** A query compiled once; each call binds its arguments in place of the placeholders. */
export interface PreparedQuery<A extends readonly unknown[], R> {
  all(...args: A): R[];
  first(...args: A): R | undefined;
  run(...args: A): RunResult;
}

/** What runs compiled SQL for FactsDb: SQLite's file or a PostgreSQL connection. */
export interface FactEngine {
  readonly kind: "sqlite" | "postgres";
  all(sql: string, params: readonly unknown[]): unknown[];
  first(sql: string, params: readonly unknown[]): unknown;
  run(sql: string, params: readonly unknown[]): RunResult;
  transaction<T>(work: () => T): T;
  /** Whether this process holds the cluster-wide duty `name` now (taking it when free). */
  holdsDuty(name: string): boolean;
  close(): void;
}

export class SqliteEngine implements FactEngine {
  readonly kind = "sqlite";
  readonly #statements = new Map<string, BetterSqlite3.Statement>();
  constructor(readonly sqlite: BetterSqlite3.Database) {}
  all(sql: string, params: readonly unknown[]): unknown[] {
    return this.#statement(sql).all(...params);
  }
  first(sql: string, params: readonly unknown[]): unknown {
    return this.#statement(sql).get(...params);
  }
  run(sql: string, params: readonly unknown[]): RunResult {
    return { changes: this.#statement(sql).run(...params).changes };
  }
  /** better-sqlite3's: committed when `work` returns, rolled back when it throws. */
  transaction<T>(work: () => T): T {
    return this.sqlite.transaction(work)();
  }
  /** One server per facts.db (server.lock): every duty is this one's. */
  holdsDuty(_name: string): boolean {
    return true;
  }
  close(): void {
    this.sqlite.close();
  }
  #statement(text: string): BetterSqlite3.Statement {
    let statement = this.#statements.get(text);
    if (statement === undefined) {
      if (this.#statements.size >= STATEMENT_CACHE_LIMIT) this.#statements.clear();
      statement = this.sqlite.prepare(text);
      this.#statements.set(text, statement);
    }
    return statement;
  }
}

export class PostgresEngine implements FactEngine {
  readonly kind = "postgres";
  #depth = 0;
  constructor(
    readonly connection: SyncPostgres,
    readonly onClose: () => void = () => undefined,
  ) {}
  all(sql: string, params: readonly unknown[]): unknown[] {
    return this.connection.query(sql, params, this.#depth > 0).rows;
  }
  first(sql: string, params: readonly unknown[]): unknown {
    return this.connection.query(sql, params, this.#depth > 0).rows[0];
  }
  run(sql: string, params: readonly unknown[]): RunResult {
    return { changes: this.connection.query(sql, params, this.#depth > 0).rowCount };
  }
  /** BEGIN … COMMIT on the one connection; a nested call is a savepoint, as better-sqlite3 does. */
  transaction<T>(work: () => T): T {
    const depth = this.#depth;
    const savepoint = `facts_tx_${depth}`;
    this.connection.query(depth === 0 ? "begin" : `savepoint ${savepoint}`, [], depth > 0);
    this.#depth = depth + 1;
    try {
      const out = work();
      this.connection.query(depth === 0 ? "commit" : `release savepoint ${savepoint}`, [], true);
      return out;
    } catch (error) {
      try {
        this.connection.query(depth === 0 ? "rollback" : `rollback to savepoint ${savepoint}`, [], true);
      } catch {
        // The connection was lost: PostgreSQL rolled the transaction back itself. The first error says why.
      }
      throw error;
    } finally {
      this.#depth = depth;
    }
  }
  /**
   * A session-level advisory lock on this node's facts connection, keyed by the duty's name:
   * held until the connection ends, so a node that dies (its connection with it) frees the duty
   * and the next node to ask takes it over. pg_locks says whether this connection already holds
   * it (after a reconnect it does not), so the lock is taken once, not stacked every call.
   */
  holdsDuty(name: string): boolean {
    const key = dutyKey(name);
    const held = this.connection.query(
      "select count(*)::int as n from pg_locks where locktype = 'advisory' and pid = pg_backend_pid() and granted and classid = 0 and objid = $1::bigint::oid and objsubid = 1",
      [key],
    ).rows[0] as { n: number } | undefined;
    if ((held?.n ?? 0) > 0) return true;
    const taken = this.connection.query("select pg_try_advisory_lock($1::bigint) as ok", [key]).rows[0] as { ok: boolean } | undefined;
    return taken?.ok === true;
  }
  close(): void {
    this.connection.close();
    this.onClose();
  }
}

/** A duty's advisory-lock key: a 31-bit FNV-1a hash of its name (positive, so pg_locks shows it as classid 0, objid key). */
export function dutyKey(name: string): number {
  let hash = 0x811c9dc5;
  for (const ch of `penguin-duty:${name}`) hash = Math.imul(hash ^ ch.charCodeAt(0), 0x01000193);
  return (hash >>> 0) & 0x7fffffff;
}

export class FactsDb {
  /** The query builder: build here, then hand the query to `all`, `first` or `run`. */
  readonly query: Kysely<FactsSchema>;
  readonly engine: FactEngine;

  constructor(engine: FactEngine, query: Kysely<FactsSchema>) {
    this.engine = engine;
    this.query = query;
  }

  /** The better-sqlite3 connection (pragmas, tests that inspect the file); SQLite only. */
  get sqlite(): BetterSqlite3.Database {
    if (this.engine instanceof SqliteEngine) return this.engine.sqlite;
    throw new Error("the facts database is PostgreSQL (--database), not a SQLite file: there is no better-sqlite3 connection");
  }

  /** Every row the query returns. */
  all<R>(query: Compilable<R>): R[] {
    const compiled = query.compile();
    return this.engine.all(compiled.sql, compiled.parameters) as R[];
  }

  /** The first row the query returns, if any. */
  first<R>(query: Compilable<R>): R | undefined {
    const compiled = query.compile();
    return this.engine.first(compiled.sql, compiled.parameters) as R | undefined;
  }

  /** Runs a statement that returns no rows (insert, update, delete without `returning`). */
  run(query: Compilable<unknown>): RunResult {
    const compiled = query.compile();
    return this.engine.run(compiled.sql, compiled.parameters);
  }

  /**
   * Compiles `build`'s query once. `build` must give a query of one fixed shape whatever its
   * arguments (it is called once, with placeholders, never with real values), and use each
   * argument as a value; a placeholder that does not reach the compiled parameters is refused.
   */
  prepare<A extends readonly unknown[], R>(arity: A["length"], build: (...args: A) => Compilable<R>): PreparedQuery<A, R> {
    const placeholders = Array.from({ length: arity }, (_, i) => new Placeholder(i));
    const compiled = build(...(placeholders as unknown as A)).compile();
    const used = new Set(compiled.parameters.flatMap((p) => (p instanceof Placeholder ? [p.index] : [])));
    if (used.size !== arity) throw new Error(`a prepared facts query must use each of its ${arity} arguments as a value: ${compiled.sql}`);
    const text = compiled.sql;
    const bind = (args: A): unknown[] => compiled.parameters.map((p) => (p instanceof Placeholder ? args[p.index] : p));
    return {
      all: (...args) => this.engine.all(text, bind(args)) as R[],
      first: (...args) => this.engine.first(text, bind(args)) as R | undefined,
      run: (...args) => this.engine.run(text, bind(args)),
    };
  }

  /** Runs `work` in one transaction: committed when it returns, rolled back when it throws. */
  transaction<T>(work: () => T): T {
    return this.engine.transaction(work);
  }

  /**
   * Whether this server should do the cluster duty `name` (the scheduler's pass) now: always on
   * SQLite; on PostgreSQL, for the one node holding its advisory lock.
   */
  holdsDuty(name: string): boolean {
    return this.engine.holdsDuty(name);
  }

  close(): void {
    this.engine.close();
  }
}
