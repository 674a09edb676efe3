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
 * Kysely's own executor (async) is used only by the migrations at open, on the same
 * connection (db/migrations.ts).
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
    const statement = this.sqlite.prepare(compiled.sql);
    const bind = (args: A): unknown[] => compiled.parameters.map((p) => (p instanceof Placeholder ? args[p.index] : p));
    return {
      all: (...args) => statement.all(...bind(args)) as R[],
      first: (...args) => statement.get(...bind(args)) as R | undefined,
      run: (...args) => statement.run(...bind(args)),
    };
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
