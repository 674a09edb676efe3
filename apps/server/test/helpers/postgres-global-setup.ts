// Vitest global setup of the server suite on PostgreSQL (test/vitest.postgres.config.ts): one
// real server for the whole run, its folder handed to the test files through the environment
// (helpers/test-database.ts), stopped when the run ends.
import { startPostgres } from "./postgres.js";

export default async function setup(): Promise<() => Promise<void>> {
  const server = await startPostgres();
  process.env.PENGUIN_TEST_DATABASE = "postgres";
  process.env.PENGUIN_TEST_POSTGRES_DIR = server.dir;
  return () => server.stop();
}
