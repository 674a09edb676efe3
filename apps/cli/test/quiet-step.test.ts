// The launcher's quiet setup steps (apps/cli/scripts/quiet-step.mjs): the filter that keeps
// only the lines worth reading of a failed step, fed with output shaped like pnpm's and vite's
// real first-run output, and the runner itself on a real child process that succeeds and one
// that fails.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain ESM script without type declarations, run by the launcher before any install.
import { worthShowing } from "../scripts/quiet-step.mjs";
import { REPO } from "./helpers/paths.js";

const SCRIPT = join(REPO, "apps", "cli", "scripts", "quiet-step.mjs");
const filter = worthShowing as (output: string, keep?: number) => string[];

const PNPM = [
  "Scope: all 15 workspace projects",
  "Lockfile is up to date, resolution step is skipped",
  "Progress: resolved 1, reused 0, downloaded 0, added 0",
  "Progress: resolved 812, reused 790, downloaded 22, added 812, done",
  " WARN  Failed to create bin at /repo/apps/cli/node_modules/.bin/penguin-testkit. ENOENT: no such file or directory",
  "Packages: +812",
  "++++++++++++++++++++++++++++++++++++++++++",
  "\u001b[31m ERR_PNPM_FETCH_404\u001b[39m  GET https://registry.npmjs.org/nope: Not Found - 404",
  "",
].join("\n");

const VITE = [
  "vite v7.1.3 building for production...",
  "transforming...",
  "✓ 412 modules transformed.",
  "rendering chunks...",
  "computing gzip size...",
  "dist/index.html                   0.61 kB │ gzip:  0.36 kB",
  "dist/assets/index-D3x9.js       412.20 kB │ gzip: 121.02 kB",
  "✓ built in 4.21s",
  "src/App.tsx(3,1): error TS2304: Cannot find name 'x'.",
].join("\n");

describe("quiet setup steps", () => {
  it("keeps the error lines of pnpm's and vite's output and drops progress, bin warnings and the chunk list", () => {
    expect(filter(PNPM)).toEqual(["Lockfile is up to date, resolution step is skipped", " ERR_PNPM_FETCH_404  GET https://registry.npmjs.org/nope: Not Found - 404"]);
    expect(filter(VITE)).toEqual(["src/App.tsx(3,1): error TS2304: Cannot find name 'x'."]);
    expect(filter(Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n"), 3)).toEqual(["line 97", "line 98", "line 99"]);
  });

  it("prints one line at the start and one at the end of a step that succeeds, none of its output", () => {
    const r = spawnSync(process.execPath, [SCRIPT, "doing the thing", "--", process.execPath, "-e", "console.log('chatty'); console.error('WARN noisy')"], { encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^penguin: doing the thing…\npenguin: doing the thing: done \(\d+ s\)\n$/);
  });

  it("shows the filtered output of a step that fails, names its log, and exits with its code", () => {
    const child = "console.log('Progress: resolved 3'); console.error('the real cause'); process.exit(3)";
    const r = spawnSync(process.execPath, [SCRIPT, "building", "--", process.execPath, "-e", child], { encoding: "utf8" });
    expect(r.status).toBe(3);
    expect(r.stderr).toContain("  the real cause\n");
    expect(r.stderr).not.toContain("Progress");
    const log = /its whole output is in (\S+)\n$/.exec(r.stderr)?.[1];
    expect(log).toBeDefined();
    expect(existsSync(log!)).toBe(true);
    expect(readFileSync(log!, "utf8")).toContain("Progress: resolved 3");
    rmSync(dirname(log!), { recursive: true, force: true });
  });
});
