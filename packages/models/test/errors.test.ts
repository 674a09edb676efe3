// Error classes over real HTTP: statuses, Retry-After, auth, permanent 400s (named, never
// leaking the key), a hung stream and a silent server (timeouts through injected timers, no
// real waiting), a reset connection, the caller's abort, and in-stream provider errors.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server, type Socket } from "node:net";
import { startTestkit, type Testkit } from "@penguin/testkit";
import { CLIENT_TYPES, parseRetryAfter, providerErrorOf, streamModel, type ModelRequest, type Timers } from "../src/index.js";
import { endpointFor, piecesFetch, request, run } from "./helpers/replay.js";
import { expectWellFormed } from "./helpers/invariants.js";

const KEY = "sk-test-secret-key-0001";

/** Timers that only fire when the test says so. The first one scheduled is the start timer. */
function manualTimers(): Timers & { armed(): number; scheduled(): number; fire(): void } {
  const pending = new Set<() => void>();
  let count = 0;
  return {
    schedule(callback) {
      const entry = (): void => callback();
      pending.add(entry);
      count++;
      return () => pending.delete(entry);
    },
    armed: () => pending.size,
    scheduled: () => count,
    fire() {
      const all = [...pending];
      pending.clear();
      for (const f of all) f();
    },
  };
}

const turn = () => ({ thinking: "let me see", text: "The answer is 42.", chunkSize: 4 });

describe("error classes", () => {
  let kit: Testkit;
  beforeAll(async () => {
    kit = await startTestkit();
  });
  afterAll(async () => {
    await kit.close();
  });

  const req = (protocol: (typeof CLIENT_TYPES)[number], extra: Partial<ModelRequest> = {}): ModelRequest =>
    request(endpointFor(protocol, kit.baseUrl(protocol), { provider: "acme", modelId: "m-1" }), extra);

  for (const protocol of CLIENT_TYPES) {
    describe(protocol, () => {
      it("500 → failed, retryable, names provider, model and status", async () => {
        kit.enqueue({ fault: { kind: "http", status: 500 } });
        const { items, outcome } = await run(req(protocol));
        expect(items).toEqual([]);
        expect(outcome).toMatchObject({ status: "failed", httpStatus: 500 });
        expect(outcome.permanent).toBeUndefined();
        expect(outcome.errorMessage).toMatch(/^acme\/m-1: HTTP 500/);
      });

      it("429 with Retry-After → failed with retryAfterMs", async () => {
        kit.enqueue({ fault: { kind: "http", status: 429, retryAfter: "7" } });
        const { outcome } = await run(req(protocol));
        expect(outcome).toMatchObject({ status: "failed", httpStatus: 429, retryAfterMs: 7000 });
        expect(outcome.permanent).toBeUndefined();
      });

      it("401 and 403 → auth", async () => {
        for (const status of [401, 403]) {
          kit.enqueue({ fault: { kind: "http", status } });
          const { outcome } = await run(req(protocol));
          expect(outcome).toMatchObject({ status: "auth", httpStatus: status });
        }
      });

      it("400 → failed and permanent; the message names provider/model/status and never the key", async () => {
        kit.enqueue({ fault: { kind: "http", status: 400, body: `Incorrect API key provided: ${KEY}. Bad field 'tools'.` } });
        const { outcome } = await run(req(protocol));
        expect(outcome).toMatchObject({ status: "failed", permanent: true, httpStatus: 400 });
        expect(outcome.errorMessage).toMatch(/^acme\/m-1: HTTP 400: .*Bad field 'tools'/);
        expect(outcome.errorMessage).not.toContain(KEY);
        expect(outcome.errorMessage).toContain("***");
      });

      it("a hung stream → timeout (the idle timer, fired by the test)", async () => {
        kit.enqueue({ ...turn(), fault: { kind: "hang", afterEvents: 3 } });
        const timers = manualTimers();
        const running = run(req(protocol, { timers }));
        let settled = false;
        void running.then(() => (settled = true));
        // Once a second timer was scheduled the response has started: every armed timer now is
        // the idle timer of a body read.
        while (!settled) {
          await new Promise((r) => setImmediate(r));
          if (timers.scheduled() >= 2 && timers.armed() > 0) timers.fire();
        }
        const { items, outcome } = await running;
        expect(outcome.status).toBe("timeout");
        expect(outcome.errorMessage).toBe("acme/m-1: stream silent for more than 120000 ms");
        expectWellFormed(items, outcome);
      });

      it("a reset connection mid-stream → failed (a transport failure, retryable)", async () => {
        kit.enqueue({ ...turn(), fault: { kind: "reset", afterEvents: 2 } });
        const { items, outcome } = await run(req(protocol));
        expect(outcome.status).toBe("failed");
        expect(outcome.permanent).toBeUndefined();
        expect(outcome.errorMessage).toMatch(/^acme\/m-1: connection lost mid-stream/);
        expectWellFormed(items, outcome);
      });

      it("a non-JSON data line → malformed; a clean end without the terminal event → malformed", async () => {
        for (const kind of ["malformed", "truncate"] as const) {
          kit.enqueue({ ...turn(), fault: { kind, afterEvents: 3 } });
          const { items, outcome } = await run(req(protocol));
          expect(outcome.status, kind).toBe("malformed");
          expectWellFormed(items, outcome);
        }
      });

      it("the caller's abort → aborted, mid-stream and before the call", async () => {
        kit.enqueue({ ...turn(), fault: { kind: "hang", afterEvents: 3 } });
        const controller = new AbortController();
        const timers = manualTimers();
        const running = run(req(protocol, { signal: controller.signal, timers }));
        while (timers.scheduled() < 2) await new Promise((r) => setImmediate(r));
        controller.abort();
        const { items, outcome } = await running;
        expect(outcome.status).toBe("aborted");
        expectWellFormed(items, outcome);

        const before = kit.requests.length;
        const { outcome: early } = await run(req(protocol, { signal: AbortSignal.abort() }));
        expect(early.status).toBe("aborted");
        expect(kit.requests.length).toBe(before);
      });
    });
  }

  it("a server that never answers → timeout at the start (the start timer, fired by the test)", async () => {
    const sockets: Socket[] = [];
    let accepted!: () => void;
    const connected = new Promise<void>((r) => (accepted = r));
    const server: Server = createServer((s) => {
      sockets.push(s);
      accepted();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const address = server.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    const timers = manualTimers();
    const running = run(request(endpointFor("openai-chat", `http://127.0.0.1:${port}/v1`), { timers, timeoutMs: 5000 }));
    await connected;
    expect(timers.armed()).toBe(1);
    timers.fire();
    const { outcome } = await running;
    expect(outcome).toMatchObject({ status: "timeout", errorMessage: "test/test-model: no response within 5000 ms" });
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });

  it("real timers: a hung stream times out after a short timeoutMs", async () => {
    kit.enqueue({ ...turn(), fault: { kind: "hang", afterEvents: 1 } });
    const { outcome } = await run(req("anthropic-messages", { timeoutMs: 40 }));
    expect(outcome.status).toBe("timeout");
  });

  it("a refused connection → failed (network)", async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const address = server.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    await new Promise((r) => server.close(r));
    const { outcome } = await run(request(endpointFor("gemini", `http://127.0.0.1:${port}/v1beta`)));
    expect(outcome.status).toBe("failed");
    expect(outcome.errorMessage).toMatch(/^test\/test-model: network error \(ECONNREFUSED\)/);
  });

  it("Gemini's 400 API_KEY_INVALID is auth (read from the structured reason)", async () => {
    const body = JSON.stringify({
      error: {
        code: 400,
        message: "API key not valid. Please pass a valid API key.",
        status: "INVALID_ARGUMENT",
        details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID" }],
      },
    });
    kit.enqueue({ fault: { kind: "http", status: 400, body } });
    const { outcome } = await run(req("gemini"));
    expect(outcome).toMatchObject({ status: "auth", httpStatus: 400 });
  });

  it("OpenAI's 429 insufficient_quota is permanent", async () => {
    const body = JSON.stringify({ error: { message: "You exceeded your current quota", type: "insufficient_quota", code: "insufficient_quota" } });
    kit.enqueue({ fault: { kind: "http", status: 429, body } });
    const { outcome } = await run(req("openai-chat"));
    expect(outcome).toMatchObject({ status: "failed", permanent: true });
  });

  it("fast mode on a client without it is rejected before sending, permanently", async () => {
    const before = kit.requests.length;
    const { outcome } = await run(request(endpointFor("gemini", kit.baseUrl("gemini"), { fastMode: true })));
    expect(outcome).toMatchObject({ status: "failed", permanent: true });
    expect(kit.requests.length).toBe(before);
  });

  it("in-stream provider errors are classified by their type", async () => {
    const cases: [string, string, string, boolean][] = [
      ["anthropic-messages", `event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n`, "failed", false],
      ["anthropic-messages", `event: error\ndata: {"type":"error","error":{"type":"invalid_request_error","message":"bad"}}\n\n`, "failed", true],
      ["gemini", `data: {"error":{"code":401,"message":"no","status":"UNAUTHENTICATED"}}\n\n`, "auth", true],
      ["openai-chat", `data: {"error":{"message":"slow down","code":429}}\n\n`, "failed", false],
    ];
    for (const [protocol, sse, status, permanent] of cases) {
      const clientType = CLIENT_TYPES.find((c) => c === protocol) ?? "openai-chat";
      const { outcome } = await run(request(endpointFor(clientType, "http://127.0.0.1:9"), { fetch: piecesFetch(new TextEncoder().encode(sse), []) }));
      expect(outcome.status, sse).toBe(status);
      expect(outcome.permanent === true, sse).toBe(permanent);
    }
  });
});

describe("requests that are not requests", () => {
  it("a malformed request from JavaScript still ends in an outcome instead of throwing", async () => {
    const bad: ModelRequest = JSON.parse('{"endpoint":{"clientType":"nope","provider":"p","modelId":"m","baseUrl":"x"},"tools":[]}');
    const { items, outcome } = await run(bad);
    expect(items).toEqual([]);
    expect(outcome).toMatchObject({ status: "failed", permanent: true });
    const { outcome: empty } = await run(JSON.parse("{}"));
    expect(empty).toMatchObject({ status: "failed", permanent: true });
  });
});

describe("Retry-After and error bodies", () => {
  const headers = (h: Record<string, string>) => new Headers(h);
  it("reads seconds, decimals, HTTP dates (with the injected clock) and retry-after-ms", () => {
    const now = () => Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter(headers({ "retry-after": "7" }), now)).toBe(7000);
    expect(parseRetryAfter(headers({ "retry-after": "1.5" }), now)).toBe(1500);
    expect(parseRetryAfter(headers({ "retry-after": "Thu, 01 Jan 2026 00:00:30 GMT" }), now)).toBe(30000);
    expect(parseRetryAfter(headers({ "retry-after": "Wed, 31 Dec 2025 23:00:00 GMT" }), now)).toBe(0);
    expect(parseRetryAfter(headers({ "retry-after-ms": "250", "retry-after": "9" }), now)).toBe(250);
    expect(parseRetryAfter(headers({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(parseRetryAfter(headers({}), now)).toBeUndefined();
  });

  it("reads the error shape of each protocol", () => {
    expect(providerErrorOf('{"error":{"message":"m","type":"invalid_request_error","code":null}}')).toEqual({ code: "invalid_request_error", message: "m" });
    expect(providerErrorOf('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')).toEqual({ code: "overloaded_error", message: "Overloaded" });
    expect(providerErrorOf('[{"error":{"code":400,"message":"x","status":"INVALID_ARGUMENT","details":[{"reason":"API_KEY_INVALID"}]}}]')).toEqual({
      code: "INVALID_ARGUMENT",
      message: "x",
      reason: "API_KEY_INVALID",
    });
    expect(providerErrorOf("<html>bad gateway</html>")).toEqual({});
    expect(providerErrorOf("upstream connect error")).toEqual({ message: "upstream connect error" });
  });
});
