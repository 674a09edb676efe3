// Remote MCP servers over real HTTP on 127.0.0.1: a stateless Streamable HTTP server and a
// legacy HTTP+SSE server started by the test, listed and called through McpHub. Also:
// headers reach the server, permissions follow readOnlyHint or the entry's override, every
// content kind maps, odd tool names map back, and servers connect in parallel.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { isEvent, type McpServerResult } from "@penguin/omnimessage";
import { McpHub, type McpServerEntry } from "../../src/environment/mcp/index.js";
import {
  LONG_TOOL_NAME,
  TINY_PNG,
  startSseServer,
  startStreamableHttpServer,
  type TestHttpServer,
} from "./fixtures/http-mcp-servers.js";

async function connectAll(hub: McpHub): Promise<{ status: string; results: McpServerResult[] }> {
  let end: { status: string; results: McpServerResult[] } | undefined;
  for await (const m of hub.connect()) {
    if (isEvent(m, "mcp_connect_end")) end = m.payload;
  }
  if (end === undefined) throw new Error("no mcp_connect_end");
  return end;
}

describe("Streamable HTTP", () => {
  let server: TestHttpServer;
  let hub: McpHub;

  beforeAll(async () => {
    server = await startStreamableHttpServer({ requireHeader: { name: "authorization", value: "Bearer t0ken" } });
    hub = new McpHub([{ name: "web", config: { transport: "http", url: server.url, headers: { Authorization: "Bearer t0ken" } } }]);
    const end = await connectAll(hub);
    expect(end.status).toBe("completed");
  });
  afterAll(async () => {
    await hub.close();
    await server.close();
  });

  it("sends the configured headers with every request", () => {
    expect(server.requests.length).toBeGreaterThan(0);
    for (const r of server.requests) expect(r.headers["authorization"]).toBe("Bearer t0ken");
  });

  it("lists the tools with permissions from readOnlyHint under auto", () => {
    const perms = Object.fromEntries(hub.tools().map((t) => [t.definition.name, t.permission]));
    expect(perms).toMatchObject({
      mcp__web__add: "r",
      mcp__web__weather: "r",
      "mcp__web__write-note": "rw",
      mcp__web__fail: "rw",
    });
    const add = hub.tools().find((t) => t.definition.name === "mcp__web__add");
    expect(add?.definition).toMatchObject({
      description: "Adds two numbers.",
      parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
    });
  });

  it("calls a tool", async () => {
    expect(await hub.call("mcp__web__add", '{"a": 19, "b": 23}')).toEqual({ output: "42", isError: false });
    expect(await hub.call("mcp__web__write-note", '{"text": "hi"}')).toEqual({ output: "saved: hi", isError: false });
  });

  it("serialises structured-only results as JSON", async () => {
    const result = await hub.call("mcp__web__weather", '{"city": "Oslo"}');
    expect(result.isError).toBe(false);
    expect(JSON.parse(result.output)).toEqual({ city: "Oslo", celsius: 21 });
  });

  it("reports isError results and handler exceptions as failed", async () => {
    expect(await hub.call("mcp__web__fail", "{}")).toEqual({ output: "disk full", isError: true });
    const thrown = await hub.call("mcp__web__throws", "{}");
    expect(thrown.isError).toBe(true);
    expect(thrown.output).toContain("handler exploded");
  });

  it("maps every content kind", async () => {
    const result = await hub.call("mcp__web__mixed", "");
    expect(result.isError).toBe(false);
    expect(result.images).toEqual([`data:image/png;base64,${TINY_PNG}`]);
    expect(result.output.split("\n")).toEqual([
      "first",
      "[audio audio/wav, 3 bytes, not shown]",
      "[resource link file:///notes.txt (notes): the notes]",
      "embedded text",
      "[resource file:///b.bin, application/octet-stream, 4 bytes, not shown]",
      "last",
    ]);
  });

  it("sanitises and shortens tool names, and calls map back to the server's names", async () => {
    const names = hub.tools().map((t) => t.definition.name);
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(names).toContain("mcp__web__search_files");
    const long = names.find((n) => n.startsWith("mcp__web__a-tool-whose-name"));
    expect(long).toHaveLength(64);
    expect(LONG_TOOL_NAME.length).toBeGreaterThan(64);
    expect(await hub.call("mcp__web__search_files", "{}")).toEqual({ output: "dot tool ran", isError: false });
    expect(await hub.call(long ?? "", "{}")).toEqual({ output: "long tool ran", isError: false });
  });
});

describe("HTTP edge cases", () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  async function started(server: Promise<TestHttpServer>): Promise<TestHttpServer> {
    const s = await server;
    cleanup.push(() => s.close());
    return s;
  }
  function hubOf(entries: McpServerEntry[]): McpHub {
    const hub = new McpHub(entries);
    cleanup.push(() => hub.close());
    return hub;
  }

  it("fails a server that refuses our credentials, with the HTTP status in the error", async () => {
    const server = await started(startStreamableHttpServer({ requireHeader: { name: "authorization", value: "Bearer right" } }));
    const hub = hubOf([{ name: "web", config: { transport: "http", url: server.url, headers: { Authorization: "Bearer wrong" } } }]);
    const end = await connectAll(hub);
    expect(end.status).toBe("failed");
    expect(end.results[0]).toMatchObject({ server: "web", transport: "http", status: "failed" });
    expect(end.results[0]?.error).toMatch(/401/);
    expect(hub.tools()).toEqual([]);
  });

  it("applies an entry's permission override to every tool", async () => {
    const server = await started(startStreamableHttpServer());
    const hub = hubOf([
      { name: "ro", config: { transport: "http", url: server.url, permission: "r" } },
      { name: "rw", config: { transport: "http", url: server.url, permission: "rw" } },
    ]);
    expect((await connectAll(hub)).status).toBe("completed");
    const perms = Object.fromEntries(hub.tools().map((t) => [t.definition.name, t.permission]));
    expect(perms["mcp__ro__write-note"]).toBe("r");
    expect(perms["mcp__rw__add"]).toBe("rw");
  });

  it("connects servers in parallel (the first one only answers once the second was asked)", async () => {
    let secondAsked = (): void => undefined;
    const gate = new Promise<void>((resolve) => {
      secondAsked = resolve;
    });
    const first = await started(startStreamableHttpServer({ gate }));
    const second = await started(startStreamableHttpServer({ onFirstRequest: () => secondAsked() }));
    const hub = hubOf([
      { name: "first", config: { transport: "http", url: first.url, connectTimeoutMs: 3000 } },
      { name: "second", config: { transport: "http", url: second.url, connectTimeoutMs: 3000 } },
    ]);
    const end = await connectAll(hub);
    expect(end.results.map((r) => [r.server, r.status])).toEqual([
      ["first", "connected"],
      ["second", "connected"],
    ]);
  });

  it("speaks legacy SSE when asked for explicitly, headers included on the stream", async () => {
    const server = await started(startSseServer({ requireHeader: { name: "x-api-key", value: "k" } }));
    const hub = hubOf([{ name: "old", config: { transport: "sse", url: server.url, headers: { "X-Api-Key": "k" } } }]);
    const end = await connectAll(hub);
    expect(end.status).toBe("completed");
    expect(end.results[0]).toMatchObject({ server: "old", transport: "sse", status: "connected" });
    expect(server.requests[0]?.method).toBe("GET");
    expect(await hub.call("mcp__old__add", '{"a": 1, "b": 2}')).toEqual({ output: "3", isError: false });
  });

  it("does not fall back to SSE for an http server", async () => {
    const server = await started(startSseServer());
    const hub = hubOf([{ name: "old", config: { transport: "http", url: server.url, connectTimeoutMs: 2000 } }]);
    const end = await connectAll(hub);
    expect(end.results[0]?.status).toBe("failed");
    expect(server.requests.every((r) => r.method !== "GET")).toBe(true);
  });

  it("reports an unreachable server as failed", async () => {
    const server = await startStreamableHttpServer();
    const url = server.url;
    await server.close(); // nothing listens there any more
    const hub = hubOf([{ name: "gone", config: { transport: "http", url } }]);
    const end = await connectAll(hub);
    expect(end.results[0]).toMatchObject({ server: "gone", status: "failed" });
    expect(end.results[0]?.error).toBeTruthy();
  });
});
