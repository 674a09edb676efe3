// MCP through a whole session: servers configured in system_config.yaml (the real
// server-everything over stdio, a streamable-HTTP server started here, and one whose command
// does not exist) are connected at the first run; the model sees their tools, calls one, and
// the real result reaches its next request. The broken server is reported and skipped.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { allow, collect, resultText, startHarness, traceOf, type Harness } from "../helpers/harness.js";
import { startStreamableHttpServer, type TestHttpServer } from "./fixtures/http-mcp-servers.js";

let h: Harness | undefined;
let http: TestHttpServer | undefined;
afterEach(async () => {
  await h?.cleanup();
  await http?.close();
  h = undefined;
  http = undefined;
});

const everything = join(dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/package.json")), "dist", "index.js");

describe("MCP in a session", () => {
  it("lists the servers' tools, calls them for real, and skips a broken server", async () => {
    http = await startStreamableHttpServer();
    const servers = [
      `  - name: everything\n    config: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(everything)}, stdio] }`,
      `  - name: calc\n    config: { url: ${JSON.stringify(http.url)} }`,
      `  - name: broken\n    config: { command: /nonexistent/mcp-server-binary, connectTimeoutMs: 3000 }`,
    ].join("\n");
    h = await startHarness({
      systemConfigPatch: (yaml) => yaml.replace(/^(\s*)mcpServers: \[\]\s*$/m, `$1mcpServers:\n${servers}`),
      script: [
        {
          toolCalls: [
            { name: "mcp__everything__echo", arguments: { message: "hello over stdio" } },
            { name: "mcp__calc__add", arguments: { a: 2, b: 40 } },
          ],
        },
        { text: "both tools answered" },
      ],
    });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const messages = await collect(session.run("use the MCP tools", { approve: allow }));

    const end = messages.find((m) => m.type === "event_msg" && m.payload.type === "mcp_connect_end");
    expect(end?.payload).toMatchObject({ type: "mcp_connect_end", status: "failed" });
    const results = end?.type === "event_msg" && end.payload.type === "mcp_connect_end" ? end.payload.results : [];
    expect(results.map((r) => [r.server, r.status])).toEqual([["everything", "connected"], ["calc", "connected"], ["broken", "failed"]]);
    expect(results[2]?.error).toBeTruthy();

    const tools = h.kit.requests[0]!.toolNames;
    expect(tools).toEqual(expect.arrayContaining(["exec_command", "mcp__everything__echo", "mcp__calc__add"]));
    expect(tools.some((t) => t.startsWith("mcp__broken__"))).toBe(false);
    const answers = h.kit.requests[1]!.messages.filter((m) => m.kind === "tool_result").map((m) => resultText(m.text));
    expect(answers[0]).toMatch(/hello over stdio/);
    expect(answers[1]).toBe("42");
    expect(h.kit.violations).toEqual([]);
    // read-only MCP tools (readOnlyHint) are `r`, so read-only approval mode allows them.
    expect(session.toolPermission("mcp__calc__add")).toBe("r");
    const trace = traceOf(session.tracePath).map((m) => (m.type === "event_msg" ? m.payload.type : ""));
    expect(trace.indexOf("mcp_connect_begin")).toBeLessThan(trace.indexOf("tool_list_ready"));
    await session.dispose();
  }, 30_000);
});

describe("a session's own MCP servers (createSession / resumeSession mcpServers)", () => {
  it("come after the agent's configured ones, only in that session; a configured name is refused", async () => {
    http = await startStreamableHttpServer();
    const configured = `  - name: everything\n    config: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(everything)}, stdio] }`;
    h = await startHarness({
      systemConfigPatch: (yaml) => yaml.replace(/^(\s*)mcpServers: \[\]\s*$/m, `$1mcpServers:\n${configured}`),
      script: [{ toolCalls: [{ name: "mcp__calc__add", arguments: { a: 1, b: 2 } }] }, { text: "three" }, { text: "no calc here" }],
    });
    const calc = { name: "calc", config: { transport: "http" as const, url: http.url } };
    await expect(h.agent.createSession({ workspaceDir: h.workspace, mcpServers: [{ ...calc, name: "everything" }] })).rejects.toThrow(/MCP server "everything" is already configured for this agent/);

    const session = await h.agent.createSession({ workspaceDir: h.workspace, mcpServers: [calc] });
    await collect(session.run("add", { approve: allow }));
    const tools = h.kit.requests[0]!.toolNames;
    expect(tools).toContain("mcp__calc__add");
    expect(tools.indexOf("mcp__everything__echo")).toBeLessThan(tools.indexOf("mcp__calc__add"));
    expect(resultText(h.kit.requests[1]!.messages.find((m) => m.kind === "tool_result")?.text)).toContain("3");
    await session.dispose();

    // Resumed without them, the session has the agent's servers only.
    const resumed = await h.agent.resumeSession({ sessionId: session.id });
    await collect(resumed.run("again", { approve: allow }));
    expect(h.kit.requests[2]!.toolNames).toContain("mcp__everything__echo");
    expect(h.kit.requests[2]!.toolNames.some((n) => n.startsWith("mcp__calc__"))).toBe(false);
    await resumed.dispose();
  });
});
