// `penguin acp` driven by an editor built on the official ACP SDK (acp-client.ts) over the
// stdio of the built CLI, against the testkit's scripted model. What an editor relies on:
// the capabilities; a prompt that streams and asks permission for writes through the editor
// (granted, then denied; the decisions recorded in the trace as approval_decision); the
// granted write made through the editor's fs/write_text_file; a write outside the session's
// boundary refused before the editor is asked; cancel mid-stream; load replaying what was
// shown live; our extension methods; and the trace going on in `penguin run --resume`.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import type { ScriptStep } from "@penguin/testkit";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/build.js";
import { runCli } from "../helpers/run-cli.js";
import { traceMessages } from "../helpers/trace-files.js";
import { startWorld, type World } from "../helpers/world.js";
import { asShown, initialize, startEditor, type Editor } from "./acp-client.js";

let world: World | undefined;
let editor: Editor | undefined;
beforeAll(ensureBuilt, 300_000);
afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail" && editor !== undefined) console.warn(`[acp] stderr of penguin acp when "${ctx.task.name}" failed:\n${editor.stderr().slice(-4000)}`);
  if (editor !== undefined && editor.child.exitCode === null) await editor.close();
  editor = undefined;
  await world?.cleanup();
  world = undefined;
});

const write = (id: string, file: string, content: string) => ({ name: "write_file", id, arguments: { file_path: file, content } });
const decisions = (root: string, sessionId: string) =>
  traceMessages(root, sessionId).flatMap((m) => (m.type === "event_msg" && m.payload.type === "approval_decision" ? [`${m.payload.tool_call_id}:${m.payload.decision}`] : []));

async function newSession(e: Editor, cwd: string): Promise<string> {
  const { sessionId } = await e.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  return sessionId;
}

function expectOnlyJsonRpcOnStdout(e: Editor): void {
  for (const line of e.stdoutLines()) expect((JSON.parse(line) as { jsonrpc?: string }).jsonrpc, line).toBe("2.0");
}

describe("penguin acp", { timeout: 90_000 }, () => {
  it("initialize declares protocol v1, load, list, resume, close and our extension methods", async () => {
    world = await startWorld();
    editor = startEditor({ env: world.env });
    const init = await initialize(editor);
    expect(init.protocolVersion).toBe(1);
    expect(init.agentInfo?.name).toBe("penguin");
    expect(init.agentCapabilities?.loadSession).toBe(true);
    expect(init.agentCapabilities?.sessionCapabilities).toMatchObject({ list: {}, resume: {}, close: {} });
    expect(init.agentCapabilities?._meta).toEqual({ penguin: { extensions: ["_penguin/inspect", "_penguin/fork", "_penguin/replay"], approvalMode: "read-only" } });
    expect(await editor.close()).toBe(0);
    expectOnlyJsonRpcOnStdout(editor);
  });

  it("a prompt streams, asks the editor before each write (granted, then denied), writes through fs/write_text_file and ends with end_turn", async () => {
    world = await startWorld({ script: [{ toolCalls: [write("call_acp001", "granted.txt", "yes\n"), write("call_acp002", "denied.txt", "no\n")] }, { text: "one written, one refused", chunkSize: 4 }] });
    editor = startEditor({ env: world.env });
    await initialize(editor);
    const sessionId = await newSession(editor, world.workspace);
    editor.permissionAnswers.push("allow_once", "reject_once");
    const answer = await editor.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "write two files" }] });
    expect(answer.stopReason).toBe("end_turn");

    expect(editor.permissionRequests.map((r) => [r.toolCall.toolCallId, r.toolCall.kind, r.options.map((o) => o.kind)])).toEqual([
      ["call_acp001", "edit", ["allow_once", "reject_once"]],
      ["call_acp002", "edit", ["allow_once", "reject_once"]],
    ]);
    expect(editor.announcedBeforeAsked).toEqual([true, true]);
    expect(editor.writes).toEqual([{ sessionId, path: join(world.workspace, "granted.txt"), content: "yes\n" }]);
    expect(readFileSync(join(world.workspace, "granted.txt"), "utf8")).toBe("yes\n");
    expect(existsSync(join(world.workspace, "denied.txt"))).toBe(false);
    expect(decisions(world.root, sessionId)).toEqual(["call_acp001:allow", "call_acp002:deny"]);

    const updates = editor.updatesOf(sessionId);
    const chunks = updates.filter((u) => u.sessionUpdate === "agent_message_chunk");
    expect(chunks.length).toBeGreaterThan(1);
    expect(asShown(chunks)).toEqual([{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "one written, one refused" } }]);
    // The denied call ends at once, the granted one once it ran: sorted by id, not by arrival.
    const ends = updates.flatMap((u) => (u.sessionUpdate === "tool_call_update" && u.status !== "in_progress" ? [[u.toolCallId, u.status]] : []));
    expect(ends.sort()).toEqual([
      ["call_acp001", "completed"],
      ["call_acp002", "failed"],
    ]);
    expect(await editor.close()).toBe(0);
    expectOnlyJsonRpcOnStdout(editor);
  });

  it("a command's output comes back in its tool call update, never on the protocol's stdout", async () => {
    const cmd = { name: "exec_command", id: "call_acpcmd", arguments: { cmd: "echo printed-by-the-command; echo to-stderr >&2", description: "print a line" } };
    world = await startWorld({ script: [{ toolCalls: [cmd] }, { text: "ran it" }] });
    editor = startEditor({ env: world.env });
    await initialize(editor);
    const sessionId = await newSession(editor, world.workspace);
    editor.permissionAnswers.push("allow_once");
    expect((await editor.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "run it" }] })).stopReason).toBe("end_turn");
    expect(editor.permissionRequests.map((r) => [r.toolCall.kind, r.toolCall.title])).toEqual([["execute", "exec_command $ echo printed-by-the-command; echo to-stderr >&2"]]);
    const done = editor.updatesOf(sessionId).find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "call_acpcmd" && u.status === "completed");
    expect(JSON.stringify(done)).toContain("printed-by-the-command");
    expect(await editor.close()).toBe(0);
    expectOnlyJsonRpcOnStdout(editor);
    expect(editor.stdoutLines().join("\n")).toContain("printed-by-the-command");
    expect(editor.stdoutLines().some((l) => l.startsWith("printed-by-the-command"))).toBe(false);
  });

  it("a write outside the session's boundary is refused before the editor is asked to write", async () => {
    // A sibling of the workspace: hidden from the session (its mount table has it absent).
    const outside = mkdtempSync(join(tmpdir(), "penguin-acp-sibling-"));
    try {
      const target = join(outside, "escaped.txt");
      world = await startWorld({ script: [{ toolCalls: [write("call_acpout", target, "escaped\n")] }, { text: "tried" }] });
      editor = startEditor({ env: world.env, args: ["--approve", "allow-all"] });
      await initialize(editor);
      const sessionId = await newSession(editor, world.workspace);
      const answer = await editor.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "write outside" }] });
      expect(answer.stopReason).toBe("end_turn");
      expect(editor.writes).toEqual([]);
      expect(existsSync(target)).toBe(false);
      const output = editor.updatesOf(sessionId).find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "call_acpout" && u.status === "failed");
      const text = output?.sessionUpdate === "tool_call_update" ? (output.content ?? []).map((c) => (c.type === "content" && c.content.type === "text" ? c.content.text : "")).join("") : "";
      expect(text).toContain("is outside what this session may touch");
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("modes are our approval modes: set_mode allow-all lets a write run unasked, is recorded, and a load opens in it", async () => {
    world = await startWorld({ script: [{ toolCalls: [write("call_acpmd1", "unasked.txt", "ran\n")] }, { text: "done" }] });
    editor = startEditor({ env: world.env });
    await initialize(editor);
    const created = await editor.agent.request(acp.methods.agent.session.new, { cwd: world.workspace, mcpServers: [] });
    const sessionId = created.sessionId;
    expect(created.modes?.currentModeId).toBe("read-only");
    expect(created.modes?.availableModes.map((m) => m.id).sort()).toEqual(["allow-all", "always-ask", "deny-all", "read-only"]);
    await expect(editor.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "yolo" })).rejects.toThrow(/unknown mode "yolo": use one of/);
    await editor.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "allow-all" });
    await editor.waitForUpdate(sessionId, (u) => u.sessionUpdate === "current_mode_update" && u.currentModeId === "allow-all");
    const answer = await editor.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "write it" }] });
    expect(answer.stopReason).toBe("end_turn");
    expect(editor.permissionRequests).toEqual([]);
    expect(readFileSync(join(world.workspace, "unasked.txt"), "utf8")).toBe("ran\n");
    const modes = traceMessages(world.root, sessionId).flatMap((m) => (m.type === "event_msg" && m.payload.type === "settings_changed" && m.payload.approval_mode !== undefined ? [m.payload.approval_mode] : []));
    expect(modes).toEqual(["read-only", "allow-all"]);
    await editor.agent.request(acp.methods.agent.session.close, { sessionId });
    const loaded = await editor.agent.request(acp.methods.agent.session.load, { sessionId, cwd: world.workspace, mcpServers: [] });
    expect(loaded.modes?.currentModeId).toBe("allow-all");
  });

  it("session/cancel mid-stream ends the turn with cancelled and the trace records the abort", async () => {
    const long = "streaming slowly, word by word, until the editor cancels the turn";
    world = await startWorld({ script: [{ text: long, chunkSize: 3, fault: { kind: "hang", afterEvents: 4 } }] });
    editor = startEditor({ env: world.env });
    await initialize(editor);
    const sessionId = await newSession(editor, world.workspace);
    const turn = editor.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "talk" }] });
    await editor.waitForUpdate(sessionId, (u) => u.sessionUpdate === "agent_message_chunk");
    await editor.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect((await turn).stopReason).toBe("cancelled");
    expect(traceMessages(world.root, sessionId).some((m) => m.type === "event_msg" && m.payload.type === "abort")).toBe(true);
  });

  it("session/cancel while the editor is being asked cancels the question, ends cancelled, and the call never runs", async () => {
    world = await startWorld({ script: [{ toolCalls: [write("call_acpcq1", "never.txt", "no\n")] }, { text: "not reached" }] });
    editor = startEditor({ env: world.env });
    await initialize(editor);
    const sessionId = await newSession(editor, world.workspace);
    editor.permissionAnswers.push("hold");
    const turn = editor.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "write" }] });
    await editor.waitForPermissionRequests(1);
    await editor.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect((await turn).stopReason).toBe("cancelled");
    expect(editor.cancelledQuestions()).toBe(1);
    expect(editor.writes).toEqual([]);
    expect(existsSync(join(world.workspace, "never.txt"))).toBe(false);
    expect(decisions(world.root, sessionId)).not.toContain("call_acpcq1:allow");
    expect(world.kit.requests).toHaveLength(1);
  });

  it("session/load replays the session as it was shown live; the session lists, and goes on in penguin run --resume and chat", async () => {
    const script: ScriptStep[] = [
      { thinking: "the user wants a file", toolCalls: [write("call_acpld1", "notes.md", "# notes\n")] },
      { text: "I wrote notes.md for you.", chunkSize: 5 },
      { text: "and now from the command line" },
      { text: "and in the chat" },
    ];
    world = await startWorld({ script });
    editor = startEditor({ env: world.env });
    await initialize(editor);
    const sessionId = await newSession(editor, world.workspace);
    editor.permissionAnswers.push("allow_once");
    await editor.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "take notes" }] });
    const live = asShown(editor.updatesOf(sessionId));
    expect(live.filter((u) => u.sessionUpdate === "usage_update").map((u) => u.sessionUpdate === "usage_update" && u.size)).toEqual([128000, 128000]);
    await editor.agent.request(acp.methods.agent.session.close, { sessionId });

    const listed = await editor.agent.request(acp.methods.agent.session.list, { cwd: world.workspace });
    expect(listed.sessions.map((s) => [s.sessionId, s.cwd, s.title])).toEqual([[sessionId, world.workspace, "take notes"]]);
    expect(await editor.close()).toBe(0);

    editor = startEditor({ env: world.env });
    await initialize(editor);
    await editor.agent.request(acp.methods.agent.session.load, { sessionId, cwd: world.workspace, mcpServers: [] });
    // A load also replays the person's prompts, which the editor showed itself when they were sent.
    const replayed = asShown(editor.updatesOf(sessionId));
    expect(replayed[0]).toEqual({ sessionUpdate: "user_message_chunk", content: { type: "text", text: "take notes" } });
    expect(replayed.map((u) => u.sessionUpdate)).toContain("tool_call");
    expect(replayed.filter((u) => u.sessionUpdate !== "user_message_chunk")).toEqual(live);
    expect(await editor.close()).toBe(0);

    const sessions = await runCli(["sessions"], { env: world.env });
    expect(sessions.stdout).toContain(sessionId);
    // The trace says which program made the session: the editor's, through `penguin acp`.
    // session_meta is a record type of its own (not an event_msg payload).
    const meta = traceMessages(world.root, sessionId).find((m) => m.type === "session_meta");
    expect(meta?.type === "session_meta" ? meta.payload.client : undefined).toBe("acp");
    const usage = await runCli(["usage", "--by", "session", "--json"], { env: world.env });
    expect(usage.code, usage.stderr).toBe(0);
    expect(usage.stdout).toContain(sessionId);
    const resumed = await runCli(["run", "--resume", sessionId, "-m", "go on"], { env: world.env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe("and now from the command line\n");
    const context = world.kit.requests[2]!.messages.map((m) => m.text ?? "").join("\n");
    expect(context).toContain("take notes");
    expect(context).toContain("I wrote notes.md for you.");
    const chat = await runCli(["chat", "--resume", sessionId], { env: world.env, input: "and in the chat?\n" });
    expect(chat.code, chat.stderr).toBe(0);
    expect(chat.stdout).toContain("and in the chat");
    const chatContext = world.kit.requests[3]!.messages.map((m) => m.text ?? "").join("\n");
    expect(chatContext).toContain("I wrote notes.md for you.");
    expect(chatContext).toContain("go on");
  });

  it("extension methods: inspect at N, fork at N (then loadable), replay; bad params name the field", async () => {
    world = await startWorld({ script: [{ text: "first answer" }, { text: "second answer" }] });
    editor = startEditor({ env: world.env });
    await initialize(editor);
    const sessionId = await newSession(editor, world.workspace);
    for (const text of ["one", "two"]) await editor.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
    await editor.agent.request(acp.methods.agent.session.close, { sessionId });

    const records = traceMessages(world.root, sessionId);
    // The record that commits the first answer: the request_end after it.
    const answerIndex = records.findIndex((m) => m.type === "model_msg" && m.payload.type === "text" && m.payload.text === "first answer");
    const firstAnswerAt = records.findIndex((m, i) => i > answerIndex && m.type === "event_msg" && m.payload.type === "request_end") + 1;
    const inspected = await editor.agent.request<{ state: { at: { n: number }; nextContext: { payload: { text?: string } }[] } }>("_penguin/inspect", { sessionId, at: firstAnswerAt });
    expect(inspected.state.at.n).toBe(firstAnswerAt);
    const texts = inspected.state.nextContext.map((m) => m.payload.text);
    expect(texts).toContain("first answer");
    expect(texts).not.toContain("second answer");

    const fork = await editor.agent.request<{ sessionId: string; forkedFrom: string }>("_penguin/fork", { sessionId, at: firstAnswerAt });
    expect(fork.forkedFrom).toBe(sessionId);
    expect(fork.sessionId).not.toBe(sessionId);
    await editor.agent.request(acp.methods.agent.session.load, { sessionId: fork.sessionId, cwd: world.workspace, mcpServers: [] });
    const forkShown = asShown(editor.updatesOf(fork.sessionId)).flatMap((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : []));
    expect(forkShown).toEqual(["first answer"]);

    const replay = await editor.agent.request<{ identical: boolean; replayOf: string; summary: string }>("_penguin/replay", { sessionId });
    expect(replay.replayOf).toBe(sessionId);
    expect(replay.identical, replay.summary).toBe(true);

    await expect(editor.agent.request("_penguin/fork", { sessionId })).rejects.toThrow(/"at": a record number/);
    await expect(editor.agent.request("_penguin/inspect", { at: 1 })).rejects.toThrow(/needs "sessionId"/);
    await expect(editor.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "closed" }] })).rejects.toThrow(/not open on this connection/);
  });
});
