// Disposing a session releases what it started: a background command the model left running
// (a real `sleep` in its own process group) is gone once `session.dispose()` returns, and so
// is a second session's, while a session that is not disposed keeps its own. A command a
// running task is waiting on is gone when the aborted task ends, and when the session is
// disposed mid-task (its Scope aborts the task first, then releases the Environment). Real
// child processes, found with `ps`; only the model is scripted.
import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import type { OmniMessage } from "@penguin/omnimessage";
import { collect, allow, startHarness, traceOf, type Harness } from "../helpers/harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

// The marker follows a second command so the shell stays (bash would exec a lone `sleep`,
// and its arguments would lose the marker).
function pidsRunning(marker: string): number[] {
  const out = execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" });
  return out
    .split("\n")
    .filter((l) => l.includes(marker) && !l.includes("ps -eo"))
    .map((l) => Number(l.trim().split(/\s+/)[0]));
}

function startsBackgroundSleep(marker: string) {
  return [
    { toolCalls: [{ name: "exec_command", arguments: { cmd: `sleep 300; : ${marker}`, run_in_background: true, description: "a long job" } }] },
    { text: "started it" },
  ];
}

function runsForegroundSleep(marker: string) {
  return [{ toolCalls: [{ name: "exec_command", arguments: { cmd: `sleep 300; : ${marker}`, yield_time_ms: 290000, description: "a long wait" } }] }, { text: "never reached" }];
}

/** Iterates `run` in the background; resolves its messages when it ends. */
function drain(run: AsyncIterable<OmniMessage>) {
  const seen: OmniMessage[] = [];
  const done = (async () => {
    for await (const m of run) seen.push(m);
    return seen;
  })();
  return { seen, done };
}

/** Waits (event-loop turns, no timed sleep) until a process with `marker` in its arguments runs. */
async function untilRunning(marker: string): Promise<void> {
  while (pidsRunning(marker).length === 0) await new Promise<void>((resolve) => setImmediate(resolve));
}

describe("session.dispose", () => {
  it("stops the background command a session started, and only that session's", async () => {
    const mine = `penguin-dispose-mine-${process.pid}-${Date.now()}`;
    const theirs = `penguin-dispose-theirs-${process.pid}-${Date.now()}`;
    h = await startHarness({ script: [...startsBackgroundSleep(mine), ...startsBackgroundSleep(theirs)] });
    const first = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(first.run("start a long job", { approve: allow }));
    const second = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(second.run("start another", { approve: allow }));
    expect(pidsRunning(mine).length).toBeGreaterThan(0);
    expect(pidsRunning(theirs).length).toBeGreaterThan(0);

    await first.dispose();
    expect(pidsRunning(mine)).toEqual([]);
    expect(pidsRunning(theirs).length).toBeGreaterThan(0);

    await second.dispose();
    expect(pidsRunning(theirs)).toEqual([]);
  });

  it("given a task waiting on a command, when it is aborted, then the command is gone by the time the task ends", async () => {
    const marker = `penguin-abort-fg-${process.pid}-${Date.now()}`;
    h = await startHarness({ script: runsForegroundSleep(marker) });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const controller = new AbortController();
    const run = drain(session.run("wait a while", { approve: allow, signal: controller.signal }));
    await untilRunning(marker);

    controller.abort();
    const messages = await run.done;
    expect(pidsRunning(marker)).toEqual([]);
    expect(messages.at(-1)?.payload).toEqual({ type: "abort", reason: "aborted by user" });
    expect(session.running).toBe(false);
    await session.dispose();
  });

  it("given a task waiting on a command, when the session is disposed, then the task ends aborted and the command is gone", async () => {
    const marker = `penguin-dispose-fg-${process.pid}-${Date.now()}`;
    h = await startHarness({ script: runsForegroundSleep(marker) });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const run = drain(session.run("wait a while", { approve: allow }));
    await untilRunning(marker);

    await session.dispose();
    expect(pidsRunning(marker)).toEqual([]);
    const trace = traceOf(session.tracePath);
    expect(trace.at(-1)?.payload).toEqual({ type: "abort", reason: "aborted by user" });
    const messages = await run.done;
    expect(messages.at(-1)?.payload).toEqual({ type: "abort", reason: "aborted by user" });
  });
});
