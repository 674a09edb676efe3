// `penguin run --goal [budget]`: rounds until the agent completes the goal; the exit code is
// 0 only for `complete` (budget_limited → 1). `penguin replay` of a goal session runs the goal
// again and comes out identical, with the tools answered from the recording or run again.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptStep } from "@penguin/testkit";
import { ensureBuilt } from "./helpers/build.js";
import { runCli } from "./helpers/run-cli.js";
import { sessionIdFrom } from "./helpers/trace-files.js";
import { startWorld, type World } from "./helpers/world.js";

let world: World | undefined;
beforeAll(() => ensureBuilt(), 240_000);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

const goalFile = (r: RecordedRequest) => /goal_file: (\S+)/.exec(r.messages.map((m) => m.text ?? "").join("\n"))![1]!;
const complete: ScriptStep = (r) => ({ toolCalls: [{ name: "write_file", arguments: { file_path: goalFile(r), content: "objective: x\nstatus: complete\n" } }] });

describe("run --goal", () => {
  it("exits 0 when the goal is completed in the second round", async () => {
    world = await startWorld({ script: [{ text: "planned" }, complete, { text: "done" }] });
    const r = await runCli(["run", "--approve", "allow-all", "--goal", "1m", "-m", "ship it", "--json"], { env: world.env, cwd: world.workspace });
    expect(r.code).toBe(0);
    const finished = r.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l)).find((m) => m.payload?.type === "goal_finished");
    expect(finished.payload).toMatchObject({ outcome: "complete", rounds: 2 });
  });

  it("exits 1 when the budget runs out", async () => {
    world = await startWorld({ script: [{ text: "a", usage: { input: 900, output: 100 } }, { text: "b", usage: { input: 900, output: 100 } }] });
    const r = await runCli(["run", "--approve", "allow-all", "--goal", "500", "-m", "big"], { env: world.env, cwd: world.workspace });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/goal ended: budget_limited/);
  });
});

describe("replay of a goal run", { timeout: 120_000 }, () => {
  it("is identical with --tools recorded and --tools rerun, for a completed and a budget-limited goal", async () => {
    world = await startWorld({
      script: [
        { text: "planned", usage: { input: 300, output: 10 } },
        complete,
        { text: "done", usage: { input: 400, output: 10 } },
        { text: "a", usage: { input: 900, output: 100 } },
        { text: "b", usage: { input: 900, output: 100 } },
      ],
    });
    const done = await runCli(["run", "--approve", "allow-all", "--goal", "1m", "--approve", "allow-all", "-m", "ship it"], { env: world.env, cwd: world.workspace });
    expect(done.code).toBe(0);
    const limited = await runCli(["run", "--approve", "allow-all", "--goal", "500", "-m", "big"], { env: world.env, cwd: world.workspace });
    expect(limited.code).toBe(1);
    for (const sid of [sessionIdFrom(done.stderr), sessionIdFrom(limited.stderr)]) {
      for (const tools of ["recorded", "rerun"]) {
        const replay = await runCli(["replay", sid, "--tools", tools, "--json"], { env: world.env });
        expect({ sid, tools, code: replay.code, stderr: replay.stderr }).toMatchObject({ code: 0 });
        const [result] = replay.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
        expect({ sid, tools, result }).toMatchObject({ result: { type: "replay_result", replay_of: sid, identical: true, summary: "identical" } });
      }
    }
  });
});

describe("chat /goal", () => {
  it("runs a goal from the REPL and shows its rounds and outcome", async () => {
    world = await startWorld({ script: [{ text: "planned" }, complete, { text: "done" }] });
    const r = await runCli(["chat", "--approve", "allow-all", "--workspace", world.workspace], { env: { ...world.env, NO_COLOR: "1" }, input: "/goal:1m ship it\n/exit\n" });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\[goal\] round 1 · used 0 tokens of 1000000 tokens/);
    expect(r.stdout).toMatch(/\[goal\] round 2/);
    expect(r.stdout).toMatch(/\[goal\] complete after 2 rounds · \d+ tokens/);
    const bad = await runCli(["chat", "--approve", "allow-all", "--workspace", world.workspace], { env: world.env, input: "/goal:lots x\n/goal\n/exit\n" });
    expect(bad.stdout).toMatch(/invalid goal budget "lots"/);
    expect(bad.stdout).toMatch(/usage: \/goal/);
  });
});
