// kill_command through executeTool: stopping a whole process group (SIGTERM, then SIGKILL for
// one that ignores it), refusals, unread output with truncation and archive, and a kill whose
// own call times out or is interrupted (it escalates to SIGKILL at once).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { call, leftovers, manualTimeouts, processIdOf, sandbox, sleepMarker, waitUntil, type Sandbox } from "./helpers.js";

// Real processes start through `bash -l`, slow on a loaded machine: room, never an assertion.
const PROCESS_TESTS = { timeout: 30_000 };

let box: Sandbox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

async function startBackground(b: Sandbox, cmd: string): Promise<string> {
  const r = await call(b.env, "exec_command", { cmd, run_in_background: true, description: "bg" });
  return processIdOf(r.output);
}

/** A command that ignores SIGTERM, and tells when it is ready, through a file. */
function stubborn(b: Sandbox, marker: string): string {
  return `trap '' TERM; sleep ${marker} & touch ${join(b.workspace, "ready.flag")}; sleep ${marker}`;
}

describe("kill_command", PROCESS_TESTS, () => {
  it("stops the whole group and returns the unread output", async () => {
    box = sandbox();
    const marker = sleepMarker();
    const id = await startBackground(box, `sleep ${marker} & echo unread; touch ${join(box.workspace, "ready.flag")}; wait`);
    await waitUntil(() => existsSync(join(box!.workspace, "ready.flag")), "ready flag");
    expect(leftovers(marker).length).toBeGreaterThan(0);
    const r = await call(box.env, "kill_command", { process_id: id, description: "stop" });
    expect(r.stopReason).toBe("completed");
    expect(r.output).toBe(`unread\n[process ${id} killed (terminated by signal SIGTERM)]`);
    expect(leftovers(marker)).toEqual([]);
    expect(box.env.listProcesses()[0]).toMatchObject({ id, status: "killed", exitCode: null });
  });

  it("escalates to SIGKILL after the grace for a group that ignores SIGTERM", async () => {
    box = sandbox({ limits: { killGraceMs: 100 } });
    const marker = sleepMarker();
    const id = await startBackground(box, stubborn(box, marker));
    await waitUntil(() => existsSync(join(box!.workspace, "ready.flag")), "ready flag");
    const r = await call(box.env, "kill_command", { process_id: id, description: "stop" });
    expect(r.output).toBe(`[process ${id} killed (terminated by signal SIGKILL)]`);
    expect(leftovers(marker)).toEqual([]);
  });

  it("fails for an unknown process and reports one that already exited", async () => {
    box = sandbox();
    const unknown = await call(box.env, "kill_command", { process_id: "p7", description: "x" });
    expect(unknown.stopReason).toBe("failed");
    expect(unknown.output).toContain("Unknown process_id p7");
    const id = await startBackground(box, "echo gone; exit 4");
    await waitUntil(() => box!.env.listProcesses()[0]?.status === "exited", "exit");
    const r = await call(box.env, "kill_command", { process_id: id, description: "x" });
    expect(r.output).toBe(`gone\n[process ${id} had already exited: exit code 4]`);
  });

  it("truncates a long unread output and archives all of it", async () => {
    box = sandbox({ limits: { outputChars: 50 } });
    const marker = sleepMarker();
    const id = await startBackground(box, `seq 1 2000; touch ${join(box.workspace, "ready.flag")}; sleep ${marker}`);
    await waitUntil(() => existsSync(join(box!.workspace, "ready.flag")), "ready flag");
    const r = await call(box.env, "kill_command", { process_id: id, description: "stop" }, { id: "kill-long" });
    const archive = join(box.scratchpad, "truncated-tool-output", "kill-long.txt");
    const expected = Array.from({ length: 2000 }, (_, i) => `${i + 1}\n`).join("");
    expect(readFileSync(archive, "utf8")).toBe(expected);
    expect(r.output.slice(0, 50)).toBe(expected.slice(0, 50));
    expect(r.output).toContain(archive);
    expect(r.output.endsWith("killed (terminated by signal SIGTERM)]")).toBe(true);
  });

  // The grace is far longer than any test may run: only the escalation can end these calls.
  it("times out and escalates to SIGKILL at once", async () => {
    const timeouts = manualTimeouts();
    box = sandbox({ limits: { killGraceMs: 600_000 }, scheduleTimeout: timeouts.scheduleTimeout });
    const marker = sleepMarker();
    const id = await startBackground(box, stubborn(box, marker));
    await waitUntil(() => existsSync(join(box!.workspace, "ready.flag")), "ready flag");
    const pending = call(box.env, "kill_command", { process_id: id, description: "stop" });
    await waitUntil(() => timeouts.armed() > 0, "kill_command running");
    timeouts.fire();
    const r = await pending;
    expect(r.stopReason).toBe("timeout");
    expect(r.output).toBe(`[process ${id} killed (terminated by signal SIGKILL)]\n[timed out after 30000 ms]`);
    expect(leftovers(marker)).toEqual([]);
  });

  it("ends with aborted when interrupted, still reaping the group", async () => {
    box = sandbox({ limits: { killGraceMs: 600_000 } });
    const marker = sleepMarker();
    const id = await startBackground(box, stubborn(box, marker));
    await waitUntil(() => existsSync(join(box!.workspace, "ready.flag")), "ready flag");
    const ctrl = new AbortController();
    const pending = call(box.env, "kill_command", { process_id: id, description: "stop" }, { signal: ctrl.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    ctrl.abort();
    const r = await pending;
    expect(r.stopReason).toBe("aborted");
    expect(leftovers(marker)).toEqual([]);
  });
});
