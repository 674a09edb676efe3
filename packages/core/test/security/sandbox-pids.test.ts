// The sandbox's pid namespace, on real processes: a sandboxed command (through exec_command,
// as a model would run it) lists /proc and tries to signal the harness (this test's process)
// and a sibling `sleep` started outside the sandbox. Neither is listed, both signals fail, and
// the sibling survives; the same commands without the sandbox see and kill a second sibling,
// which proves the checks can fail. The namespace must not cost what the shared one gave:
// a command's exit status is reported the moment it exits, while a job it left behind runs
// on in the namespace; the harness's death (SIGKILL) still ends both the running command and
// the left-behind job (--die-with-parent); and dispose now also reaps a job that left the
// process group with `setsid`, which a process-group kill alone cannot reach. Where bwrap
// cannot run, the tests are skipped and their names say why.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createEnvironment, type Environment } from "../../src/environment/index.js";
import { CommandProcess } from "../../src/environment/commands/command-process.js";
import { probeSandbox } from "../../src/environment/commands/sandbox.js";
import { testSandbox } from "../helpers/sandbox-mode.js";
import { call, leftovers, sleepMarker, waitUntil } from "../environment/helpers.js";

const availability = probeSandbox();
const skipReason = availability.available ? "" : ` (skipped: ${availability.reason ?? "bwrap cannot run here"})`;
const PROCESS_TESTS = { timeout: 60_000 };

interface Box {
  root: string;
  workspace: string;
  scratchpad: string;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempBox(): Box {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "penguin-pidns-")));
  const workspace = join(root, "workspace");
  const scratchpad = join(root, "scratchpad", "s1");
  mkdirSync(workspace, { recursive: true });
  mkdirSync(scratchpad, { recursive: true });
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  return { root, workspace, scratchpad };
}

/** An Environment over the box, its commands sandboxed or not; HOME is the box (pyenv-style profiles stay quiet). */
function environment(box: Box, sandboxed: boolean): Environment {
  const env = createEnvironment({
    workspaceDir: box.workspace,
    scratchpadDir: box.scratchpad,
    baseEnv: { ...process.env, HOME: box.root },
    ...(sandboxed ? { sandbox: testSandbox({ hiddenRoot: box.root, workspace: box.workspace, scratchpad: box.scratchpad }) } : {}),
  });
  cleanups.push(() => env.dispose());
  return env;
}

/** A `sleep` started by this test, outside any sandbox; killed at the end of the test. */
function sibling(marker: string): ChildProcess {
  const child = spawn("sleep", [marker], { stdio: "ignore" });
  cleanups.push(() => {
    child.kill("SIGKILL");
  });
  return child;
}

/**
 * The `sleep` processes carrying the marker; bwrap, its init and the supervisor carry the
 * command line too (and `leftovers` lists them), but only the sleepers are what a command left.
 */
function sleepers(marker: string): string[] {
  return leftovers(marker).filter((line) => /^\s*\d+\s+\d+\s+\S+\s+sleep /.test(line));
}

function alive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The script's `name=value` lines. */
function answers(output: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of output.split("\n")) {
    const match = /^(\w+)=(.*)$/.exec(line);
    if (match?.[1] !== undefined) out[match[1]] = match[2] ?? "";
  }
  return out;
}

/** Lists /proc and signals `harness` (signal 0: may I?) and `target` (SIGKILL), reporting each result. */
function probeScript(harness: number, target: number): string {
  return [
    `listed=$(ls /proc | grep -E '^[0-9]+$' | tr '\\n' ' ')`,
    `echo "listed=$listed"`,
    `kill -0 ${harness} 2>/dev/null; echo "signal_harness=$?"`,
    `kill -9 ${target} 2>/dev/null; echo "kill_sibling=$?"`,
    `ps -eo pid= | tr -d ' ' | grep -c -x -e ${harness} -e ${target} | sed 's/^/ps_matches=/'`,
  ].join("\n");
}

describe(`the sandbox's own pid namespace${skipReason}`, PROCESS_TESTS, () => {
  it.skipIf(!availability.available)("a sandboxed command can neither see nor signal the harness or a sibling process; unsandboxed it can", async () => {
    const box = tempBox();
    const marker = sleepMarker();
    const spared = sibling(marker);
    const victim = sibling(marker);
    await waitUntil(() => sleepers(marker).length >= 2, "both siblings up");
    const harness = process.pid;
    const sparedPid = spared.pid ?? -1;

    const inside = await call(environment(box, true), "exec_command", { cmd: probeScript(harness, sparedPid), description: "look around" });
    const seen = answers(inside.output);
    const listed = (seen.listed ?? "").trim().split(" ");
    expect(listed).toContain("1"); // the namespace's own init: the listing did run
    expect(listed).not.toContain(String(harness));
    expect(listed).not.toContain(String(sparedPid));
    expect(seen.signal_harness).not.toBe("0");
    expect(seen.kill_sibling).not.toBe("0");
    expect(seen.ps_matches).toBe("0");
    expect(alive(sparedPid)).toBe(true);
    expect(spared.exitCode).toBeNull();
    expect(spared.signalCode).toBeNull();

    // Without the sandbox the same script sees both and kills its target.
    const victimPid = victim.pid ?? -1;
    const outside = await call(environment(box, false), "exec_command", { cmd: probeScript(harness, victimPid), description: "look around" });
    const plain = answers(outside.output);
    expect((plain.listed ?? "").split(" ")).toContain(String(harness));
    expect(plain.signal_harness).toBe("0");
    expect(plain.kill_sibling).toBe("0");
    await waitUntil(() => victim.signalCode === "SIGKILL", "the unsandboxed kill to land");
    expect(alive(sparedPid)).toBe(true);
  });

  it.skipIf(!availability.available)("reports a command's exit at once while the job it left behind runs on, and stopping it reaps the job", async () => {
    const box = tempBox();
    const marker = sleepMarker();
    const process_ = new CommandProcess({
      command: `sleep ${marker} > /dev/null 2>&1 & echo left-a-job; exit 5`,
      cwd: box.workspace,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: box.root },
      unreadBufferBytes: 10_000,
      tailChars: 1000,
      sandbox: testSandbox({ hiddenRoot: box.root, workspace: box.workspace, scratchpad: box.scratchpad }),
    });
    cleanups.push(() => process_.terminate(100));
    expect(await process_.exited).toEqual({ kind: "exited", code: 5 });
    expect(process_.drain()).toContain("left-a-job\n");
    expect(sleepers(marker)).toHaveLength(1); // the job, still running
    expect(process_.groupAlive()).toBe(true);
    await process_.terminate(100);
    expect(leftovers(marker)).toEqual([]);
    expect(process_.groupAlive()).toBe(false);
    expect(process_.status).toEqual({ kind: "exited", code: 5 }); // stopping the job does not rewrite the command's exit
  });

  it.skipIf(!availability.available)("dispose reaps a job that left the command's process group with setsid", async () => {
    const box = tempBox();
    const marker = sleepMarker();
    const env = environment(box, true);
    const r = await call(env, "exec_command", { cmd: `setsid sleep ${marker} > /dev/null 2>&1 < /dev/null & echo detached`, description: "escape the group" });
    expect(r.output).toBe("detached\n[exit code: 0]");
    await waitUntil(() => sleepers(marker).length === 1, "the detached job up");
    await env.dispose();
    expect(leftovers(marker)).toEqual([]);
  });

  it.skipIf(!availability.available)("when the harness dies, its running sandboxed command and the job an exited one left behind die with it", async () => {
    const box = tempBox();
    const marker = sleepMarker();
    const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));
    const script = fileURLToPath(new URL("./fixtures/sandboxed-harness.mts", import.meta.url));
    const harness = spawn(process.execPath, ["--conditions=development", "--import", "tsx", script, box.root, box.workspace, marker], {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "inherit"],
    });
    cleanups.push(() => {
      harness.kill("SIGKILL");
    });
    let said = "";
    harness.stdout?.on("data", (data: Buffer) => (said += data.toString("utf8")));
    await waitUntil(() => said.includes("\n"), "the harness to start both commands", 30_000);
    expect(said).toBe(`ready ${JSON.stringify({ kind: "exited", code: 0 })}\n`);
    await waitUntil(() => sleepers(marker).length === 2, "the left-behind job and the running command");
    harness.kill("SIGKILL");
    await waitUntil(() => leftovers(marker).length === 0, "both sleepers to end with the harness");
  });
});
