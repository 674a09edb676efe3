// `penguin otel export` through the built CLI: a session recorded by `penguin run` against the
// scripted model is sent to an in-test OTLP/HTTP collector as GenAI spans; sending it again
// gives the same span ids; --since picks sessions by activity; a missing collector or
// session is a usage error naming what to give.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { runCli } from "./helpers/run-cli.js";
import { sessionIdFrom } from "./helpers/trace-files.js";
import { startWorld, type World } from "./helpers/world.js";
import { startOtlpReceiver, type OtlpReceiver } from "../../../projections/otel/test/otlp-receiver.js";

let world: World | undefined;
let receiver: OtlpReceiver | undefined;
beforeAll(ensureBuilt, 300_000);
afterEach(async () => {
  await world?.cleanup();
  await receiver?.close();
  world = undefined;
  receiver = undefined;
});

describe("penguin otel export", { timeout: 60_000 }, () => {
  it("sends a recorded session's span tree, and the same ids again on a second export", async () => {
    world = await startWorld({ script: [{ toolCalls: [{ name: "exec_command", arguments: { cmd: "echo hi", description: "echo" } }] }, { text: "done" }] });
    const run = await runCli(["run", "--approve", "allow-all", "-m", "say hi", "--workspace", world.workspace], { env: world.env });
    expect(run.code).toBe(0);
    const sid = sessionIdFrom(run.stderr);
    receiver = await startOtlpReceiver();

    const sent = await runCli(["otel", "export", sid, "--endpoint", receiver.url], { env: world.env });
    expect(sent.stderr).toBe("");
    expect(sent.code).toBe(0);
    expect(sent.stdout).toContain(`${sid}: 4 spans sent`);
    const first = await receiver.waitFor(4);
    expect(first.map((s) => s.name).sort()).toEqual(["chat scripted-model", "chat scripted-model", "execute_tool exec_command", "invoke_agent default_agent"]);
    for (const s of first) expect(s.attributes["gen_ai.conversation.id"]).toBe(sid);
    const task = first.find((s) => s.name.startsWith("invoke_agent"))!;
    for (const s of first) if (s !== task) expect(s.parentSpanId).toBe(task.spanId);
    expect(JSON.stringify(first)).not.toContain("say hi");

    const again = await runCli(["otel", "export", "--since", "2000-01-01", "--endpoint", `${receiver.url}/v1/traces`, "--contents"], { env: world.env });
    expect(again.code).toBe(0);
    const all = await receiver.waitFor(8);
    expect(all.slice(4).map((s) => s.spanId).sort()).toEqual(first.map((s) => s.spanId).sort());
    expect(JSON.stringify(all.slice(4))).toContain("say hi");
  });

  it("names what is missing: a collector, a session", async () => {
    world = await startWorld();
    const noTarget = await runCli(["otel", "export", "session-2026-01-01-00-00-00-00000000"], { env: world.env });
    expect(noTarget.code).toBe(2);
    expect(noTarget.stderr).toContain("--endpoint");
    const noSession = await runCli(["otel", "export", "session-2026-01-01-00-00-00-00000000", "--endpoint", "http://127.0.0.1:9"], { env: world.env });
    expect(noSession.code).toBe(2);
    expect(noSession.stderr).toContain("no session session-2026-01-01-00-00-00-00000000");
  });
});
