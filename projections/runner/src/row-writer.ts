/**
 * RowWriter: bulk inserts for a projection's `apply`, through statements prepared once.
 *
 * Building an insert with Kysely for every chunk of rows costs more than SQLite takes to run
 * it (the query is parsed, compiled and prepared again each time), and a rebuild writes
 * hundreds of thousands of rows. A RowWriter prepares one statement per table, column list,
 * conflict rule and row count (a multi-row `insert … values (…), (…)` of ROWS_PER_STATEMENT
 * rows, and one of a single row for the rest) on the database's own better-sqlite3 handle,
 * and reuses it. It runs inside the transaction the runner opened (the same connection), so
 * rows and checkpoints still commit together.
 *
 * On PostgreSQL (`postgresRowWriter`) the same multi-row statements are sent through `pg` on
 * the transaction's connection, with `$n` parameters; `insert` then returns a promise, which
 * is why the projections await it (on SQLite it returns nothing and costs no round trip).
 *
 * Table and column names come from the projections' code, never from trace content; they are
 * still checked against a plain identifier pattern before they reach SQL text.
 */
import type BetterSqlite3 from "better-sqlite3";
import { CompiledQuery, type Kysely } from "kysely";
import { postgresText } from "./dialect.js";

export interface UpsertRule {
  /** The unique key the conflict is on. */
  columns: readonly string[];
  /** Columns set from the new row when the key exists; none means keep the old row (do nothing). */
  update: readonly string[];
}

export interface RowWriter {
  /**
   * Inserts `rows` (plain objects, all with the columns of the first) into `table`. SQLite
   * writes at once and returns nothing; PostgreSQL returns the promise of the writes: await it.
   */
  insert(table: string, rows: readonly object[], onConflict?: UpsertRule): void | Promise<void>;
}

const ROWS_PER_STATEMENT = 64;
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

function checked(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`"${name}" is not a plain SQL identifier`);
  return `"${name}"`;
}

/** The text of a multi-row insert; `placeholder(i)` spells the i-th parameter (0-based). */
function insertText(table: string, columns: readonly string[], count: number, onConflict: UpsertRule | undefined, placeholder: (i: number) => string): string {
  const tuples: string[] = [];
  for (let r = 0; r < count; r++) tuples.push(`(${columns.map((_, c) => placeholder(r * columns.length + c)).join(", ")})`);
  let text = `insert into ${checked(table)} (${columns.map(checked).join(", ")}) values ${tuples.join(", ")}`;
  if (onConflict !== undefined) {
    const target = `(${onConflict.columns.map(checked).join(", ")})`;
    text += onConflict.update.length === 0 ? ` on conflict ${target} do nothing` : ` on conflict ${target} do update set ${onConflict.update.map((c) => `${checked(c)} = excluded.${checked(c)}`).join(", ")}`;
  }
  return text;
}

const statementKey = (table: string, columns: readonly string[], count: number, onConflict: UpsertRule | undefined): string =>
  `${table}\u0000${columns.join(",")}\u0000${count}\u0000${onConflict === undefined ? "" : `${onConflict.columns.join(",")}>${onConflict.update.join(",")}`}`;

export function rowWriter(sqlite: BetterSqlite3.Database): RowWriter {
  const statements = new Map<string, BetterSqlite3.Statement>();
  const statement = (table: string, columns: readonly string[], count: number, onConflict: UpsertRule | undefined): BetterSqlite3.Statement => {
    const key = statementKey(table, columns, count, onConflict);
    let s = statements.get(key);
    if (s === undefined) {
      s = sqlite.prepare(insertText(table, columns, count, onConflict, () => "?"));
      statements.set(key, s);
    }
    return s;
  };
  return {
    insert(table, rows, onConflict) {
      if (rows.length === 0) return;
      const columns = Object.keys(rows[0]!);
      const width = columns.length;
      const flat = (from: number, count: number): unknown[] => {
        const out = new Array<unknown>(count * width);
        for (let r = 0; r < count; r++) {
          const row = rows[from + r] as Record<string, unknown>;
          for (let c = 0; c < width; c++) {
            const v = row[columns[c]!];
            out[r * width + c] = v === undefined ? null : typeof v === "boolean" ? (v ? 1 : 0) : v;
          }
        }
        return out;
      };
      let i = 0;
      if (rows.length >= ROWS_PER_STATEMENT) {
        const many = statement(table, columns, ROWS_PER_STATEMENT, onConflict);
        for (; i + ROWS_PER_STATEMENT <= rows.length; i += ROWS_PER_STATEMENT) many.run(flat(i, ROWS_PER_STATEMENT));
      }
      if (i < rows.length) {
        const one = statement(table, columns, 1, onConflict);
        for (; i < rows.length; i++) one.run(flat(i, 1));
      }
    },
  };
}

/**
 * The row writer of a PostgreSQL transaction: the same statements, `$n` parameters, sent on
 * `conn` (the transaction's connection, so rows and checkpoints still commit together).
 */
export function postgresRowWriter(conn: Kysely<any>): RowWriter {
  const texts = new Map<string, string>();
  const textOf = (table: string, columns: readonly string[], count: number, onConflict: UpsertRule | undefined): string => {
    const key = statementKey(table, columns, count, onConflict);
    let text = texts.get(key);
    if (text === undefined) {
      text = insertText(table, columns, count, onConflict, (i) => `$${i + 1}`);
      texts.set(key, text);
    }
    return text;
  };
  return {
    async insert(table, rows, onConflict) {
      if (rows.length === 0) return;
      const columns = Object.keys(rows[0]!);
      for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
        const count = Math.min(ROWS_PER_STATEMENT, rows.length - i);
        const params: unknown[] = [];
        for (let r = i; r < i + count; r++) {
          const row = rows[r] as Record<string, unknown>;
          for (const c of columns) {
            const v = row[c];
            params.push(v === undefined ? null : typeof v === "boolean" ? (v ? 1 : 0) : postgresText(v));
          }
        }
        await conn.executeQuery(CompiledQuery.raw(textOf(table, columns, count, onConflict), params));
      }
    },
  };
}
