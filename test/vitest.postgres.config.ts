// The server's HTTP suite once more, with its facts in PostgreSQL instead of facts.db: the same
// test files (apps/server/test), a real PostgreSQL started once for the run by the global
// setup, and each server root given a database of its own (apps/server/test/helpers/
// test-database.ts). `npm run test:postgres` runs it; .ci/run runs it once after `npm test`.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL("..", import.meta.url));

export default defineConfig({
  root,
  resolve: { conditions: ["development"] },
  ssr: { resolve: { conditions: ["development"] } },
  test: {
    include: ["apps/server/test/**/*.test.ts"],
    globalSetup: ["apps/server/test/helpers/postgres-global-setup.ts"],
    env: { PENGUIN_TEST_DATABASE: "postgres" },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
