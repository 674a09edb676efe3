// The ExtraToolProvider hook (how MCP tools join): a small provider written here drives
// connect, listing, permissions, calls through the shared close-out, and close on dispose.
import { afterEach, describe, expect, it } from "vitest";
import { mcpConnectBegin, mcpConnectEnd, type OmniMessage } from "@penguin/omnimessage";
import type { ExtraToolCallResult, ExtraToolProvider } from "../../src/environment/index.js";
import { call, manualTimeouts, sandbox, type Sandbox } from "./helpers.js";

interface Recorded {
  calls: { name: string; args: string }[];
  closed: number;
  connectSignal?: AbortSignal;
}

/** A provider with two tools; `answer` decides each call's result. */
function provider(answer: (name: string, args: string, signal: AbortSignal) => Promise<ExtraToolCallResult>, failConnect = false): {
  hook: ExtraToolProvider;
  recorded: Recorded;
} {
  const recorded: Recorded = { calls: [], closed: 0 };
  const hook: ExtraToolProvider = {
    async *connect(signal) {
      recorded.connectSignal = signal;
      yield mcpConnectBegin(["files"]);
      if (failConnect) throw new Error("server crashed");
      yield mcpConnectEnd("completed", [{ server: "files", transport: "stdio", status: "connected", duration_ms: 3, tools: ["stat", "touch"] }]);
    },
    tools() {
      return [
        { definition: { name: "mcp__files__stat", description: "Stat a file.", parameters: { type: "object", properties: { path: { type: "string" } } } }, permission: "r" },
        { definition: { name: "mcp__files__touch", description: "Touch a file." }, permission: "rw" },
      ];
    },
    async call(name, args, signal) {
      recorded.calls.push({ name, args });
      return answer(name, args, signal);
    },
    close() {
      recorded.closed += 1;
    },
  };
  return { hook, recorded };
}

let box: Sandbox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

async function drain(gen: AsyncGenerator<OmniMessage, void>): Promise<OmniMessage[]> {
  const out: OmniMessage[] = [];
  for await (const m of gen) out.push(m);
  return out;
}

describe("extra tools (the MCP hook)", () => {
  it("connects through the provider and lists its tools after the builtins", async () => {
    const { hook, recorded } = provider(async () => ({ output: "", isError: false }));
    box = sandbox({ extraTools: hook });
    const ctrl = new AbortController();
    const events = await drain(box.env.connect(ctrl.signal));
    expect(events.map((m) => (m.type === "event_msg" ? m.payload.type : m.type))).toEqual(["mcp_connect_begin", "mcp_connect_end"]);
    expect(recorded.connectSignal).toBe(ctrl.signal);
    const names = box.env.listTools().map((t) => t.name);
    expect(names.slice(-2)).toEqual(["mcp__files__stat", "mcp__files__touch"]);
    expect(names.indexOf("read_file")).toBe(0);
    expect(box.env.toolPermission("mcp__files__stat")).toBe("r");
    expect(box.env.toolPermission("mcp__files__touch")).toBe("rw");
  });

  it("closes an open connect with a failed end when the provider throws", async () => {
    const { hook } = provider(async () => ({ output: "", isError: false }), true);
    box = sandbox({ extraTools: hook });
    const events = await drain(box.env.connect());
    expect(events.map((m) => m.payload)).toMatchObject([{ type: "mcp_connect_begin" }, { type: "mcp_connect_end", status: "failed", results: [] }]);
  });

  it("calls the provider with the raw arguments, keeping its images", async () => {
    const { hook, recorded } = provider(async () => ({ output: "size: 12", images: ["data:image/png;base64,AAAA"], isError: false }));
    box = sandbox({ extraTools: hook });
    const r = await call(box.env, "mcp__files__stat", undefined, { raw: '{"path":"a.txt"}' });
    expect(r.stopReason).toBe("completed");
    expect(r.output).toBe("size: 12");
    expect(r.final.images).toEqual(["data:image/png;base64,AAAA"]);
    expect(recorded.calls).toEqual([{ name: "mcp__files__stat", args: '{"path":"a.txt"}' }]);
  });

  it("maps isError and rejections to failed, bad JSON to failed without a call, empty to [no output]", async () => {
    let mode: "error" | "reject" | "empty" = "error";
    const { hook, recorded } = provider(async () => {
      if (mode === "reject") throw new Error("transport closed");
      return mode === "error" ? { output: "no such file", isError: true } : { output: "", isError: false };
    });
    box = sandbox({ extraTools: hook });
    const isError = await call(box.env, "mcp__files__stat", { path: "x" });
    expect([isError.stopReason, isError.output]).toEqual(["failed", "no such file"]);
    mode = "reject";
    const rejected = await call(box.env, "mcp__files__stat", { path: "x" });
    expect([rejected.stopReason, rejected.output]).toEqual(["failed", "[error: transport closed]"]);
    mode = "empty";
    const empty = await call(box.env, "mcp__files__touch", {});
    expect([empty.stopReason, empty.output]).toEqual(["completed", "[no output]"]);
    const badJson = await call(box.env, "mcp__files__stat", undefined, { raw: "{oops" });
    expect(badJson.stopReason).toBe("failed");
    expect(badJson.output).toContain("Invalid arguments for mcp__files__stat: not valid JSON");
    expect(recorded.calls).toHaveLength(3);
  });

  it("applies truncation, timeouts and interrupts to provider calls too", async () => {
    const timeouts = manualTimeouts();
    let entered: () => void = () => undefined;
    const { hook } = provider((name, _args, signal) => {
      if (name === "mcp__files__stat") return Promise.resolve({ output: "z".repeat(300), isError: false });
      return new Promise((_resolve, reject) => {
        entered();
        signal.addEventListener("abort", () => reject(new Error("cancelled")), { once: true });
      });
    });
    box = sandbox({ extraTools: hook, limits: { outputChars: 100 }, scheduleTimeout: timeouts.scheduleTimeout, timeouts: { mcp__files__touch: 4321 } });
    const long = await call(box.env, "mcp__files__stat", {}, { id: "mcp-long" });
    expect(long.output).toContain("showing the first 100 of 300 characters");
    expect(long.output).toContain("mcp-long.txt]");

    let started = new Promise<void>((resolve) => (entered = resolve));
    const slow = call(box.env, "mcp__files__touch", {});
    await started;
    timeouts.fire();
    expect((await slow).output).toBe("[timed out after 4321 ms]");

    started = new Promise<void>((resolve) => (entered = resolve));
    const ctrl = new AbortController();
    const interrupted = call(box.env, "mcp__files__touch", {}, { signal: ctrl.signal });
    await started;
    ctrl.abort();
    expect((await interrupted).stopReason).toBe("aborted");
  });

  it("closes the provider once on dispose", async () => {
    const { hook, recorded } = provider(async () => ({ output: "", isError: false }));
    box = sandbox({ extraTools: hook });
    await Promise.all([box.env.dispose(), box.env.dispose()]);
    await box.env.dispose();
    expect(recorded.closed).toBe(1);
  });
});
