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
 * Table and column names come from the projections' code, never from trace content; they are
 * still checked against a plain identifier pattern before they reach SQL text.
 */
import type BetterSqlite3 from "better-sqlite3";

export interface UpsertRule {
  /** The unique key the conflict is on. */
  columns: readonly string[];
  /** Columns set from the new row when the key exists; none means keep the old row (do nothing). */
  update: readonly string[];
}

export interface RowWriter {
  /** Inserts `rows` (plain objects, all with the columns of the first) into `table`. */
  insert(table: string, rows: readonly object[], onConflict?: UpsertRule): void;
}

const ROWS_PER_STATEMENT = 64;
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

function checked(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`"${name}" is not a plain SQL identifier`);
  return `"${name}"`;
}

export function rowWriter(sqlite: BetterSqlite3.Database): RowWriter {
  const statements = new Map<string, BetterSqlite3.Statement>();
  const statement = (table: string, columns: readonly string[], count: number, onConflict: UpsertRule | undefined): BetterSqlite3.Statement => {
    const key = `${table}\u0000${columns.join(",")}\u0000${count}\u0000${onConflict === undefined ? "" : `${onConflict.columns.join(",")}>${onConflict.update.join(",")}`}`;
    let s = statements.get(key);
    if (s === undefined) {
      const tuple = `(${columns.map(() => "?").join(", ")})`;
      let sql = `insert into ${checked(table)} (${columns.map(checked).join(", ")}) values ${Array.from({ length: count }, () => tuple).join(", ")}`;
      if (onConflict !== undefined) {
        const target = `(${onConflict.columns.map(checked).join(", ")})`;
        sql += onConflict.update.length === 0 ? ` on conflict ${target} do nothing` : ` on conflict ${target} do update set ${onConflict.update.map((c) => `${checked(c)} = excluded.${checked(c)}`).join(", ")}`;
      }
      s = sqlite.prepare(sql);
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
