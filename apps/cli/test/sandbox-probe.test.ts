// The sandbox's availability probe costs a bwrap start, so only commands that run a model pay
// it. A `bwrap` on PATH that records each start (and fails, as a bwrap without user namespaces
// would) shows that `--help`, `run --help`, `chat --help`, `sessions` and `usage` never start
// it, while `run` (no tool call at all) does, once, and then says in one line that commands
// run unsandboxed, quoting the probe's reason. `run` and `chat` start the probe before their
// modules load (early-sandbox-probe.ts) and openAgent and core reuse its answer: with a bwrap
// that works and no memo yet, a run or a chat starts it exactly once, `--sandbox` too, and
// `--no-sandbox` never. A yes is remembered in the data root (`.cache/sandbox-probe.json`): the
// next run or chat starts no bwrap at all, while a failing bwrap leaves no memo and is probed
// on every run.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { sandboxProbeMemo } from "@penguin/core/data-root";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { runCli } from "./helpers/run-cli.js";
import { startWorld, type World } from "./helpers/world.js";

let world: World | undefined;
let bin: string | undefined;
beforeAll(ensureBuilt, 300_000);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
  if (bin !== undefined) rmSync(bin, { recursive: true, force: true });
  bin = undefined;
});

/**
 * A PATH whose first folder holds a `bwrap` that logs its start and fails like a bwrap without
 * user namespaces (or, `works`, succeeds like a bwrap that can build the sandbox).
 */
function recordingBwrap(works = false): { path: string; starts: () => number } {
  bin = mkdtempSync(join(tmpdir(), "penguin-bwrap-log-"));
  const log = join(bin, "starts.log");
  const ending = works ? "exit 0" : `echo "bwrap: No permissions to creating new namespace" >&2\nexit 1`;
  writeFileSync(join(bin, "bwrap"), `#!/bin/sh\necho started >> "${log}"\n${ending}\n`);
  chmodSync(join(bin, "bwrap"), 0o755);
  return { path: `${bin}${delimiter}${process.env["PATH"] ?? ""}`, starts: () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter((l) => l !== "").length : 0) };
}

describe("the sandbox probe is lazy", { timeout: 60_000 }, () => {
  it("help and commands that run no model never start bwrap; run starts it once and says commands run unsandboxed", async () => {
    world = await startWorld({ script: [{ text: "no tools needed" }, { text: "again" }] });
    const bwrap = recordingBwrap();
    const env = { ...world.env, PATH: bwrap.path };
    for (const args of [["--help"], ["run", "--help"], ["chat", "--help"], ["sessions"], ["usage"]]) {
      const r = await runCli(args, { env, cwd: world.workspace });
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
      expect(bwrap.starts(), args.join(" ")).toBe(0);
    }
    const run = await runCli(["run", "-m", "hi", "--workspace", world.workspace], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe("no tools needed\n");
    expect(bwrap.starts()).toBeGreaterThanOrEqual(1);
    const notes = run.stderr.split("\n").filter((l) => l.includes("unsandboxed"));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^penguin: commands run unsandboxed: bwrap cannot create a sandbox here \(bwrap: No permissions to creating new namespace\)/);
    // A no is never remembered: the next run probes again.
    expect(existsSync(sandboxProbeMemo(world.root))).toBe(false);
    const before = bwrap.starts();
    const again = await runCli(["run", "-m", "hi", "--workspace", world.workspace], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(bwrap.starts()).toBeGreaterThan(before);
  });

  it("run and chat start a working bwrap once (the early probe's answer is reused), --no-sandbox never", async () => {
    world = await startWorld({ script: [{ text: "one" }, { text: "two" }, { text: "three" }, { text: "four" }] });
    const bwrap = recordingBwrap(true);
    const env = { ...world.env, PATH: bwrap.path };
    // Each start here must probe: the memo a start leaves for the next one is removed first.
    const memo = sandboxProbeMemo(world.root);
    let before = bwrap.starts();
    for (const args of [["run", "-m", "hi"], ["run", "--sandbox", "-m", "hi"]]) {
      rmSync(memo, { force: true });
      const r = await runCli([...args, "--workspace", world.workspace], { env });
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
      expect(r.stderr, args.join(" ")).not.toContain("unsandboxed");
      expect(bwrap.starts() - before, args.join(" ")).toBe(1);
      before = bwrap.starts();
    }
    rmSync(memo, { force: true });
    const chat = await runCli(["chat", "--workspace", world.workspace], { env, input: "hello\n/exit\n" });
    expect(chat.code, chat.stderr).toBe(0);
    expect(bwrap.starts() - before).toBe(1);
    before = bwrap.starts();
    rmSync(memo, { force: true });
    const bare = await runCli(["run", "--no-sandbox", "-m", "hi", "--workspace", world.workspace], { env });
    expect(bare.code, bare.stderr).toBe(0);
    expect(bwrap.starts()).toBe(before);
    expect(existsSync(memo)).toBe(false);
  });

  it("a working bwrap's yes is remembered in the data root: later runs and chats start no bwrap", async () => {
    world = await startWorld({ script: [{ text: "one" }, { text: "two" }, { text: "three" }] });
    const bwrap = recordingBwrap(true);
    const env = { ...world.env, PATH: bwrap.path };
    const first = await runCli(["run", "-m", "hi", "--workspace", world.workspace], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(bwrap.starts()).toBe(1);
    expect(JSON.parse(readFileSync(sandboxProbeMemo(world.root), "utf8"))).toMatchObject({ available: true, fingerprint: { bwrap: join(bin!, "bwrap") } });
    const run = await runCli(["run", "--sandbox", "-m", "hi", "--workspace", world.workspace], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain("unsandboxed");
    const chat = await runCli(["chat", "--workspace", world.workspace], { env, input: "hello\n/exit\n" });
    expect(chat.code, chat.stderr).toBe(0);
    expect(bwrap.starts()).toBe(1);
  });
});
