// The closing line of .ci/run, "N passed, N failed", run as CI runs it (a child process over
// a folder of Vitest JSON reports). It must never look greener than the run was: a missing
// report, a suite that exited non-zero without a failed test, or a failed build each count.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const SUMMARY = fileURLToPath(new URL("../../.ci/summary.mjs", import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function reports(files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), "penguin-ci-summary-"));
  dirs.push(dir);
  for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), typeof body === "string" ? body : JSON.stringify(body));
  return dir;
}

function summary(dir: string, ...suites: string[]): { line: string; code: number | null } {
  const r = spawnSync(process.execPath, [SUMMARY, dir, ...suites], { encoding: "utf8" });
  return { line: r.stdout.trim().split("\n").at(-1) ?? "", code: r.status };
}

describe(".ci/summary.mjs", () => {
  it("sums passed and failed tests over every suite's report", () => {
    const dir = reports({ "vitest.json": { numPassedTests: 10, numFailedTests: 2 }, "crash.json": { numPassedTests: 3, numFailedTests: 0 } });
    expect(summary(dir, "vitest=1", "crash=0", "build=0")).toEqual({ line: "13 passed, 2 failed", code: 1 });
  });

  it("is green only when every suite and the build are", () => {
    const dir = reports({ "vitest.json": { numPassedTests: 10, numFailedTests: 0 }, "crash.json": { numPassedTests: 3 } });
    expect(summary(dir, "vitest=0", "crash=0", "build=0")).toEqual({ line: "13 passed, 0 failed", code: 0 });
  });

  it("counts a missing or unreadable report, a startup failure and a failed build as failures", () => {
    const dir = reports({ "crash.json": { numPassedTests: 3, numFailedTests: 0 }, "web-e2e.json": "{not json" });
    expect(summary(dir, "vitest=1", "crash=0", "web-e2e=1", "build=0").line).toBe("3 passed, 2 failed");
    const loadFailure = reports({ "vitest.json": { numPassedTests: 5, numFailedTests: 0, numFailedTestSuites: 1 } });
    expect(summary(loadFailure, "vitest=1", "build=0").line).toBe("5 passed, 1 failed");
    const exitedRed = reports({ "vitest.json": { numPassedTests: 5, numFailedTests: 0, numFailedTestSuites: 0 } });
    expect(summary(exitedRed, "vitest=1", "build=0").line).toBe("5 passed, 1 failed");
    const buildRed = reports({ "vitest.json": { numPassedTests: 5, numFailedTests: 0 } });
    expect(summary(buildRed, "vitest=0", "build=1")).toEqual({ line: "5 passed, 1 failed", code: 1 });
  });

  it("counts each run of a suite run three times, and a run that is red or left no report fails the line", () => {
    const run = { numPassedTests: 18, numFailedTests: 0, numPendingTests: 1 };
    const green = reports({ "web-e2e-1.json": run, "web-e2e-2.json": run, "web-e2e-3.json": run });
    expect(summary(green, "web-e2e-1=0", "web-e2e-2=0", "web-e2e-3=0", "build=0")).toEqual({ line: "54 passed, 0 failed", code: 0 });
    const secondFlaked = reports({ "web-e2e-1.json": run, "web-e2e-2.json": { numPassedTests: 17, numFailedTests: 1 }, "web-e2e-3.json": run });
    expect(summary(secondFlaked, "web-e2e-1=0", "web-e2e-2=1", "web-e2e-3=0", "build=0")).toEqual({ line: "53 passed, 1 failed", code: 1 });
    const thirdMissing = reports({ "web-e2e-1.json": run, "web-e2e-2.json": run });
    expect(summary(thirdMissing, "web-e2e-1=0", "web-e2e-2=0", "web-e2e-3=1", "build=0")).toEqual({ line: "36 passed, 1 failed", code: 1 });
  });

  it("prints one line per suite before the total, so the log says which run was red", () => {
    const dir = reports({ "web-e2e-1.json": { numPassedTests: 17, numFailedTests: 1, numPendingTests: 1 }, "web-e2e-2.json": { numPassedTests: 18, numFailedTests: 0 } });
    const r = spawnSync(process.execPath, [SUMMARY, dir, "web-e2e-1=1", "web-e2e-2=0", "build=0"], { encoding: "utf8" });
    expect(r.stdout.trim().split("\n")).toEqual(["summary: web-e2e-1: 17 passed, 1 failed, 1 skipped", "summary: web-e2e-2: 18 passed, 0 failed", "35 passed, 1 failed"]);
  });
});
