// Session facts the CLI decides reach the trace: given `penguin run` with a tool call, when
// the host's approval mode is asked about it, then approval_requested precedes the decision;
// when the session is resumed with another --approve mode, then settings_changed records it.
// Given `penguin run` or `penguin chat`, the trace opens with the starting approval mode and
// thinking level, which `penguin inspect` shows from record 2 and `chat --resume` keeps.
// Given `penguin run` or `penguin chat`, the session's first prompt becomes its title
// (`session_title`, core's fallbackTitle, as the server records one), once: a resumed session
// keeps it, and a replay of the session records it at the same record.
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
const settingsOf = (ms: OmniMessage[]) => ms.flatMap((m) => (m.type === "event_msg" && m.payload.type === "settings_changed" ? [m.payload] : []));
const jsonLines = (text: string) => text.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Record<string, unknown>);

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
    const first = await runCli(["run", "--approve", "allow-all", "-m", "go", "--workspace", world.workspace], { env: world.env });
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

  it("penguin run: the trace opens with the starting approval mode and thinking level, and inspect shows them from record 2", async () => {
    world = await startWorld({ script: [{ text: "ok" }] });
    const r = await runCli(["run", "-m", "hi", "--approve", "read-only", "--thinking", "low", "--workspace", world.workspace], { env: world.env });
    expect(r.code).toBe(0);
    const sid = sessionIdFrom(r.stderr);
    const trace = traceMessages(world.root, sid);
    expect(trace[0]?.type).toBe("session_meta");
    expect(trace[1]?.payload).toEqual({ type: "settings_changed", approval_mode: "read-only", thinking_level: "low" });
    expect(settingsOf(trace)).toHaveLength(1);
    const inspect = await runCli(["inspect", sid, "--at", "2", "--json"], { env: world.env });
    expect(inspect.code).toBe(0);
    expect(jsonLines(inspect.stdout)[0]).toMatchObject({ at: { n: 2 }, settings: { approvalMode: "read-only", thinkingLevel: "low" } });
    // Its `state` is the SDK's agent.sessionState() at the same record, as plain JSON (one shape for inspect, /state and the SDK).
    const { createAgent } = await import("@penguin/core");
    const sdk = await (await createAgent({ root: world.root, env: {} })).sessionState({ sessionId: sid, at: 2 });
    expect(jsonLines(inspect.stdout)[0]!.state).toEqual(JSON.parse(JSON.stringify(sdk.state)));
    expect(sdk.state.settings).toEqual({ approvalMode: "read-only", thinkingLevel: "low" });
  });

  it("penguin run, chat, replay and fork record `cli` as the client in their session_meta", async () => {
    world = await startWorld({ script: [{ text: "ran" }, { text: "chatted" }] });
    const clientOf = (sid: string) => traceMessages(world!.root, sid).find((m) => m.type === "session_meta")?.payload.client;
    const ran = await runCli(["run", "-m", "hi", "--workspace", world.workspace], { env: world.env });
    expect(ran.code).toBe(0);
    const sid = sessionIdFrom(ran.stderr);
    const chat = await runCli(["chat", "--workspace", world.workspace], { env: world.env, input: "hello\n" });
    expect(chat.code).toBe(0);
    const chatId = /penguin chat --resume (session-[\w-]+)\n$/.exec(chat.stdout)?.[1];
    const replay = await runCli(["replay", sid, "--tools", "recorded", "--json"], { env: world.env });
    expect(replay.code).toBe(0);
    const replayId = jsonLines(replay.stdout)[0]!.session_id as string;
    const fork = await runCli(["fork", sid, "--at", "2", "--json"], { env: world.env });
    expect(fork.code).toBe(0);
    const forkId = jsonLines(fork.stdout)[0]!.session_id as string;
    expect([sid, chatId!, replayId, forkId!].map(clientOf)).toEqual(["cli", "cli", "cli", "cli"]);
  });

  it("penguin chat: the starting mode opens the trace, and chat --resume keeps it without recording it again", async () => {
    world = await startWorld({ script: [{ text: "first" }, { text: "again" }] });
    const first = await runCli(["chat", "--approve", "deny-all", "--workspace", world.workspace], { env: world.env, input: "hello\n" });
    expect(first.code).toBe(0);
    const sid = /penguin chat --resume (session-[\w-]+)\n$/.exec(first.stdout)?.[1];
    expect(sid).toBeDefined();
    expect(traceMessages(world.root, sid!)[1]?.payload).toEqual({ type: "settings_changed", approval_mode: "deny-all", thinking_level: "medium" });
    const resumed = await runCli(["chat", "--resume", sid!], { env: world.env, input: "again\n" });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("approvals deny-all");
    expect(settingsOf(traceMessages(world.root, sid!))).toEqual([{ type: "settings_changed", approval_mode: "deny-all", thinking_level: "medium" }]);
  });

  it("penguin run and chat record the first prompt's title once, and a replay records it at the same record", async () => {
    world = await startWorld({ script: [{ text: "looked" }, { text: "again" }, { text: "chatted" }] });
    const titlesOf = (sid: string) => traceMessages(world!.root, sid).flatMap((m) => (m.type === "event_msg" && m.payload.type === "session_title" ? [m.payload.title] : []));
    const first = await runCli(["run", "-m", "Look  at the\nfailing build, please", "--workspace", world.workspace], { env: world.env });
    expect(first.code).toBe(0);
    const sid = sessionIdFrom(first.stderr);
    expect(titlesOf(sid)).toEqual(["Look at the failing build, pl…"]);
    const resumed = await runCli(["run", "--resume", sid, "-m", "and now the tests"], { env: world.env });
    expect(resumed.code).toBe(0);
    expect(titlesOf(sid)).toEqual(["Look at the failing build, pl…"]);

    const replay = await runCli(["replay", sid, "--tools", "recorded", "--json"], { env: world.env });
    expect(replay.code).toBe(0);
    expect(jsonLines(replay.stdout)[0]).toMatchObject({ type: "replay_result", replay_of: sid, identical: true });

    const chat = await runCli(["chat", "--workspace", world.workspace], { env: world.env, input: "hello there\n" });
    expect(chat.code).toBe(0);
    const chatId = /penguin chat --resume (session-[\w-]+)\n$/.exec(chat.stdout)?.[1];
    expect(titlesOf(chatId!)).toEqual(["hello there"]);
  });
});
