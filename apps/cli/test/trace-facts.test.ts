// Session facts the CLI decides reach the trace: given `penguin run` with a tool call, when
// the host's approval mode is asked about it, then approval_requested precedes the decision;
// when the session is resumed with another --approve mode, then settings_changed records it.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { OmniMessage } from "@penguin/omnimessage";
import { ensureBuilt } from "./helpers/build.js";
import { runCli } from "./helpers/run-cli.js";
import { sessionIdFrom, traceMessages } from "./helpers/trace-files.js";
import { startWorld, type World } from "./helpers/world.js";

let world: World | undefined;
beforeAll(ensureBuilt, 300_000);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

const eventTypes = (ms: OmniMessage[]) => ms.flatMap((m) => (m.type === "event_msg" ? [m.payload.type] : []));

describe("session facts from the CLI", { timeout: 60_000 }, () => {
  it("records the approval request and a changed approval mode", async () => {
    world = await startWorld({
      script: [
        { toolCalls: [{ name: "exec_command", arguments: { cmd: "echo first", description: "echo" } }] },
        { text: "first done" },
        { toolCalls: [{ name: "exec_command", arguments: { cmd: "echo second", description: "echo" } }] },
        { text: "second done" },
      ],
    });
    const first = await runCli(["run", "-m", "go", "--workspace", world.workspace], { env: world.env });
    expect(first.code).toBe(0);
    const sid = sessionIdFrom(first.stderr);
    const types = eventTypes(traceMessages(world.root, sid));
    expect(types.indexOf("approval_requested")).toBeGreaterThanOrEqual(0);
    expect(types.indexOf("approval_requested")).toBeLessThan(types.indexOf("approval_decision"));

    const second = await runCli(["run", "--resume", sid, "--approve", "deny-all", "-m", "again"], { env: world.env });
    expect(second.code).toBe(0);
    const modes = traceMessages(world.root, sid).flatMap((m) => (m.type === "event_msg" && m.payload.type === "settings_changed" ? [m.payload.approval_mode] : []));
    expect(modes).toEqual(["allow-all", "deny-all"]);
  });
});
