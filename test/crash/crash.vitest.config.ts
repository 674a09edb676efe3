// Vitest configuration for the crash-safety suite only (`npm run test:crash`, `npm run soak`).
// It lives apart from the root config so the default `npm test` never runs the kill loop:
// the suite spawns hundreds of child processes and takes minutes. It sets PENGUIN_CRASH=1
// (the kill suite skips itself without it) and resolves workspace packages to src/ like
// the root config.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  root: fileURLToPath(new URL("../..", import.meta.url)),
  resolve: { conditions: ["development"] },
  ssr: { resolve: { conditions: ["development"] } },
  test: {
    include: ["test/crash/**/*.test.ts"],
    env: { PENGUIN_CRASH: "1" },
    testTimeout: 60 * 60 * 1000,
    hookTimeout: 60_000,
  },
});
