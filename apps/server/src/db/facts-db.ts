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
 * Kysely's own executor (async) is used only by the migrations at open, on the same
 * connection (facts-migrations.ts).
 */
import type BetterSqlite3 from "better-sqlite3";
import type { Compilable, Kysely } from "kysely";
import type { FactsSchema } from "./facts-schema.js";

/** A store's queries are few and fixed; the bound only guards against an unforeseen shape per call. */
const STATEMENT_CACHE_LIMIT = 512;

export interface RunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

export class FactsDb {
  /** The better-sqlite3 connection (pragmas, tests that inspect the file). */
  readonly sqlite: BetterSqlite3.Database;
  /** The query builder: build here, then hand the query to `all`, `first` or `run`. */
  readonly query: Kysely<FactsSchema>;
  readonly #statements = new Map<string, BetterSqlite3.Statement>();

  constructor(sqlite: BetterSqlite3.Database, query: Kysely<FactsSchema>) {
    this.sqlite = sqlite;
    this.query = query;
  }

  /** Every row the query returns. */
  all<R>(query: Compilable<R>): R[] {
    const compiled = query.compile();
    return this.#statement(compiled.sql).all(...compiled.parameters) as R[];
  }

  /** The first row the query returns, if any. */
  first<R>(query: Compilable<R>): R | undefined {
    const compiled = query.compile();
    return this.#statement(compiled.sql).get(...compiled.parameters) as R | undefined;
  }

  /** Runs a statement that returns no rows (insert, update, delete without `returning`). */
  run(query: Compilable<unknown>): RunResult {
    const compiled = query.compile();
    return this.#statement(compiled.sql).run(...compiled.parameters);
  }

  /** Runs `work` in one transaction (better-sqlite3's: committed when it returns, rolled back when it throws). */
  transaction<T>(work: () => T): T {
    return this.sqlite.transaction(work)();
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
