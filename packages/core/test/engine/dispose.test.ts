// Disposing a session releases what it started: a background command the model left running
// (a real `sleep` in its own process group) is gone once `session.dispose()` returns, and so
// is a second session's, while a session that is not disposed keeps its own. Real child
// processes, found with `ps`; only the model is scripted.
import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { collect, allow, startHarness, type Harness } from "../helpers/harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

function pidsRunning(marker: string): number[] {
  const out = execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" });
  return out
    .split("\n")
    .filter((l) => l.includes(marker) && !l.includes("ps -eo"))
    .map((l) => Number(l.trim().split(/\s+/)[0]));
}

function startsBackgroundSleep(marker: string) {
  return [
    { toolCalls: [{ name: "exec_command", arguments: { cmd: `sleep 300 # ${marker}`, run_in_background: true, description: "a long job" } }] },
    { text: "started it" },
  ];
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
});
