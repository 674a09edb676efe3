// session/fork (unstable in ACP v1, declared as sessionCapabilities.fork) and session/list's
// cursor pagination, driven by the official SDK's client over the built `penguin acp`'s stdio
// against the scripted model: a fork starts from the source's last answer and goes on as its
// own session (the model sees the source's history, the source's trace gets nothing), a fork
// in another folder or of an unknown session is refused with what to send instead. A list longer
// than a page comes in pages behind nextCursor, every session once; a made-up cursor is refused.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/build.js";
import { traceMessages } from "../helpers/trace-files.js";
import { startWorld, type World } from "../helpers/world.js";
import { initialize, startEditor, type Editor } from "./acp-client.js";

let world: World | undefined;
let editor: Editor | undefined;
beforeAll(ensureBuilt, 300_000);
afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail" && editor !== undefined) console.warn(`[acp-session-methods] stderr of penguin acp when "${ctx.task.name}" failed:\n${editor.stderr().slice(-4000)}`);
  if (editor !== undefined && editor.child.exitCode === null) await editor.close();
  editor = undefined;
  await world?.cleanup();
  world = undefined;
});

const userTexts = (messages: readonly { role?: string; text?: string }[]) => messages.flatMap((m) => (m.role === "user" && m.text !== undefined ? [m.text] : []));

describe("penguin acp: session/fork", { timeout: 90_000 }, () => {
  it("forks after the last answer: declared, opened at once, goes on with the source's history; another cwd or an unknown id is refused", async () => {
    world = await startWorld({ script: [{ text: "first answer" }, { text: "answered in the fork" }] });
    editor = startEditor({ env: world.env });
    const init = await initialize(editor);
    expect(init.agentCapabilities?.sessionCapabilities).toMatchObject({ fork: {} });
    const { sessionId } = await editor.agent.request(acp.methods.agent.session.new, { cwd: world.workspace, mcpServers: [] });
    await editor.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "first question" }] });

    const elsewhere = mkdtempSync(join(tmpdir(), "penguin-acp-fork-elsewhere-"));
    try {
      await expect(editor.agent.request("session/fork", { sessionId, cwd: elsewhere })).rejects.toThrow(/a fork works in its source's workspace, .*: send that as cwd/);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
    await expect(editor.agent.request("session/fork", { sessionId: "session-2020-01-01-00-00-00-deadbeef", cwd: world.workspace })).rejects.toThrow(/no session session-2020-01-01-00-00-00-deadbeef of this agent/);
    await expect(editor.agent.request("session/fork", { cwd: world.workspace })).rejects.toThrow(/needs "sessionId"/);

    const fork = await editor.agent.request<{ sessionId: string; modes?: { currentModeId: string } }>("session/fork", { sessionId, cwd: world.workspace, mcpServers: [] });
    expect(fork.sessionId).not.toBe(sessionId);
    expect(fork.modes?.currentModeId).toBe("read-only");
    // Opened by the fork itself: a prompt needs no load first.
    const answer = await editor.agent.request(acp.methods.agent.session.prompt, { sessionId: fork.sessionId, prompt: [{ type: "text", text: "second question" }] });
    expect(answer.stopReason).toBe("end_turn");
    expect(userTexts(world.kit.requests[1]!.messages)).toEqual(["first question", "second question"]);
    expect(world.kit.requests[1]!.messages.map((m) => m.text)).toContain("first answer");
    const sourceTexts = traceMessages(world.root, sessionId).flatMap((m) => (m.type === "model_msg" && m.payload.type === "text" ? [m.payload.text] : []));
    expect(sourceTexts).toEqual(["first question", "first answer"]);
    const forkMeta = traceMessages(world.root, fork.sessionId).find((m) => m.type === "session_meta");
    expect(forkMeta?.type === "session_meta" ? forkMeta.payload.client : undefined).toBe("acp");
    expect(await editor.close()).toBe(0);
  });
});

describe("penguin acp: session/list pages", { timeout: 120_000 }, () => {
  it("gives 50 sessions a page and the rest behind nextCursor, each once; a cursor it did not give is invalid params", async () => {
    world = await startWorld();
    editor = startEditor({ env: world.env });
    await initialize(editor);
    const created: string[] = [];
    for (let i = 0; i < 52; i++) created.push((await editor.agent.request(acp.methods.agent.session.new, { cwd: world.workspace, mcpServers: [] })).sessionId);

    const first = await editor.agent.request(acp.methods.agent.session.list, { cwd: world.workspace });
    expect(first.sessions).toHaveLength(50);
    expect(typeof first.nextCursor).toBe("string");
    const second = await editor.agent.request(acp.methods.agent.session.list, { cwd: world.workspace, cursor: first.nextCursor! });
    expect(second.sessions).toHaveLength(2);
    expect(second.nextCursor ?? undefined).toBeUndefined();
    const listed = [...first.sessions, ...second.sessions].map((s) => s.sessionId);
    expect(new Set(listed).size).toBe(52);
    expect([...listed].sort()).toEqual([...created].sort());
    // Most recently active first, across the pages.
    const times = [...first.sessions, ...second.sessions].map((s) => Date.parse(s.updatedAt ?? ""));
    expect(times).toEqual([...times].sort((a, b) => b - a));

    await expect(editor.agent.request(acp.methods.agent.session.list, { cursor: "not-a-cursor" })).rejects.toThrow(/"cursor" "not-a-cursor" is not one this agent gave: send the nextCursor/);
    expect(await editor.close()).toBe(0);
  });
});
