// The sandbox probe against stand-in bwrap executables (small shell scripts in a temp folder,
// run for real): the probe asks for the same isolation commands get, a pid namespace with its
// own /proc included; where only that part fails (a container whose /proc cannot be mounted
// again), the sandbox counts as missing and the reason says exactly that, rather than blaming
// user namespaces; where bwrap fails outright, the reason points at user namespaces.
// probeSandboxAsync (the CLI starts it before its modules load) gives the same verdicts from
// the same bwrap starts, starts bwrap once however often it is asked, and leaves its answer
// where a later probeSandbox finds it without starting bwrap again.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { probeSandbox, probeSandboxAsync } from "../../src/environment/commands/sandbox.js";

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A fake bwrap: logs its arguments (one line per run), then runs `body`. */
function fakeBwrap(body: string): { path: string; runs: () => string[] } {
  const dir = mkdtempSync(join(tmpdir(), "penguin-fake-bwrap-"));
  dirs.push(dir);
  const path = join(dir, "bwrap");
  const log = join(dir, "runs.log");
  writeFileSync(path, `#!/bin/sh\necho "$*" >> '${log}'\n${body}\n`);
  chmodSync(path, 0o755);
  return { path, runs: () => readFileSync(log, "utf8").trim().split("\n") };
}

describe("probeSandbox", () => {
  it("asks for a pid namespace with its own /proc, as commands get", () => {
    const bwrap = fakeBwrap("exit 0");
    expect(probeSandbox(bwrap.path)).toEqual({ available: true });
    const [run] = bwrap.runs();
    expect(run).toContain("--unshare-pid");
    expect(run).toContain("--proc /proc");
    expect(run).toContain("--die-with-parent");
  });

  it("names the pid namespace when only that fails", () => {
    const bwrap = fakeBwrap(`case "$*" in *--unshare-pid*) echo "bwrap: Can't mount proc on /newroot/proc: Operation not permitted" >&2; exit 1;; esac; exit 0`);
    const result = probeSandbox(bwrap.path);
    expect(result.available).toBe(false);
    expect(result.reason).toContain("cannot give commands a pid namespace with its own /proc");
    expect(result.reason).toContain("Can't mount proc");
    expect(bwrap.runs()).toHaveLength(2); // the full probe, then one without the pid namespace
  });

  it("points at user namespaces when bwrap fails outright", () => {
    const bwrap = fakeBwrap(`echo "bwrap: No permissions to create new namespace" >&2; exit 1`);
    const result = probeSandbox(bwrap.path);
    expect(result.available).toBe(false);
    expect(result.reason).toContain("cannot create a sandbox here (bwrap: No permissions to create new namespace)");
    expect(result.reason).toContain("user namespaces");
  });
});

describe("probeSandboxAsync", () => {
  const shapes = {
    "bwrap runs": "exit 0",
    "only the pid namespace fails": `case "$*" in *--unshare-pid*) echo "bwrap: Can't mount proc on /newroot/proc: Operation not permitted" >&2; exit 1;; esac; exit 0`,
    "bwrap fails outright": `echo "bwrap: No permissions to create new namespace" >&2; exit 1`,
  };
  for (const [shape, body] of Object.entries(shapes)) {
    it(`gives probeSandbox's verdict from the same bwrap starts: ${shape}`, async () => {
      const viaSync = fakeBwrap(body);
      const viaAsync = fakeBwrap(body);
      const expected = probeSandbox(viaSync.path);
      const got = await probeSandboxAsync(viaAsync.path);
      expect(got).toEqual({ ...expected, ...(expected.reason === undefined ? {} : { reason: expected.reason.replace(viaSync.path, viaAsync.path) }) });
      expect(viaAsync.runs()).toEqual(viaSync.runs());
    });
  }

  it("says bwrap is not installed when there is none", async () => {
    const dir = mkdtempSync(join(tmpdir(), "penguin-no-bwrap-"));
    dirs.push(dir);
    const result = await probeSandboxAsync(join(dir, "bwrap"));
    expect(result.available).toBe(false);
    expect(result.reason).toContain("is not installed");
  });

  it("starts bwrap once for calls made while it runs, and a later probeSandbox reuses the answer", async () => {
    const bwrap = fakeBwrap("exit 0");
    const [a, b] = await Promise.all([probeSandboxAsync(bwrap.path), probeSandboxAsync(bwrap.path)]);
    expect(a).toEqual({ available: true });
    expect(b).toBe(a);
    expect(probeSandbox(bwrap.path)).toBe(a);
    expect(await probeSandboxAsync(bwrap.path)).toBe(a);
    expect(bwrap.runs()).toHaveLength(1);
  });
});
