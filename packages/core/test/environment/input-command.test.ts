// input_command through executeTool, against real background bash processes: writing to
// stdin, polling, Ctrl-C, refusals, truncation with its archive, a timeout and an interrupt
// (neither of which stops the background process).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { call, deltaText, leftovers, manualTimeouts, processIdOf, readUntil, sandbox, sleepMarker, waitUntil, withoutRunningNotes, type Sandbox } from "./helpers.js";

// Real processes start through `bash -l`, slow on a loaded machine: room, never an assertion.
const PROCESS_TESTS = { timeout: 30_000 };

let box: Sandbox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

const ECHO_LOOP = `echo ready; while true; do read -r line && echo "got:$line"; done`;

async function startBackground(b: Sandbox, cmd: string): Promise<string> {
  const r = await call(b.env, "exec_command", { cmd, run_in_background: true, description: "bg" });
  return processIdOf(r.output);
}

describe("input_command", PROCESS_TESTS, () => {
  it("writes to stdin and returns the new output since the last read", async () => {
    box = sandbox();
    const id = await startBackground(box, ECHO_LOOP);
    const first = await call(box.env, "input_command", { process_id: id, description: "poll" });
    expect(first.output).toBe(`ready\n[process ${id} is still running]`);
    const r = await call(box.env, "input_command", { process_id: id, chars: "hello\n", yield_time_ms: 1000, description: "say hello" });
    expect(r.stopReason).toBe("completed");
    expect(r.output.endsWith(`[process ${id} is still running]`)).toBe(true);
    expect(withoutRunningNotes(await readUntil(box.env, id, r.output, "got:hello\n"), id)).toBe("got:hello\n");
  });

  it("sends SIGINT to the group for \\u0003", async () => {
    box = sandbox();
    const id = await startBackground(box, `trap 'echo caught-int' INT; ${ECHO_LOOP}`);
    await call(box.env, "input_command", { process_id: id, description: "wait for ready" });
    // The trap runs when the signal lands, whenever that is on a loaded machine: the output
    // is read until it shows, each poll waking on new output (never a fixed window).
    const r = await call(box.env, "input_command", { process_id: id, chars: "\u0003", yield_time_ms: 250, description: "ctrl-c" });
    expect(await readUntil(box.env, id, r.output, "caught-int")).toContain("caught-int");
    const stopped = await startBackground(box, `echo ready; sleep ${sleepMarker()}`);
    await call(box.env, "input_command", { process_id: stopped, description: "wait for ready" });
    const killed = await call(box.env, "input_command", { process_id: stopped, chars: "\u0003", yield_time_ms: 250, description: "ctrl-c" });
    const exited = `[process ${stopped} has exited: terminated by signal SIGINT]`;
    const seen = await readUntil(box.env, stopped, killed.output, "has exited");
    // Before the exit, only "still running" reports; the exit is the last thing said, once.
    expect(withoutRunningNotes(seen, stopped)).toBe(exited);
  });

  it("fails for an unknown process and for input to an exited one", async () => {
    box = sandbox();
    const unknown = await call(box.env, "input_command", { process_id: "p99", chars: "x", description: "x" });
    expect(unknown.stopReason).toBe("failed");
    expect(unknown.output).toBe("Unknown process_id p99. No background commands exist.");
    const id = await startBackground(box, "echo bye");
    const polled = await call(box.env, "input_command", { process_id: id, yield_time_ms: 5000, description: "poll" });
    expect(polled.output).toContain("bye\n");
    await waitUntil(() => box!.env.listProcesses()[0]?.status === "exited", "exit");
    const late = await call(box.env, "input_command", { process_id: id, chars: "more\n", description: "late" });
    expect(late.stopReason).toBe("failed");
    expect(late.output).toBe(`[process ${id} has exited: exit code 0] The input was not sent.`);
  });

  it("truncates a long answer and archives all of it", async () => {
    box = sandbox({ limits: { outputChars: 100 } });
    const id = await startBackground(box, "read -r go; seq 1 3000");
    const r = await call(box.env, "input_command", { process_id: id, chars: "go\n", yield_time_ms: 10000, description: "go" }, { id: "input-long" });
    const archive = join(box.scratchpad, "truncated-tool-output", "input-long.txt");
    const expected = Array.from({ length: 3000 }, (_, i) => `${i + 1}\n`).join("");
    expect(readFileSync(archive, "utf8")).toBe(expected);
    expect(r.output).toContain(`showing the first 100 of ${expected.length} characters`);
    expect(r.output.endsWith(`[process ${id} has exited: exit code 0]`)).toBe(true);
  });

  it("times out without stopping the process", async () => {
    const timeouts = manualTimeouts();
    box = sandbox({ scheduleTimeout: timeouts.scheduleTimeout });
    const marker = sleepMarker();
    const id = await startBackground(box, `read -r x; echo "first:$x"; sleep ${marker}`);
    const r = await call(
      box.env,
      "input_command",
      { process_id: id, chars: "a\n", yield_time_ms: 60000, description: "feed" },
      { onMessage: (m) => deltaText(m)?.includes("first:a") === true && timeouts.fire() },
    );
    expect(r.stopReason).toBe("timeout");
    expect(r.output).toBe(`first:a\n[process ${id} is still running]\n[timed out after 130000 ms]`);
    expect(box.env.listProcesses()[0]?.status).toBe("running");
    // The shell reaches its `sleep` just after printing; on a busy machine that can be a moment later.
    await waitUntil(() => leftovers(marker).length > 0, "the process to keep running into its sleep");
  });

  it("ends with aborted when interrupted, the process keeps running", async () => {
    box = sandbox();
    const id = await startBackground(box, ECHO_LOOP);
    await call(box.env, "input_command", { process_id: id, description: "ready" });
    const ctrl = new AbortController();
    const r = await call(
      box.env,
      "input_command",
      { process_id: id, chars: "x\n", yield_time_ms: 60000, description: "feed" },
      { signal: ctrl.signal, onMessage: (m) => deltaText(m)?.includes("got:x") === true && ctrl.abort() },
    );
    expect(r.stopReason).toBe("aborted");
    expect(r.output).toBe(`got:x\n[process ${id} is still running]\n[interrupted: tool aborted by user]`);
    const after = await call(box.env, "input_command", { process_id: id, chars: "y\n", yield_time_ms: 1000, description: "again" });
    expect(await readUntil(box.env, id, after.output, "got:y")).toContain("got:y");
  });
});
