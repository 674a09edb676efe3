// McpHub's life: connect runs once (and not at all without servers), an abort cancels the
// attempt so the next connect tries again, close() works mid-connect and leaves no child
// process behind (checked with ps, including a server that ignores SIGTERM), and the
// library never writes to our stdout or stderr.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { isEvent, type OmniMessage } from "@penguin/omnimessage";
import { McpHub, type McpServerEntry } from "../../src/environment/mcp/index.js";
import { EVERYTHING_SERVER, HANG_SERVER, STUBBORN_SERVER, newMarker, processesWith } from "./fixtures/processes.js";

const hubs: McpHub[] = [];
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((hub) => hub.close()));
});

function hubOf(entries: McpServerEntry[], options?: ConstructorParameters<typeof McpHub>[1]): McpHub {
  const hub = new McpHub(entries, { closeGraceMs: 200, ...options });
  hubs.push(hub);
  return hub;
}

function stdio(name: string, script: string, marker: string, extra: string[] = []): McpServerEntry {
  return { name, config: { command: process.execPath, args: [script, ...extra, marker] } };
}

async function collect(stream: AsyncGenerator<OmniMessage, void>): Promise<OmniMessage[]> {
  const out: OmniMessage[] = [];
  for await (const m of stream) out.push(m);
  return out;
}

/** The event tags in order (anything that is not an event shows as its envelope type). */
function tags(events: OmniMessage[]): string[] {
  return events.map((m) => (isEvent(m) ? m.payload.type : m.type));
}

function endOf(events: OmniMessage[]): { status: string; results: unknown[] } {
  const end = events.at(-1);
  if (end === undefined || !isEvent(end, "mcp_connect_end")) throw new Error("no mcp_connect_end");
  return end.payload;
}

describe("connect", () => {
  it("runs once: a second call yields nothing and keeps the same tools", async () => {
    const hub = hubOf([stdio("everything", EVERYTHING_SERVER, newMarker(), ["stdio"])]);
    const first = await collect(hub.connect());
    expect(tags(first)).toEqual(["mcp_connect_begin", "mcp_connect_end"]);
    const tools = hub.tools().map((t) => t.definition.name);
    expect(await collect(hub.connect())).toEqual([]);
    expect(hub.tools().map((t) => t.definition.name)).toEqual(tools);
  });

  it("yields nothing when no server is configured", async () => {
    const hub = hubOf([]);
    expect(await collect(hub.connect())).toEqual([]);
    expect(hub.tools()).toEqual([]);
  });

  it("an abort cancels the attempt, kills what started, and the next connect tries again", async () => {
    const marker = newMarker();
    const stuck: McpServerEntry = { name: "stuck", config: { command: process.execPath, args: [HANG_SERVER, marker], connectTimeoutMs: 300 } };
    const hub = hubOf([stuck, stdio("everything", EVERYTHING_SERVER, newMarker(), ["stdio"])]);
    const controller = new AbortController();
    const events: OmniMessage[] = [];
    for await (const m of hub.connect(controller.signal)) {
      events.push(m);
      if (isEvent(m, "mcp_connect_begin")) setImmediate(() => controller.abort());
    }
    expect(endOf(events)).toMatchObject({ status: "aborted", results: [] });
    expect(hub.tools()).toEqual([]);
    expect(processesWith(marker)).toEqual([]);

    // The hub is idle again: the next connect runs in full.
    const again = await collect(hub.connect());
    expect(tags(again)).toEqual(["mcp_connect_begin", "mcp_connect_end"]);
    expect(endOf(again)).toMatchObject({
      status: "failed",
      results: [
        { server: "stuck", status: "failed" },
        { server: "everything", status: "connected" },
      ],
    });
    expect(processesWith(marker)).toEqual([]);
  });

  it("an already aborted signal starts nothing", async () => {
    const hub = hubOf([stdio("everything", EVERYTHING_SERVER, newMarker(), ["stdio"])]);
    expect(await collect(hub.connect(AbortSignal.abort()))).toEqual([]);
    expect(await collect(hub.connect())).toHaveLength(2);
  });
});

describe("close", () => {
  it("leaves no child process, even one that ignores the end of stdin and SIGTERM", async () => {
    const markers = [newMarker(), newMarker()];
    const hub = hubOf([
      stdio("everything", EVERYTHING_SERVER, markers[0] ?? "", ["stdio"]),
      stdio("stubborn", STUBBORN_SERVER, markers[1] ?? ""),
    ], { closeGraceMs: 100 });
    expect(endOf(await collect(hub.connect())).status).toBe("completed");
    expect(await hub.call("mcp__stubborn__ping", "{}")).toEqual({ output: "pong", isError: false });
    for (const marker of markers) expect(processesWith(marker)).toHaveLength(1);

    await hub.close();
    for (const marker of markers) expect(processesWith(marker)).toEqual([]);
    await hub.close(); // twice is fine
  });

  it("while the consumer still holds mcp_connect_begin: nothing is started, the attempt ends as aborted", async () => {
    const marker = newMarker();
    const hub = hubOf([stdio("everything", EVERYTHING_SERVER, marker, ["stdio"])]);
    const stream = hub.connect();
    const begin = await stream.next();
    expect(begin.value && tags([begin.value])).toEqual(["mcp_connect_begin"]);
    await hub.close();
    const end = await stream.next();
    expect(end.value?.payload).toMatchObject({ type: "mcp_connect_end", status: "aborted", results: [] });
    expect((await stream.next()).done).toBe(true);
    expect(processesWith(marker)).toEqual([]);
  });

  it("mid-connect: the attempt ends as aborted and nothing is left running", async () => {
    const markers = [newMarker(), newMarker()];
    const hub = hubOf(
      [stdio("stuck", HANG_SERVER, markers[0] ?? ""), stdio("everything", EVERYTHING_SERVER, markers[1] ?? "", ["stdio"])],
      { connectTimeoutMs: 30_000 },
    );
    const events: OmniMessage[] = [];
    let closing: Promise<void> | undefined;
    for await (const m of hub.connect()) {
      events.push(m);
      if (isEvent(m, "mcp_connect_begin")) {
        setTimeout(() => {
          closing = hub.close();
        }, 50);
      }
    }
    await closing;
    expect(endOf(events)).toMatchObject({ status: "aborted", results: [] });
    for (const marker of markers) expect(processesWith(marker)).toEqual([]);
    expect(await collect(hub.connect())).toEqual([]); // closed for good
  });
});

describe("output discipline", () => {
  const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));
  const script = fileURLToPath(new URL("./fixtures/quiet-run.mts", import.meta.url));

  for (const mode of ["pipe", "ignore"] as const) {
    it(`writes nothing to stdout or stderr (stderr: ${mode})`, async () => {
      const { stdout, stderr } = await promisify(execFile)(
        process.execPath,
        ["--conditions=development", "--import", "tsx", script, EVERYTHING_SERVER, mode],
        { cwd: repoRoot, env: { PATH: process.env["PATH"] ?? "" } },
      );
      expect(stdout).toBe("");
      expect(stderr).toBe("");
    }, 30_000);
  }
});
