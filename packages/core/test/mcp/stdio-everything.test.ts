// The reference test server, @modelcontextprotocol/server-everything, over stdio as a real
// child process: connect, discover its real tools, call them, get images, resources and
// structured content, abort a long call, and see the minimal environment it runs in.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isEvent, type OmniMessage } from "@penguin/omnimessage";
import { McpHub } from "../../src/environment/mcp/index.js";
import { EVERYTHING_SERVER, newMarker, processesWith } from "./fixtures/processes.js";

async function collect(stream: AsyncGenerator<OmniMessage, void>): Promise<OmniMessage[]> {
  const out: OmniMessage[] = [];
  for await (const m of stream) out.push(m);
  return out;
}

describe("server-everything over stdio", () => {
  const marker = newMarker();
  const hub = new McpHub(
    [
      {
        name: "everything",
        config: {
          command: process.execPath,
          args: [EVERYTHING_SERVER, "stdio", marker],
          env: { PENGUIN_MCP_TEST_VAR: "from-config" },
        },
      },
    ],
    { closeGraceMs: 200 },
  );
  let events: OmniMessage[] = [];

  beforeAll(async () => {
    events = await collect(hub.connect());
  });
  afterAll(async () => {
    await hub.close();
  });

  it("yields mcp_connect_begin then a completed mcp_connect_end", () => {
    const [begin, end] = events;
    expect(events).toHaveLength(2);
    expect(begin && isEvent(begin, "mcp_connect_begin") && begin.payload.servers).toEqual(["everything"]);
    if (!end || !isEvent(end, "mcp_connect_end")) throw new Error("second event is not mcp_connect_end");
    expect(end.payload.status).toBe("completed");
    const [result] = end.payload.results;
    expect(result).toMatchObject({ server: "everything", transport: "stdio", status: "connected" });
    expect(result?.error).toBeUndefined();
    expect(result?.tools).toEqual(expect.arrayContaining(["mcp__everything__echo", "mcp__everything__get-sum"]));
    expect(result?.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it("runs the server as a child process while connected", () => {
    expect(processesWith(marker)).toHaveLength(1);
  });

  it("lists the server's real tools with schemas and permissions", () => {
    const byName = new Map(hub.tools().map((t) => [t.definition.name, t]));
    const echo = byName.get("mcp__everything__echo");
    expect(echo?.definition.description).toBe("Echoes back the input string");
    expect(echo?.definition.parameters).toMatchObject({ type: "object", properties: { message: { type: "string" } } });
    expect(echo?.permission).toBe("r"); // readOnlyHint: true
    expect(byName.get("mcp__everything__get-sum")?.permission).toBe("r");
    expect(byName.get("mcp__everything__get-tiny-image")).toBeDefined();
    expect(byName.get("mcp__everything__toggle-simulated-logging")?.permission).toBe("rw"); // no readOnlyHint
  });

  it("calls tools and returns their real results", async () => {
    expect(await hub.call("mcp__everything__echo", JSON.stringify({ message: "hello penguin" }))).toEqual({
      output: "Echo: hello penguin",
      isError: false,
    });
    expect(await hub.call("mcp__everything__get-sum", '{"a": 2, "b": 40}')).toEqual({
      output: "The sum of 2 and 40 is 42.",
      isError: false,
    });
  });

  it("returns image contents as data URLs next to the text", async () => {
    const result = await hub.call("mcp__everything__get-tiny-image", "{}");
    expect(result.isError).toBe(false);
    expect(result.output).toBe("Here's the image you requested:\nThe image above is the MCP logo.");
    expect(result.images).toHaveLength(1);
    expect(result.images?.[0]).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
  });

  it("returns an embedded text resource's text", async () => {
    const result = await hub.call("mcp__everything__get-resource-reference", JSON.stringify({ resourceType: "Text", resourceId: 3 }));
    expect(result.isError).toBe(false);
    expect(result.output).toContain("Resource 3: This is a plaintext resource");
    expect(result.output).toContain("demo://resource/dynamic/text/3");
  });

  it("describes an embedded binary resource instead of dumping it", async () => {
    const result = await hub.call("mcp__everything__get-resource-reference", JSON.stringify({ resourceType: "Blob", resourceId: 2 }));
    expect(result.isError).toBe(false);
    expect(result.output).toMatch(/\[resource demo:\/\/resource\/dynamic\/blob\/2, [^\]]*bytes, not shown\]/);
  });

  it("reports a server-side validation failure as isError", async () => {
    const result = await hub.call("mcp__everything__get-sum", '{"a": "two"}');
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/expected number/);
  });

  it("starts the server with a minimal environment plus the entry's env (no vault, none of ours)", async () => {
    expect(process.env["VITEST"]).toBeDefined(); // set in our process, so it must not leak
    const result = await hub.call("mcp__everything__get-env", "{}");
    const env: unknown = JSON.parse(result.output);
    expect(env).toMatchObject({ PENGUIN_MCP_TEST_VAR: "from-config", PATH: process.env["PATH"] });
    expect(env).not.toHaveProperty("VITEST");
  });

  it("honours the abort signal during a long call", async () => {
    const controller = new AbortController();
    const pending = hub.call(
      "mcp__everything__trigger-long-running-operation",
      JSON.stringify({ duration: 60, steps: 2 }),
      controller.signal,
    );
    controller.abort();
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/aborted/);
    // The connection is still usable afterwards.
    expect((await hub.call("mcp__everything__echo", '{"message":"still here"}')).output).toBe("Echo: still here");
  });

  it("refuses a call whose arguments are not a JSON object, without calling", async () => {
    const result = await hub.call("mcp__everything__echo", "[1]");
    expect(result).toEqual({ output: expect.stringMatching(/must be a JSON object/), isError: true });
  });

  it("answers an unknown tool name with isError", async () => {
    const result = await hub.call("mcp__everything__no-such-tool", "{}");
    expect(result).toEqual({ output: 'Unknown MCP tool "mcp__everything__no-such-tool".', isError: true });
  });
});
