// Which facts database the server tests run on: SQLite (`<root>/facts.db`, the default) or,
// with PENGUIN_TEST_DATABASE=postgres, a PostgreSQL database of their own on a real server.
// The server is the one test/vitest.postgres.config.ts starts for the whole run (its folder in
// PENGUIN_TEST_POSTGRES_DIR): one file runs that way with `npm run test:postgres -- <file>`.
// A root gets the database named after its path, so a test that restarts a server on the same
// root finds its users and projects again, as with facts.db.
import { createHash } from "node:crypto";
import pg from "pg";
import { socketUrl } from "./postgres.js";

export function onPostgres(): boolean {
  return process.env.PENGUIN_TEST_DATABASE === "postgres";
}

function serverDir(): string {
  const dir = process.env.PENGUIN_TEST_POSTGRES_DIR;
  if (dir === undefined || dir === "") {
    throw new Error("PENGUIN_TEST_DATABASE=postgres needs the PostgreSQL that test/vitest.postgres.config.ts starts: run `npm run test:postgres -- <test files>`");
  }
  return dir;
}

/** The `database` option for a server on `root`: undefined on SQLite, else a postgres:// URL. */
export async function testDatabaseFor(root: string): Promise<string | undefined> {
  if (!onPostgres()) return undefined;
  const dir = serverDir();
  const name = `root_${createHash("sha256").update(root).digest("hex").slice(0, 20)}`;
  const client = new pg.Client({ connectionString: socketUrl(dir) });
  await client.connect();
  try {
    const found = await client.query("select 1 from pg_database where datname = $1", [name]);
    if (found.rowCount === 0) await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
  return socketUrl(dir, name);
}

/** `{ database }` for a server a test starts itself on `root` (beside the harness), or `{}` on SQLite. */
export async function testDatabaseOption(root: string): Promise<{ database?: string }> {
  const database = await testDatabaseFor(root);
  return database === undefined ? {} : { database };
}
