// exec_command through executeTool, on real bash processes: streaming, exit codes, workdir,
// truncation with its archive, the yield window, a timeout and an interrupt (with `ps`
// checking that the whole process group is gone afterwards).
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { call, deltaText, leftovers, manualTimeouts, processIdOf, sandbox, sleepMarker, type Sandbox } from "./helpers.js";

// Real processes start through `bash -l`, slow on a loaded machine: room, never an assertion.
const PROCESS_TESTS = { timeout: 30_000 };

let box: Sandbox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

describe("exec_command", PROCESS_TESTS, () => {
  it("runs in the workspace", async () => {
    box = sandbox();
    const r = await call(box.env, "exec_command", { cmd: "pwd; echo to-stderr >&2", description: "where am I" });
    expect(r.stopReason).toBe("completed");
    expect(r.output).toBe(`${box.workspace}\nto-stderr\n[exit code: 0]`);
  });

  it("streams output while the command still runs", async () => {
    box = sandbox();
    const fifo = join(box.workspace, "gate");
    execFileSync("mkfifo", [fifo]);
    // The command cannot finish before the test writes into the FIFO, which it does only
    // after it has received "first" as a delta.
    const r = await call(
      box.env,
      "exec_command",
      { cmd: "echo first; cat gate; echo second", description: "gated" },
      { onMessage: (m) => deltaText(m) === "first\n" && void writeFile(fifo, "middle\n") },
    );
    expect(r.output).toBe("first\nmiddle\nsecond\n[exit code: 0]");
    expect(r.messages.map(deltaText).find((t) => t !== undefined)).toBe("first\n");
  });

  it("runs in a workdir relative to the workspace", async () => {
    box = sandbox();
    mkdirSync(join(box.workspace, "sub"));
    const r = await call(box.env, "exec_command", { cmd: "basename $(pwd)", workdir: "sub", description: "dir" });
    expect(r.output).toBe("sub\n[exit code: 0]");
  });

  it("reports a non-zero exit as failed, and a missing workdir", async () => {
    box = sandbox();
    const r = await call(box.env, "exec_command", { cmd: "echo about to fail; exit 3", description: "fail" });
    expect(r.stopReason).toBe("failed");
    expect(r.output).toBe("about to fail\n[exit code: 3]");
    const nowhere = await call(box.env, "exec_command", { cmd: "true", workdir: "missing", description: "x" });
    expect(nowhere.stopReason).toBe("failed");
    expect(nowhere.output).toBe("workdir missing is not an existing directory.");
  });

  it("keeps the head of a long output and archives all of it", async () => {
    box = sandbox();
    const r = await call(box.env, "exec_command", { cmd: "seq 1 20000", description: "count" }, { id: "exec-seq" });
    const archive = join(box.scratchpad, "truncated-tool-output", "exec-seq.txt");
    const expected = Array.from({ length: 20000 }, (_, i) => `${i + 1}\n`).join("");
    expect(readFileSync(archive, "utf8")).toBe(expected);
    expect(r.output.slice(0, 16000)).toBe(expected.slice(0, 16000));
    expect(r.output.slice(16000)).toBe(
      `\n[output truncated: showing the first 16000 of ${expected.length} characters; the full output is saved at ${archive}]\n[exit code: 0]`,
    );
  });

  it("moves a command that outlives its yield window to the background", async () => {
    box = sandbox();
    const marker = sleepMarker();
    const r = await call(box.env, "exec_command", { cmd: `sleep ${marker}`, yield_time_ms: 300, description: "long" });
    expect(r.stopReason).toBe("completed");
    expect(r.output).toMatch(/^\[still running after 300 ms; moved to the background as process_id p\d+\./);
    const id = processIdOf(r.output);
    expect(box.env.listProcesses()).toMatchObject([{ id, command: `sleep ${marker}`, label: "long", status: "running" }]);
    expect(leftovers(marker).length).toBeGreaterThan(0);
  });

  it("starts at once in the background with run_in_background", async () => {
    box = sandbox();
    const marker = sleepMarker();
    const r = await call(box.env, "exec_command", { cmd: `sleep ${marker}`, run_in_background: true, description: "server" });
    expect(r.output).toMatch(/^\[started in the background as process_id p\d+; you will be notified when it exits/);
    expect(box.env.listProcesses()[0]?.status).toBe("running");
  });

  it("times out, and the process group is reaped", async () => {
    const timeouts = manualTimeouts();
    box = sandbox({ scheduleTimeout: timeouts.scheduleTimeout });
    const marker = sleepMarker();
    const r = await call(
      box.env,
      "exec_command",
      { cmd: `sleep ${marker} & echo ready; sleep ${marker}`, description: "hang" },
      { onMessage: (m) => deltaText(m)?.includes("ready") === true && timeouts.fire() },
    );
    expect(r.stopReason).toBe("timeout");
    expect(r.output).toBe("ready\n[timed out after 120000 ms]");
    expect(leftovers(marker)).toEqual([]);
    expect(box.env.listProcesses()).toEqual([]);
  });

  it("ends with aborted when interrupted, and the process group is reaped", async () => {
    box = sandbox();
    const marker = sleepMarker();
    const ctrl = new AbortController();
    const r = await call(
      box.env,
      "exec_command",
      { cmd: `sleep ${marker} & sleep ${marker} & echo ready; wait`, description: "two sleepers" },
      { signal: ctrl.signal, onMessage: (m) => deltaText(m)?.includes("ready") === true && ctrl.abort() },
    );
    expect(r.stopReason).toBe("aborted");
    expect(r.output).toBe("ready\n[interrupted: tool aborted by user]");
    expect(leftovers(marker)).toEqual([]);
  });
});
