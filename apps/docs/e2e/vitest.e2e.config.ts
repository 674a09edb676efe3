/**
 * The documentation site's browser test, kept out of `npm test` like the web app's browser
 * suite: Debian's Chromium through playwright-core against the built site (apps/docs/site/
 * .vitepress/dist, from `npm run build`) served by the built CLI's `penguin docs`.
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  root: fileURLToPath(new URL("..", import.meta.url)),
  test: {
    name: "docs-e2e",
    environment: "node",
    include: ["e2e/**/*.e2e.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    expect: { poll: { timeout: 30_000, interval: 100 } },
  },
});
