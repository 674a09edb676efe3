// `penguin sessions` and `penguin trace show`: what a user learns about past sessions from
// their traces alone (status, cost, first prompt; tasks, requests, tools, retries, totals).
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { collectOutput, exited, runCli, spawnCli } from "./helpers/run-cli.js";
import { sessionIdFrom } from "./helpers/trace-files.js";
import { startWorld, type World } from "./helpers/world.js";

let world: World | undefined;
beforeAll(ensureBuilt, 300_000);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

describe("penguin sessions / trace show", { timeout: 60_000 }, () => {
  it("lists sessions with status and cost, and summarizes one trace", async () => {
    world = await startWorld({
      script: [
        { toolCalls: [{ name: "exec_command", id: "call_ses001", arguments: { cmd: "echo listed", description: "echo" } }], usage: { input: 1000, cached: 400, output: 100 } },
        { fault: { kind: "http", status: 503 } },
        { text: "finished fine", usage: { input: 2000, cached: 1000, output: 50 } },
        { fault: { kind: "http", status: 400 } },
        { text: "will hang", fault: { kind: "hang", afterEvents: 1 } },
      ],
    });
    const env = world.env;
    const done = await runCli(["run", "--approve", "allow-all", "-m", "the first task, with a rather long prompt that will be cut short in the list", "--workspace", world.workspace], { env });
    expect(done.code).toBe(0);
    const doneId = sessionIdFrom(done.stderr);
    const failed = await runCli(["run", "-m", "this one fails", "--workspace", world.workspace], { env });
    expect(failed.code).toBe(1);
    const child = spawnCli(["run", "-m", "this one is aborted", "--workspace", world.workspace], { env });
    const out = collectOutput(child);
    await world.kit.waitForRequests(5);
    child.kill("SIGINT");
    expect((await exited(child)).code).toBe(130);
    const abortedId = sessionIdFrom(out.stderr());

    // Every column (what the list showed before it had to fit 100 columns): --wide.
    const list = await runCli(["sessions", "--wide"], { env });
    expect(list.code).toBe(0);
    const lines = list.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^ID\s+STARTED\s+MODEL\s+STATUS\s+COST\s+WORKSPACE\s+TITLE$/);
    expect(lines).toHaveLength(4);
    expect(lines[1]).toContain(abortedId);
    expect(lines[1]).toMatch(/testkit\/scripted-model\s+aborted\s+/);
    expect(lines[2]).toMatch(/\sfailed\s+\$0\.00\s/);
    expect(lines[3]).toContain(doneId);
    // 600 uncached + 400 cached + 100 out, then 1000 + 1000 + 50: (1600×1 + 1400×0.1 + 150×2) / 1e6
    expect(lines[3]).toMatch(/\sdone\s+\$0\.0020\s/);
    // The title the CLI recorded from the first prompt (fallbackTitle: 30 characters), as the server lists it.
    expect(lines[3]).toContain("the first task, with a rather…");

    const limited = await runCli(["sessions", "--limit", "1"], { env });
    expect(limited.stdout.trim().split("\n")).toHaveLength(4);
    expect(limited.stdout).toContain("(2 older sessions not shown; --all lists every session)");

    // The default fits 100 columns: whole ids, no model or workspace, the title cut to fit.
    const narrow = await runCli(["sessions"], { env });
    const rows = narrow.stdout.trim().split("\n");
    expect(rows[0]).toMatch(/^ID\s+STARTED\s+STATUS\s+COST\s+TITLE$/);
    for (const row of rows) expect(row.length, row).toBeLessThanOrEqual(100);
    expect(rows[1]).toContain(abortedId);
    expect(rows[3]).toMatch(new RegExp(`^${doneId}\\s+\\d\\d-\\d\\d \\d\\d:\\d\\d\\s+done\\s+\\$0\\.0020\\s+the first task`));
    expect(narrow.stdout).not.toContain(world.workspace);
    expect(rows.at(-1)).toBe("(--wide adds the model and workspace, --json everything)");

    const json = JSON.parse((await runCli(["sessions", "--json"], { env })).stdout) as { total: number; sessions: Array<Record<string, unknown>> };
    expect(json.total).toBe(3);
    expect(json.sessions.map((x) => x.id)).toEqual([abortedId, expect.any(String), doneId]);
    expect(json.sessions[2]).toMatchObject({ provider: "testkit", modelId: "scripted-model", status: "done", cost: "$0.0020", workspace: world.workspace, title: "the first task, with a rather…" });

    const show = await runCli(["trace", "show", doneId], { env });
    expect(show.code).toBe(0);
    const text = show.stdout;
    expect(text).toContain(`session    ${doneId}`);
    expect(text).toContain("model      testkit/scripted-model · window 128k");
    expect(text).toContain(`workspace  ${world.workspace}`);
    expect(text).toMatch(/task 1 · done · "the first task, with a rather long prompt/);
    expect(text).toMatch(/request 1 · completed · 1k in \(400 cached\) \/ 100 out\n\s+\[tool-001\] exec_command <- \$ echo listed · allowed · completed/);
    expect(text).toMatch(/request 2 · failed \(attempt 1\) · .*HTTP 503.* · retry in 2\.0s/);
    expect(text).toMatch(/request 3 · completed \(attempt 2\) · 2k in \(1k cached\) \/ 50 out/);
    expect(text).toMatch(/totals\s+1 task · 3 requests \(1 retried\) · 1 tool call · 3k in \(1.4k cached\) \/ 150 out · \$0\.0020 · 0 compactions/);

    const aborted = await runCli(["trace", "show", abortedId], { env });
    expect(aborted.stdout).toMatch(/task 1 · aborted · "this one is aborted"\n\s+request 1 · aborted\n\s+aborted: aborted by user/);

    const missing = await runCli(["trace", "show", "session-2026-01-01-00-00-00-00000000"], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error: no session session-2026-01-01-00-00-00-00000000 in .*traces/);
  });

  it("says so when there are no sessions yet", async () => {
    world = await startWorld();
    const r = await runCli(["sessions"], { env: world.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^no sessions yet in .*traces\n$/);
  });
});
