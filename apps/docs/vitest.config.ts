/**
 * The docs package's project in `npm test`: the generated-reference check, the block markers
 * and runnable examples, the link check and the site build. The browser test (e2e/) runs in
 * the browser suite instead, with its own configuration.
 */
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["development"] },
  ssr: { resolve: { conditions: ["development"] } },
  test: {
    name: "@penguin/docs",
    include: ["test/**/*.test.ts"],
    environment: "node",
  },
});
