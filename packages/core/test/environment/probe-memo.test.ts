// The memo of the sandbox probe's yes, across real processes: each probe runs in a fresh child
// (fixtures/probe-once.ts, which counts the processes it starts), against a stand-in bwrap in a
// temp folder that logs its runs and succeeds (or fails) like a real one, with the memo in a
// temp data root. A first process probes and writes the memo; the next starts no bwrap; a
// touched bwrap, a failed probe, a torn or hand-edited memo and a memo folder that cannot be
// written all mean a probe, and only a yes is ever written. Last, the same with /usr/bin/bwrap.
import { execFile, type ExecFileException } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { release, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { sandboxProbeMemo } from "../../src/state/data-root.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/probe-once.ts", import.meta.url));
const TSX = createRequire(import.meta.url).resolve("tsx");
const REAL_BWRAP = "/usr/bin/bwrap";
/** Root ignores permission bits: a read-only folder then takes a read-only mount (bwrap). */
const AS_ROOT = process.getuid?.() === 0;

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A stand-in bwrap that logs each run, then runs `body` (`exit 0`: a bwrap that can build the sandbox). */
function fakeBwrap(body = "exit 0"): { path: string; runs: () => number } {
  const dir = tempDir("penguin-memo-bwrap-");
  const path = join(dir, "bwrap");
  const log = join(dir, "runs.log");
  writeFileSync(path, `#!/bin/sh\necho "$*" >> '${log}'\n${body}\n`);
  chmodSync(path, 0o755);
  return { path, runs: () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").length : 0) };
}

interface ProbeOnce {
  availability: { available: boolean; reason?: string };
  /** Processes the child started: 0 when the memo answered. */
  starts: number;
}

/** One fresh process's probe (probe-once.ts); `wrap` puts a command before node (a read-only mount). */
function probeOnce(bwrapPath: string, memoFile: string, options: { mode?: "async" | "sync"; wrap?: string[]; path?: string } = {}): Promise<ProbeOnce> {
  const node = [process.execPath, "--conditions=development", "--import", TSX, FIXTURE, bwrapPath, memoFile, options.mode ?? "async"];
  const [command, ...args] = [...(options.wrap ?? []), ...node] as [string, ...string[]];
  return new Promise((resolve, reject) => {
    const env = options.path === undefined ? process.env : { ...process.env, PATH: options.path };
    execFile(command, args, { env, encoding: "utf8" }, (error: ExecFileException | null, stdout: string, stderr: string) => {
      if (error !== null) reject(new Error(`${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as ProbeOnce);
    });
  });
}

function memoOf(root: string): { format: string; available: boolean; fingerprint: Record<string, unknown> } {
  return JSON.parse(readFileSync(sandboxProbeMemo(root), "utf8"));
}

describe("the sandbox probe's memo", { timeout: 60_000 }, () => {
  it("a first process probes and writes the yes; the next ones, async or sync, start no bwrap", async () => {
    const bwrap = fakeBwrap();
    const root = tempDir("penguin-memo-root-");
    const memo = sandboxProbeMemo(root);
    expect(memo).toBe(join(root, ".cache", "sandbox-probe.json"));

    const first = await probeOnce(bwrap.path, memo);
    expect(first).toEqual({ availability: { available: true }, starts: 1 });
    expect(bwrap.runs()).toBe(1);
    const stat = statSync(bwrap.path);
    const written = memoOf(root);
    expect(written.format).toBe("penguin-sandbox-probe/1");
    expect(written.available).toBe(true);
    expect(written.fingerprint).toMatchObject({ bwrap: bwrap.path, dev: stat.dev, ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs, kernel: release() });
    expect(written.fingerprint["probe"]).toContain("--unshare-pid");
    expect(Object.keys(written.fingerprint).sort()).toEqual(["bwrap", "dev", "ino", "kernel", "mtimeMs", "probe", "size", "switches", "uid"]);
    expect(statSync(memo).mode & 0o077).toBe(0);
    expect(readdirSync(join(root, ".cache"))).toEqual(["sandbox-probe.json"]);

    expect(await probeOnce(bwrap.path, memo)).toEqual({ availability: { available: true }, starts: 0 });
    expect(await probeOnce(bwrap.path, memo, { mode: "sync" })).toEqual({ availability: { available: true }, starts: 0 });
    expect(bwrap.runs()).toBe(1);
  });

  it("a bwrap found on PATH is fingerprinted as the file spawn runs", async () => {
    const bwrap = fakeBwrap();
    const root = tempDir("penguin-memo-root-");
    const path = `${join(bwrap.path, "..")}:${process.env["PATH"] ?? ""}`;
    const onPath = () => probeOnce("bwrap", sandboxProbeMemo(root), { path });
    expect((await onPath()).starts).toBe(1);
    expect(memoOf(root).fingerprint["bwrap"]).toBe(bwrap.path);
    expect(await onPath()).toEqual({ availability: { available: true }, starts: 0 });
    expect(bwrap.runs()).toBe(1);
  });

  it("a touched bwrap (another mtime) is probed again and the memo rewritten", async () => {
    const bwrap = fakeBwrap();
    const memo = sandboxProbeMemo(tempDir("penguin-memo-root-"));
    expect((await probeOnce(bwrap.path, memo)).starts).toBe(1);
    const before = statSync(bwrap.path).mtimeMs;
    utimesSync(bwrap.path, new Date(), new Date(before + 60_000));
    expect(await probeOnce(bwrap.path, memo)).toEqual({ availability: { available: true }, starts: 1 });
    expect(JSON.parse(readFileSync(memo, "utf8")).fingerprint.mtimeMs).toBe(statSync(bwrap.path).mtimeMs);
    expect(await probeOnce(bwrap.path, memo)).toEqual({ availability: { available: true }, starts: 0 });
    expect(bwrap.runs()).toBe(2);
  });

  it("a failed probe writes no memo, so every process probes again", async () => {
    const bwrap = fakeBwrap(`echo "bwrap: No permissions to create new namespace" >&2; exit 1`);
    const root = tempDir("penguin-memo-root-");
    const memo = sandboxProbeMemo(root);
    for (let i = 0; i < 2; i++) {
      const r = await probeOnce(bwrap.path, memo);
      expect(r.availability.available).toBe(false);
      expect(r.availability.reason).toContain("user namespaces");
      expect(r.starts).toBe(2); // the full probe, then one without the pid namespace
    }
    expect(existsSync(memo)).toBe(false);
    expect(bwrap.runs()).toBe(4);
  });

  it("a torn, foreign or hand-edited memo is ignored and replaced after a fresh probe", async () => {
    const bwrap = fakeBwrap();
    const root = tempDir("penguin-memo-root-");
    const memo = sandboxProbeMemo(root);
    expect((await probeOnce(bwrap.path, memo)).starts).toBe(1);
    const good = readFileSync(memo, "utf8");
    const edited = JSON.parse(good);
    edited.fingerprint.kernel = "0.0.0-elsewhere";
    const bad = [good.slice(0, good.length / 2), "", "null", "[true]", JSON.stringify({ ...JSON.parse(good), format: "penguin-sandbox-probe/0" }), JSON.stringify(edited)];
    for (const text of bad) {
      writeFileSync(memo, text);
      expect(await probeOnce(bwrap.path, memo), JSON.stringify(text)).toEqual({ availability: { available: true }, starts: 1 });
      expect(readFileSync(memo, "utf8")).toBe(good);
    }
    expect(bwrap.runs()).toBe(1 + bad.length);
  });

  it("a memo of no is never taken: only a yes counts", async () => {
    const bwrap = fakeBwrap();
    const memo = sandboxProbeMemo(tempDir("penguin-memo-root-"));
    expect((await probeOnce(bwrap.path, memo)).starts).toBe(1);
    writeFileSync(memo, JSON.stringify({ ...JSON.parse(readFileSync(memo, "utf8")), available: false }));
    expect(await probeOnce(bwrap.path, memo)).toEqual({ availability: { available: true }, starts: 1 });
  });

  // As root (which ignores permission bits) the folder is made read-only by a read-only mount, through bwrap.
  it.skipIf(AS_ROOT && !existsSync(REAL_BWRAP))("a read-only memo folder does not fail the probe, and gets no stray file (as root: needs bwrap)", async () => {
    const bwrap = fakeBwrap();
    const root = tempDir("penguin-memo-root-");
    const cache = join(root, ".cache");
    mkdirSync(cache);
    const wrap = AS_ROOT ? [REAL_BWRAP, "--dev-bind", "/", "/", "--ro-bind", cache, cache, "--"] : [];
    if (!AS_ROOT) chmodSync(cache, 0o555);
    for (let i = 0; i < 2; i++) expect(await probeOnce(bwrap.path, sandboxProbeMemo(root), { wrap })).toEqual({ availability: { available: true }, starts: 1 });
    expect(readdirSync(cache)).toEqual([]);
    expect(bwrap.runs()).toBe(2);
  });

  it("a data root that cannot hold the memo folder (a file in its place) does not fail the probe", async () => {
    const bwrap = fakeBwrap();
    const blocked = join(tempDir("penguin-memo-root-"), "a-file");
    writeFileSync(blocked, "");
    for (let i = 0; i < 2; i++) expect(await probeOnce(bwrap.path, sandboxProbeMemo(blocked))).toEqual({ availability: { available: true }, starts: 1 });
    expect(readFileSync(blocked, "utf8")).toBe("");
  });

  it.skipIf(!existsSync(REAL_BWRAP))(`with the real ${REAL_BWRAP}: the verdict is remembered only when it is yes`, async () => {
    const root = tempDir("penguin-memo-root-");
    const memo = sandboxProbeMemo(root);
    const first = await probeOnce(REAL_BWRAP, memo);
    expect(first.starts).toBeGreaterThanOrEqual(1);
    const second = await probeOnce(REAL_BWRAP, memo);
    expect(second.availability).toEqual(first.availability);
    if (first.availability.available) {
      expect(memoOf(root).fingerprint).toMatchObject({ bwrap: REAL_BWRAP, ino: statSync(REAL_BWRAP).ino });
      expect(second.starts).toBe(0);
    } else {
      expect(existsSync(memo)).toBe(false);
      expect(second.starts).toBe(first.starts);
    }
  });
});
