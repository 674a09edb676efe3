// The MCP servers an editor sends in session/new and session/load: `penguin acp` starts them as
// it starts the agent's own `tools.mcpServers`, so their tools are mcp__<name>__<tool> for that
// session. The server is core's dependency-free fixture (fs-server.mjs, copied where a sandbox
// sees it). With `--sandbox` the editor's stdio server runs inside the session's bwrap sandbox:
// it reads a file of the workspace, but not the project config (the API key) by its absolute
// path, and cannot write next to the workspace; with `--no-sandbox` the same calls read the key
// and write outside, which shows the sandboxed checks can fail. A load starts the editor's
// servers again; a bad entry is refused as invalid params naming the field. An http server the
// editor sends (mcpCapabilities.http) is reached with the headers it gave.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { probeSandbox } from "@penguin/core";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { visibleFsServer } from "../../../../packages/core/test/mcp/fixtures/sandbox-visible.js";
import { startStreamableHttpServer } from "../../../../packages/core/test/mcp/fixtures/http-mcp-servers.js";
import { ensureBuilt } from "../helpers/build.js";
import { traceMessages } from "../helpers/trace-files.js";
import { KEY, startWorld, type World } from "../helpers/world.js";
import { initialize, startEditor, type Editor } from "./acp-client.js";

const availability = probeSandbox();
const skipReason = availability.available ? "" : ` (skipped: ${availability.reason ?? "bwrap cannot run here"})`;
const FS_SERVER = visibleFsServer();
const editorServer = (name: string): acp.McpServer => ({ name, command: FS_SERVER, args: [], env: [{ name: "FIXTURE_MARK", value: "editor" }] });

let world: World | undefined;
let editor: Editor | undefined;
beforeAll(ensureBuilt, 300_000);
afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail" && editor !== undefined) console.warn(`[acp-mcp] stderr of penguin acp when "${ctx.task.name}" failed:\n${editor.stderr().slice(-4000)}`);
  if (editor !== undefined && editor.child.exitCode === null) await editor.close();
  editor = undefined;
  await world?.cleanup();
  world = undefined;
});

/** The text of a call's final tool_call_update, and its status. */
function callEnd(e: Editor, sessionId: string, toolCallId: string): { status: string | undefined; text: string } {
  const end = e.updatesOf(sessionId).find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === toolCallId && (u.status === "completed" || u.status === "failed"));
  if (end?.sessionUpdate !== "tool_call_update") return { status: undefined, text: "" };
  const text = (end.content ?? []).map((c) => (c.type === "content" && c.content.type === "text" ? c.content.text : "")).join("");
  return { status: end.status ?? undefined, text };
}

interface Attempt {
  sessionId: string;
  workspaceRead: { status: string | undefined; text: string };
  keyRead: { status: string | undefined; text: string };
  trace: string;
  escaped: string;
}

async function attempt(flags: string[]): Promise<Attempt> {
  world = await startWorld();
  const escaped = join(dirname(world.workspace), `${world.workspace.split("/").pop()}-acp-mcp-escaped.txt`);
  writeFileSync(join(world.workspace, "inside.txt"), "seen from the editor's server\n");
  world.kit.enqueue(
    {
      toolCalls: [
        { name: "mcp__editorfs__read_file", id: "call_emcp1", arguments: { path: join(world.workspace, "inside.txt") } },
        { name: "mcp__editorfs__read_file", id: "call_emcp2", arguments: { path: world.configFile } },
        { name: "mcp__editorfs__write_file", id: "call_emcp3", arguments: { path: escaped, content: "out" } },
      ],
    },
    { text: "tried" },
  );
  editor = startEditor({ env: world.env, args: ["--approve", "allow-all", ...flags] });
  const init = await initialize(editor);
  expect(init.agentCapabilities?.mcpCapabilities).toEqual({ http: true, sse: true });
  const { sessionId } = await editor.agent.request(acp.methods.agent.session.new, { cwd: world.workspace, mcpServers: [editorServer("editorfs")] });
  const answer = await editor.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "use the editor's server" }] });
  expect(answer.stopReason).toBe("end_turn");
  const result: Attempt = {
    sessionId,
    workspaceRead: callEnd(editor, sessionId, "call_emcp1"),
    keyRead: callEnd(editor, sessionId, "call_emcp2"),
    trace: JSON.stringify(traceMessages(world.root, sessionId)),
    escaped: existsSync(escaped) ? readFileSync(escaped, "utf8") : "",
  };
  rmSync(escaped, { force: true });
  return result;
}

describe("penguin acp: the editor's MCP servers", { timeout: 120_000 }, () => {
  it.skipIf(!availability.available)(`session/new starts them inside the session's sandbox: the workspace, no key, no write outside${skipReason}`, async () => {
    const r = await attempt(["--sandbox"]);
    expect(r.workspaceRead).toEqual({ status: "completed", text: expect.stringContaining("seen from the editor's server") });
    // The model saw the tool by its mcp__ name, and the trace records the server's connection.
    expect(world!.kit.requests[0]!.toolNames).toContain("mcp__editorfs__read_file");
    expect(r.trace).toContain('"mcp_connect_end"');
    expect(r.keyRead.status).toBe("failed");
    expect(r.trace).toContain("read_file failed");
    expect(r.trace).not.toContain(KEY);
    expect(r.escaped).toBe("");
    expect(editor!.stderr()).not.toContain("are not started");
  });

  it("with --no-sandbox they run on the host: the same calls read the key and write outside", async () => {
    const r = await attempt(["--no-sandbox"]);
    expect(r.workspaceRead.status).toBe("completed");
    expect(r.keyRead.status).toBe("completed");
    expect(r.trace).toContain(KEY);
    expect(r.escaped).toBe("out");
  });

  it("session/load starts them again for the loaded session; a bad entry is invalid params naming the field", async () => {
    world = await startWorld({ script: [{ text: "first" }, { toolCalls: [{ name: "mcp__again__list_dir", id: "call_emcp4", arguments: { path: "." } }] }, { text: "listed" }] });
    writeFileSync(join(world.workspace, "listed-by-the-server.txt"), "x");
    editor = startEditor({ env: world.env, args: ["--approve", "allow-all"] });
    await initialize(editor);
    const { sessionId } = await editor.agent.request(acp.methods.agent.session.new, { cwd: world.workspace, mcpServers: [] });
    await editor.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hello" }] });
    expect(world.kit.requests[0]!.toolNames.some((n) => n.startsWith("mcp__"))).toBe(false);
    await editor.agent.request(acp.methods.agent.session.close, { sessionId });

    const bad = editor.agent.request(acp.methods.agent.session.load, { sessionId, cwd: world.workspace, mcpServers: [{ type: "http", name: "remote", url: "ftp://example.invalid/mcp", headers: [] }] });
    await expect(bad).rejects.toThrow(/mcpServers\[0\]\.config\.url/);
    await expect(editor.agent.request(acp.methods.agent.session.new, { cwd: world.workspace, mcpServers: [{ name: "", command: FS_SERVER, args: [], env: [] }] })).rejects.toThrow(/name/);

    await editor.agent.request(acp.methods.agent.session.load, { sessionId, cwd: world.workspace, mcpServers: [editorServer("again")] });
    const answer = await editor.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "list the workspace" }] });
    expect(answer.stopReason).toBe("end_turn");
    expect(world.kit.requests[1]!.toolNames).toContain("mcp__again__list_dir");
    expect(callEnd(editor, sessionId, "call_emcp4")).toEqual({ status: "completed", text: expect.stringContaining("listed-by-the-server.txt") });
    expect(await editor.close()).toBe(0);
  });

  it("an http server the editor sends is connected with its headers and its tools called", async () => {
    const http = await startStreamableHttpServer();
    try {
      world = await startWorld({ script: [{ toolCalls: [{ name: "mcp__calc__add", id: "call_emcp5", arguments: { a: 2, b: 40 } }] }, { text: "added" }] });
      editor = startEditor({ env: world.env, args: ["--approve", "allow-all"] });
      await initialize(editor);
      const { sessionId } = await editor.agent.request(acp.methods.agent.session.new, { cwd: world.workspace, mcpServers: [{ type: "http", name: "calc", url: http.url, headers: [{ name: "X-Editor", value: "acp-test" }] }] });
      expect((await editor.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "add" }] })).stopReason).toBe("end_turn");
      expect(callEnd(editor, sessionId, "call_emcp5")).toEqual({ status: "completed", text: expect.stringContaining("42") });
      expect(http.requests.length).toBeGreaterThan(0);
      expect(http.requests.every((r) => r.headers["x-editor"] === "acp-test")).toBe(true);
    } finally {
      await http.close();
    }
  });
});
