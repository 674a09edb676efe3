// The exit-code contract of `penguin run`, which scripts rely on: 0 done, 1 failed, 3 auth, 130
// aborted by SIGINT (the trace then ends with `abort`). Usage and config errors (2) are in
// errors.test.ts.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { collectOutput, exited, runCli, spawnCli } from "./helpers/run-cli.js";
import { sessionIdFrom, traceMessages } from "./helpers/trace-files.js";
import { KEY, startWorld, type World } from "./helpers/world.js";

let world: World | undefined;
beforeAll(ensureBuilt, 300_000);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

describe("penguin run exit codes", { timeout: 60_000 }, () => {
  it("exits 0 when the task is done", async () => {
    world = await startWorld({ script: [{ text: "done" }] });
    expect((await runCli(["run", "-m", "x", "--workspace", world.workspace], { env: world.env })).code).toBe(0);
  });

  it("exits 1 when the task fails (a permanent provider error)", async () => {
    world = await startWorld({ script: [{ fault: { kind: "http", status: 400, body: '{"error":{"message":"bad request body"}}' } }] });
    const r = await runCli(["run", "-m", "x", "--workspace", world.workspace], { env: world.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error: the task failed \(.*HTTP 400.*bad request body.*\); model testkit\/scripted-model at http:\/\/127\.0\.0\.1:\d+\/v1/);
    expect(world.kit.requests).toHaveLength(1);
  });

  it("exits 3 when the provider rejects the key, naming provider and base URL but never the key", async () => {
    world = await startWorld({ script: [{ fault: { kind: "http", status: 401, body: '{"error":{"message":"invalid api key"}}' } }] });
    const r = await runCli(["run", "-m", "x", "--workspace", world.workspace], { env: world.env });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`error: authentication failed for provider testkit at ${world.kit.baseUrl("openai-chat")}`);
    expect(r.stderr).toContain("penguin config model add --provider testkit --model-id scripted-model --api-key <key>");
    expect(r.stdout + r.stderr).not.toContain(KEY);
    expect(r.stdout + r.stderr).not.toContain(KEY.slice(-8));
    expect(world.kit.requests).toHaveLength(1);
  });

  it("exits 3 with --json too, keeping stdout to envelopes", async () => {
    world = await startWorld({ script: [{ fault: { kind: "http", status: 401 } }] });
    const r = await runCli(["run", "--json", "-m", "x", "--workspace", world.workspace], { env: world.env });
    expect(r.code).toBe(3);
    for (const line of r.stdout.trim().split("\n")) expect(() => JSON.parse(line)).not.toThrow();
    expect(r.stderr).toContain("authentication failed");
  });

  it("exits 130 on SIGINT during a hung request, after recording abort in the trace", async () => {
    world = await startWorld({ script: [{ text: "this never finishes", chunkSize: 5, fault: { kind: "hang", afterEvents: 2 } }] });
    const child = spawnCli(["run", "-m", "hang please", "--workspace", world.workspace], { env: world.env });
    const out = collectOutput(child);
    await world.kit.waitForRequests(1);
    child.kill("SIGINT");
    const { code } = await exited(child);
    expect(code).toBe(130);
    expect(out.stderr()).toContain("[aborted] aborted by user");
    const trace = traceMessages(world.root, sessionIdFrom(out.stderr()));
    const last = trace[trace.length - 1];
    expect(last?.type === "event_msg" ? last.payload.type : undefined).toBe("abort");
  });
});
