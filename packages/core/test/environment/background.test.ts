// Background commands end to end, on real processes: one command's whole life (backgrounded
// by its yield window, polled, fed stdin, Ctrl-C'd, killed), `[background_task_done]`
// notices, the process cap, the unread-buffer cap, and dispose leaving no process behind.
import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { extractMarker, parseFields } from "@penguin/omnimessage";
import { call, leftovers, processIdOf, readUntil, sandbox, sleepMarker, waitUntil, withoutRunningNotes, type Sandbox } from "./helpers.js";

// Real processes start through `bash -l`, slow on a loaded machine: room, never an assertion.
const PROCESS_TESTS = { timeout: 30_000 };

let box: Sandbox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

describe("a background command's life", PROCESS_TESTS, () => {
  it("is backgrounded, polled, fed, interrupted and killed", async () => {
    box = sandbox();
    const marker = sleepMarker();
    const script = `trap 'echo caught-int' INT; sleep ${marker} & echo ready; while true; do read -r line && echo "got:$line"; done`;
    const started = await call(box.env, "exec_command", { cmd: script, yield_time_ms: 250, description: "echo server" });
    expect(started.output).toMatch(/^(ready\n)?\[still running after 250 ms; moved to the background as process_id p\d+/);
    const id = processIdOf(started.output);
    if (!started.output.startsWith("ready")) {
      // bash -l may take longer than the window to start; then "ready" is still unread.
      const first = await call(box.env, "input_command", { process_id: id, description: "wait for ready" });
      expect(first.output).toBe(`ready\n[process ${id} is still running]`);
    }

    const poll = await call(box.env, "input_command", { process_id: id, yield_time_ms: 250, description: "poll" });
    expect(poll.output).toBe(`[process ${id} is still running]`);

    // The answers are read until they show: on a loaded machine they may outlast any window.
    const fed = await call(box.env, "input_command", { process_id: id, chars: "one\ntwo\n", yield_time_ms: 1000, description: "feed" });
    expect(fed.output.endsWith(`[process ${id} is still running]`)).toBe(true);
    expect(withoutRunningNotes(await readUntil(box.env, id, fed.output, "got:two\n"), id)).toBe("got:one\ngot:two\n");

    const ctrlC = await call(box.env, "input_command", { process_id: id, chars: "\u0003", yield_time_ms: 1000, description: "ctrl-c" });
    expect(ctrlC.output.endsWith(`[process ${id} is still running]`)).toBe(true);
    expect(withoutRunningNotes(await readUntil(box.env, id, ctrlC.output, "caught-int\n"), id)).toBe("caught-int\n");

    const killed = await call(box.env, "kill_command", { process_id: id, description: "stop" });
    expect(killed.output).toBe(`[process ${id} killed (terminated by signal SIGTERM)]`);
    expect(leftovers(marker)).toEqual([]);
    expect(box.env.listProcesses()).toMatchObject([{ id, status: "killed", label: "echo server" }]);
    expect(box.env.drainNotices()).toEqual([]);
  });
});

describe("background notices", PROCESS_TESTS, () => {
  it("are sent once for a run_in_background command that exits on its own", async () => {
    box = sandbox();
    const r = await call(box.env, "exec_command", { cmd: "echo building; echo done-output; exit 2", run_in_background: true, description: "build the thing" });
    const id = processIdOf(r.output);
    await waitUntil(() => box!.env.listProcesses()[0]?.status === "exited", "exit");
    const notices = box.env.drainNotices();
    expect(notices).toHaveLength(1);
    const body = extractMarker(notices[0] ?? "", "background_task_done");
    expect(body).toBeDefined();
    expect(parseFields(body ?? "")).toEqual({ kind: "command", id, status: "failed", detail: "exit code 2" });
    expect(body?.split("\n").slice(4)).toEqual(["build the thing", "building", "done-output", ""]);
    expect(box.env.drainNotices()).toEqual([]);
    expect(box.env.listProcesses()[0]).toMatchObject({ id, status: "exited", exitCode: 2 });
  });

  it("cut the label at 120 and the tail at 4000 characters", async () => {
    box = sandbox();
    await call(box.env, "exec_command", { cmd: "seq 1 3000", run_in_background: true, description: "x".repeat(300) });
    await waitUntil(() => box!.env.listProcesses()[0]?.status === "exited", "exit");
    const body = extractMarker(box.env.drainNotices()[0] ?? "", "background_task_done") ?? "";
    const lines = body.split("\n");
    expect(lines[4]).toBe(`${"x".repeat(119)}…`);
    const tail = lines.slice(5).join("\n");
    expect(tail.length).toBe(4000);
    expect(tail.startsWith("…")).toBe(true);
    expect(tail.endsWith("2999\n3000\n")).toBe(true);
  });

  it("are not sent for killed commands, nor once the model saw the exit", async () => {
    box = sandbox();
    const marker = sleepMarker();
    const killed = processIdOf((await call(box.env, "exec_command", { cmd: `sleep ${marker}`, run_in_background: true, description: "k" })).output);
    const seen = processIdOf((await call(box.env, "exec_command", { cmd: "echo hi", run_in_background: true, description: "s" })).output);
    await call(box.env, "kill_command", { process_id: killed, description: "stop" });
    const polled = await call(box.env, "input_command", { process_id: seen, yield_time_ms: 5000, description: "poll" });
    await waitUntil(() => box!.env.listProcesses().every((p) => p.status !== "running"), "both ended");
    if (!polled.output.includes("has exited")) await call(box.env, "input_command", { process_id: seen, description: "poll" });
    expect(box.env.drainNotices()).toEqual([]);
  });

  it("are not sent for commands backgrounded by their yield window", async () => {
    box = sandbox();
    // It ends only once the test opens the gate, after the window moved it to the background
    // (a sleep could end within a window stretched by a loaded machine).
    execFileSync("mkfifo", [join(box.workspace, "gate")]);
    const slow = await call(box.env, "exec_command", { cmd: "cat gate > /dev/null; echo late", yield_time_ms: 250, description: "slow" });
    expect(slow.output).toContain("moved to the background");
    await writeFile(join(box.workspace, "gate"), "go\n");
    await waitUntil(() => box!.env.listProcesses()[0]?.status === "exited", "exit");
    expect(box.env.drainNotices()).toEqual([]);
  });
});

describe("caps", PROCESS_TESTS, () => {
  it("refuses a command beyond the live-process cap", async () => {
    box = sandbox({ limits: { maxProcesses: 2 } });
    const marker = sleepMarker();
    for (let i = 0; i < 2; i++) {
      await call(box.env, "exec_command", { cmd: `sleep ${marker}`, run_in_background: true, description: "fill" });
    }
    const third = await call(box.env, "exec_command", { cmd: "echo no room", description: "one too many" });
    expect(third.stopReason).toBe("failed");
    expect(third.output).toBe("Too many running commands (limit 2). Stop one with kill_command first (running: p1, p2).");
    await call(box.env, "kill_command", { process_id: "p1", description: "free one" });
    const fourth = await call(box.env, "exec_command", { cmd: "echo room again", description: "fits" });
    expect(fourth.output).toBe("room again\n[exit code: 0]");
  });

  it("drops the oldest unread output beyond the buffer cap, with a marker", async () => {
    box = sandbox({ limits: { unreadBufferBytes: 1000 } });
    const r = await call(box.env, "exec_command", { cmd: "seq 1 2000; echo the-end", run_in_background: true, description: "chatty" });
    const id = processIdOf(r.output);
    await waitUntil(() => box!.env.listProcesses()[0]?.status === "exited", "exit");
    const polled = await call(box.env, "input_command", { process_id: id, description: "read" });
    const dropped = /^\[… (\d+) bytes of earlier output dropped \(unread buffer full\) …\]\n/.exec(polled.output);
    expect(dropped).not.toBeNull();
    const kept = polled.output.slice(dropped?.[0].length ?? 0).replace(/\[process p\d+ has exited: exit code 0\]$/, "");
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(1000);
    expect(kept.endsWith("2000\nthe-end\n")).toBe(true);
    const total = Array.from({ length: 2000 }, (_, i) => `${i + 1}\n`).join("").length + "the-end\n".length;
    expect(Number(dropped?.[1]) + Buffer.byteLength(kept)).toBe(total);
  });
});

describe("dispose", PROCESS_TESTS, () => {
  it("stops every process group, stubborn ones and strays of exited commands included", async () => {
    box = sandbox({ limits: { killGraceMs: 100 } });
    const marker = sleepMarker();
    await call(box.env, "exec_command", { cmd: `sleep ${marker}`, run_in_background: true, description: "plain" });
    await call(box.env, "exec_command", { cmd: `trap '' TERM; sleep ${marker}`, run_in_background: true, description: "stubborn" });
    await call(box.env, "exec_command", { cmd: `sleep ${marker} & sleep ${marker}`, yield_time_ms: 250, description: "yielded" });
    const stray = await call(box.env, "exec_command", { cmd: `sleep ${marker} > /dev/null 2>&1 & echo left-a-stray`, description: "stray" });
    expect(stray.output).toBe("left-a-stray\n[exit code: 0]");
    await waitUntil(() => leftovers(marker).length >= 6, "all sleepers up");
    await box.env.dispose();
    expect(leftovers(marker)).toEqual([]);
    expect(box.env.drainNotices()).toEqual([]);
    const after = await call(box.env, "exec_command", { cmd: "echo hi", description: "after" });
    expect(after.stopReason).toBe("failed");
  });
});
