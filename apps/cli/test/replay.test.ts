// `penguin demo`, `replay`, `inspect` and `fork` as a user runs them: the built CLI as a child
// process on a fresh data root with no model configured and no model server at all (the
// model is the recording), then the trace the demo wrote read back by inspect and fork.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { REPO } from "./helpers/paths.js";
import { runCli } from "./helpers/run-cli.js";
import { cleanEnv } from "./helpers/world.js";

const roots: string[] = [];
const freshEnv = () => {
  const root = mkdtempSync(join(tmpdir(), "penguin-demo-root-"));
  roots.push(root);
  return cleanEnv({ PENGUIN_HOME: root });
};
beforeAll(ensureBuilt, 300_000);
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

const lines = (text: string) => text.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Record<string, unknown>);

describe("penguin demo / replay / inspect / fork", { timeout: 60_000 }, () => {
  it("demo runs with no model configured, renders the session and says what to try next; inspect and fork read its trace", async () => {
    const env = freshEnv();
    const demo = await runCli(["demo", "--fast"], { env });
    expect(demo.stderr).toBe("");
    expect(demo.code).toBe(0);
    expect(demo.stdout).toContain("› Take a look at this little project");
    expect(demo.stdout).toContain("[tool-1_0] exec_command <- $ node greet.js Penguin");
    expect(demo.stdout).toContain("Hello, Penguin!");
    expect(demo.stdout).toContain("replay identical to the recording");
    const sid = /penguin inspect (session-\S+) --at 5/.exec(demo.stdout)?.[1];
    expect(sid).toBeDefined();
    expect(demo.stdout).toContain("penguin web");
    expect(demo.stdout).toContain("penguin config model add");

    const inspect = await runCli(["inspect", sid!, "--at", "5", "--json"], { env });
    expect(inspect.code).toBe(0);
    const [state] = lines(inspect.stdout);
    expect(state).toMatchObject({ type: "session_state", sessionId: sid, at: { n: 5, position: "001:000005" }, settings: { source: "replay" } });

    // Record 5 is inside a request that then completed: nothing crashed, so what is in flight
    // there is shown as pending (the running request's input), with no "[turn_aborted]" note.
    expect(state).toMatchObject({ running: true });
    // (The system prompt, inside the plain `state`, explains the marker: look at the context only.)
    expect(JSON.stringify({ nextContext: state?.nextContext, carryOver: state?.carryOver, openToolCalls: state?.openToolCalls })).not.toContain("turn_aborted");
    expect(JSON.stringify(state?.nextContext)).toContain("Take a look at this little project");
    const atFive = await runCli(["inspect", sid!, "--at", "5"], { env });
    expect(atFive.code).toBe(0);
    expect(atFive.stdout).not.toContain("turn_aborted");
    expect(atFive.stdout).not.toContain("the harness process exited");
    expect(atFive.stdout).toContain("Take a look at this little project");

    const human = await runCli(["inspect", sid!], { env });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/files written\s+1\n\s+USAGE\.md/);

    const fork = await runCli(["fork", sid!, "--at", "9", "--json"], { env });
    expect(fork.code).toBe(0);
    const [forked] = lines(fork.stdout);
    expect(forked).toMatchObject({ type: "fork", forked_from: sid, at: "001:000009" });
    const forkState = await runCli(["inspect", String(forked!.session_id), "--json"], { env });
    expect(lines(forkState.stdout)[0]).toMatchObject({ settings: { forkedFrom: { session_id: sid, at: "001:000009" } } });

    const again = await runCli(["replay", sid!, "--tools", "recorded", "--json"], { env });
    expect(again.code).toBe(0);
    expect(lines(again.stdout)[0]).toMatchObject({ type: "replay_result", replay_of: sid, identical: true, summary: "identical" });
    // Run again for real: the demo's workspace has USAGE.md now; the replay starts without it,
    // from the session's first workspace checkpoint.
    const rerun = await runCli(["replay", sid!], { env });
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toMatch(/tools rerun · workspace .* \(checkpoint\)\nidentical \(\d+ records\)/);
  });

  it("replay of a recorded folder: identical exits 0; bad flags and positions exit 2 with a message", async () => {
    const env = freshEnv();
    const ok = await runCli(["replay", join(REPO, "fixtures/traces/compaction"), "--json"], { env });
    expect(ok.code).toBe(0);
    expect(lines(ok.stdout)[0]).toMatchObject({ identical: true, tools: "rerun", workspace_source: "recording" });
    const badTools = await runCli(["replay", join(REPO, "fixtures/traces/tools"), "--tools", "sometimes"], { env });
    expect(badTools.code).toBe(2);
    expect(badTools.stderr).toMatch(/--tools must be rerun .* or recorded/);
    const missing = await runCli(["inspect", "session-2026-01-01-00-00-00-0000abcd", "--at", "2"], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no session session-2026-01-01-00-00-00-0000abcd/);
    const noAt = await runCli(["fork", "session-2026-01-01-00-00-00-0000abcd"], { env });
    expect(noAt.code).toBe(2);
    expect(noAt.stderr).toMatch(/fork needs --at N/);
  });
});
