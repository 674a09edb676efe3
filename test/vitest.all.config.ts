// The configuration of `npm test`: one run of every suite in the workspace. Each package,
// app, projection and the cross-package `test/` folder is a Vitest project; the
// `development` export condition makes workspace imports resolve to `src/`, so tests never
// need a build first. It lives in test/ because the top level holds only the workspace's
// own files; `root` points back at the repository so project globs read from there.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  root: fileURLToPath(new URL("..", import.meta.url)),
  resolve: { conditions: ["development"] },
  ssr: { resolve: { conditions: ["development"] } },
  test: {
    projects: ["packages/*", "projections/*", "apps/*", "test"],
  },
});
