// Servers that fail: a command that does not exist, a server that dies at start-up with a
// message on stderr, one that never answers the handshake, one that dies after connecting.
// Each is reported in mcp_connect_end and skipped; the healthy server keeps working.
import { afterEach, describe, expect, it } from "vitest";
import { isEvent, type McpServerResult, type OmniMessage } from "@penguin/omnimessage";
import { McpHub, type McpServerEntry } from "../../src/environment/mcp/index.js";
import { EVERYTHING_SERVER, HANG_SERVER, newMarker, processesWith } from "./fixtures/processes.js";

const hubs: McpHub[] = [];
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((hub) => hub.close()));
});

function hubOf(entries: McpServerEntry[], options?: ConstructorParameters<typeof McpHub>[1]): McpHub {
  const hub = new McpHub(entries, { closeGraceMs: 200, ...options });
  hubs.push(hub);
  return hub;
}

function everything(marker = newMarker()): McpServerEntry {
  return { name: "everything", config: { command: process.execPath, args: [EVERYTHING_SERVER, "stdio", marker] } };
}

async function run(hub: McpHub, signal?: AbortSignal): Promise<{ events: OmniMessage[]; status: string; results: McpServerResult[] }> {
  const events: OmniMessage[] = [];
  for await (const m of hub.connect(signal)) events.push(m);
  const end = events.at(-1);
  if (end === undefined || !isEvent(end, "mcp_connect_end")) throw new Error("connect did not end with mcp_connect_end");
  return { events, status: end.payload.status, results: end.payload.results };
}

describe("failing servers are reported and skipped", () => {
  it("a command that does not exist", async () => {
    const hub = hubOf([{ name: "ghost", config: { command: "penguin-no-such-mcp-server-binary" } }, everything()]);
    const { status, results } = await run(hub);
    expect(status).toBe("failed");
    expect(results[0]).toMatchObject({ server: "ghost", transport: "stdio", status: "failed" });
    expect(results[0]?.error).toMatch(/penguin-no-such-mcp-server-binary.*not found/);
    expect(results[0]?.tools).toBeUndefined();
    expect(results[1]).toMatchObject({ server: "everything", status: "connected" });

    expect(hub.tools().every((t) => t.definition.name.startsWith("mcp__everything__"))).toBe(true);
    expect((await hub.call("mcp__everything__echo", '{"message":"ok"}')).output).toBe("Echo: ok");
    const ghost = await hub.call("mcp__ghost__anything", "{}");
    expect(ghost.isError).toBe(true);
    expect(ghost.output).toMatch(/server "ghost" failed to connect/);
  });

  it("a server that exits at start-up: its stderr explains why", async () => {
    const crash = "process.stderr.write('FATAL: PENGUIN_TEST_TOKEN is not set\\n'); process.exit(3)";
    const hub = hubOf([{ name: "crashy", config: { command: process.execPath, args: ["-e", crash] } }]);
    const { status, results } = await run(hub);
    expect(status).toBe("failed");
    expect(results[0]?.error).toContain("FATAL: PENGUIN_TEST_TOKEN is not set");
  });

  it("keeps the stderr out of the error when told to ignore it", async () => {
    const crash = "process.stderr.write('SECRET-ISH STDERR\\n'); process.exit(3)";
    const hub = hubOf([{ name: "crashy", config: { command: process.execPath, args: ["-e", crash] } }], { stderr: "ignore" });
    const { results } = await run(hub);
    expect(results[0]?.status).toBe("failed");
    expect(results[0]?.error).not.toContain("SECRET-ISH");
  });

  it("a server that never answers the handshake is cut off by its connectTimeoutMs and killed", async () => {
    const marker = newMarker();
    const hub = hubOf(
      [{ name: "stuck", config: { command: process.execPath, args: [HANG_SERVER, marker], connectTimeoutMs: 150 } }, everything()],
      { connectTimeoutMs: 20_000 }, // the entry's own budget wins over the hub default
    );
    const { status, results } = await run(hub);
    expect(status).toBe("failed");
    expect(results[0]).toMatchObject({ server: "stuck", status: "failed", error: "no answer within 150 ms (connectTimeoutMs)" });
    expect(results[0]?.duration_ms).toBeGreaterThanOrEqual(140);
    expect(results[1]).toMatchObject({ server: "everything", status: "connected" });
    expect(processesWith(marker)).toEqual([]);
    expect((await hub.call("mcp__everything__get-sum", '{"a":1,"b":1}')).output).toBe("The sum of 1 and 1 is 2.");
  });

  it("the hub-wide connectTimeoutMs applies to entries without their own", async () => {
    const hub = hubOf([{ name: "stuck", config: { command: process.execPath, args: [HANG_SERVER] } }], { connectTimeoutMs: 120 });
    const { results } = await run(hub);
    expect(results[0]?.error).toBe("no answer within 120 ms (connectTimeoutMs)");
  });

  it("a server that dies after connecting turns its calls into errors", async () => {
    const marker = newMarker();
    const hub = hubOf([everything(marker)]);
    expect((await run(hub)).status).toBe("completed");
    const [child] = processesWith(marker);
    if (child === undefined) throw new Error("server-everything is not running");
    process.kill(child.pid, "SIGKILL");
    // Wait for our side to notice: the call below must not hang or throw either way.
    let result = await hub.call("mcp__everything__echo", '{"message":"x"}');
    for (let i = 0; i < 100 && !/exited/.test(result.output); i++) {
      await new Promise((resolve) => setImmediate(resolve));
      result = await hub.call("mcp__everything__echo", '{"message":"x"}');
    }
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/server "everything" is gone \(the server process exited/);
  });
});

describe("calls outside a connected hub", () => {
  it("before connect, and after close, answer isError instead of throwing", async () => {
    const hub = hubOf([everything()]);
    expect(await hub.call("mcp__everything__echo", "{}")).toMatchObject({ isError: true, output: expect.stringMatching(/not connected yet/) });
    await run(hub);
    await hub.close();
    expect(await hub.call("mcp__everything__echo", "{}")).toMatchObject({ isError: true, output: expect.stringMatching(/closed/) });
    expect(hub.tools()).toEqual([]);
  });
});
