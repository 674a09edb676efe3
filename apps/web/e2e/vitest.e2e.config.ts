/**
 * Vitest configuration of the browser suite (`npm run -w @penguin/web e2e`), kept apart from
 * `npm test`: it drives Debian's Chromium with playwright-core against the real server
 * (started in-process from `@penguin/server`, serving the built SPA from dist/) and a
 * testkit model. Node environment; one file at a time; long timeouts for real I/O.
 * `@penguin/*` resolve to their sources through the `development` condition.
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  root: fileURLToPath(new URL("..", import.meta.url)),
  resolve: { conditions: ["development"] },
  ssr: { resolve: { conditions: ["development"] } },
  test: {
    name: "web-e2e",
    environment: "node",
    include: ["e2e/**/*.e2e.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    // expect.poll waits for what the page shows; on a loaded machine that can take far longer
    // than Vitest's 1 s default, so the bound is generous and the interval short.
    expect: { poll: { timeout: 30_000, interval: 100 } },
  },
});
