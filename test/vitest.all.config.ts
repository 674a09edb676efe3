// The configuration of `npm test`: one run of every suite in the workspace. Each package,
// app, projection and the cross-package `test/` folder is a Vitest project; the
// `development` export condition makes workspace imports resolve to `src/`, so tests never
// need a build first. It lives in test/ because the top level holds only the workspace's
// own files; `root` points back at the repository so project globs read from there.
// Folder projects do not inherit this file's test options, so the time limits (30 s a test,
// 60 s a hook: the suites start servers, child processes and SQLite files, and CI must stay
// green on a loaded machine; tests wait for what they observe, the limits only bound a hang)
// are given on the command line by the root package.json's `test` and `vitest` scripts.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The workspace packages of one area: its folders only (a README beside them is no project). */
function packagesIn(area: string): string[] {
  const dir = join(root, area);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, "package.json")))
    .map((entry) => `${area}/${entry.name}`);
}

export default defineConfig({
  root,
  resolve: { conditions: ["development"] },
  ssr: { resolve: { conditions: ["development"] } },
  test: {
    projects: [...packagesIn("packages"), ...packagesIn("projections"), ...packagesIn("apps"), "test"],
  },
});
