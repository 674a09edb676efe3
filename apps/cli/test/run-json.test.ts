// `penguin run --json` and `--resume`: stdout is JSON Lines of OmniMessage envelopes and
// nothing else; the first line is the session_meta whose id `--resume` takes; a resumed
// run sends the earlier conversation to the model again.
import { isPartial, parseEnvelope, type OmniMessage } from "@penguin/omnimessage";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { runCli } from "./helpers/run-cli.js";
import { startWorld, type World } from "./helpers/world.js";

let world: World | undefined;
beforeAll(ensureBuilt, 300_000);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

function envelopes(stdout: string): OmniMessage[] {
  expect(stdout.endsWith("\n")).toBe(true);
  return stdout
    .slice(0, -1)
    .split("\n")
    .map((line) => {
      const m = parseEnvelope(JSON.parse(line));
      expect(m, `not an envelope: ${line}`).toBeDefined();
      return m!;
    });
}

describe("penguin run --json", { timeout: 60_000 }, () => {
  it("writes one envelope per line on stdout: session_meta, then complete messages and events", async () => {
    world = await startWorld({
      script: [{ toolCalls: [{ name: "exec_command", id: "call_json01", arguments: { cmd: "echo json-tool", description: "echo" } }] }, { text: "the answer" }],
    });
    const r = await runCli(["run", "--json", "--approve", "allow-all", "-m", "go", "--workspace", world.workspace], { env: world.env });
    expect(r.code).toBe(0);
    const ms = envelopes(r.stdout);
    expect(ms[0]?.type).toBe("session_meta");
    expect(ms.some(isPartial)).toBe(false);
    const kinds = ms.map((m) => (m.type === "session_meta" ? "session_meta" : m.payload.type));
    expect(kinds).toEqual(expect.arrayContaining(["request_begin", "tool_call", "approval_decision", "tool_call_output", "request_end", "token_usage", "text"]));
    const text = ms.find((m) => m.type === "model_msg" && m.payload.type === "text");
    expect(text?.type === "model_msg" && text.payload.type === "text" ? text.payload.text : undefined).toBe("the answer");
    expect(r.stderr).toMatch(/^session session-/);
    expect(r.stderr).not.toContain("[stats]");
  });

  it("adds partials with --partials, and refuses --partials without --json", async () => {
    world = await startWorld({ script: [{ text: "streamed in pieces", chunkSize: 4 }] });
    const r = await runCli(["run", "--json", "--partials", "-m", "go", "--workspace", world.workspace], { env: world.env });
    expect(r.code).toBe(0);
    const deltas = envelopes(r.stdout).flatMap((m) => (m.type === "model_msg" && m.payload.type === "partial_text" && m.payload.event_type === "delta" ? [m.payload.text] : []));
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("streamed in pieces");

    const bad = await runCli(["run", "--partials", "-m", "go", "--workspace", world.workspace], { env: world.env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe("error: --partials adds streaming fragments to the --json output; use it together with --json\n");
  });

  it("continues a session with --resume SID: the model sees the earlier exchange", async () => {
    world = await startWorld({ script: [{ text: "first answer" }, { text: "second answer" }] });
    const first = await runCli(["run", "--json", "-m", "first question", "--workspace", world.workspace], { env: world.env });
    expect(first.code).toBe(0);
    const meta = envelopes(first.stdout)[0];
    const sid = meta?.type === "session_meta" ? meta.payload.session_id : "";
    expect(sid).toMatch(/^session-/);

    const second = await runCli(["run", "--resume", sid, "-m", "second question"], { env: world.env });
    expect(second.code).toBe(0);
    expect(second.stdout).toBe("second answer\n");
    expect(second.stderr).toContain(`session ${sid}`);
    const texts = world.kit.requests[1]!.messages.map((m) => `${m.role}:${m.text ?? ""}`);
    expect(texts).toEqual(expect.arrayContaining(["user:first question", "assistant:first answer", "user:second question"]));
  });

  it("refuses --resume together with a model pair or a workspace", async () => {
    world = await startWorld();
    const r = await runCli(["run", "--resume", "session-2026-01-01-00-00-00-0badc0de", "--workspace", world.workspace, "-m", "x"], { env: world.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --resume continues a session on its own model and workspace; drop --workspace/);
  });
});
