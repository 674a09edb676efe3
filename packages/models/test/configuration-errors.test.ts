// Configuration errors versus transient ones, over real sockets: a base URL that does not parse
// or is not http(s), an unknown host (a reserved `.invalid` name, which DNS never resolves)
// and an endpoint answering 404 or 501 are permanent and flagged `configuration`, naming the
// base URL; a refused connection, 5xx and 429 stay retryable and also name the base URL in
// plain words. Nothing is sent for a base URL that cannot be a model endpoint.
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestkit, type Testkit } from "@penguin/testkit";
import { baseUrlProblem, CLIENT_TYPES } from "../src/index.js";
import { endpointFor, request, run } from "./helpers/replay.js";

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  await new Promise((r) => server.close(r));
  return port;
}

describe("configuration errors", () => {
  let kit: Testkit;
  beforeAll(async () => {
    kit = await startTestkit();
  });
  afterAll(async () => {
    await kit.close();
  });

  it("a base URL that does not parse, or is not http(s), fails before sending: permanent, configuration", async () => {
    for (const [baseUrl, words] of [
      ["not-a-url", '"not-a-url" is not a URL'],
      ["ftp://models.example/v1", '"ftp://models.example/v1" uses ftp:, but a model endpoint is http or https'],
    ] as const) {
      const before = kit.requests.length;
      const { items, outcome } = await run(request(endpointFor("openai-chat", baseUrl)));
      expect(items).toEqual([]);
      expect(outcome).toMatchObject({ status: "failed", permanent: true, configuration: true });
      expect(outcome.errorMessage).toBe(`test/test-model: invalid base URL: ${baseUrlProblem(baseUrl)}`);
      expect(outcome.errorMessage).toContain(words);
      expect(kit.requests.length).toBe(before);
    }
    expect(baseUrlProblem("https://api.openai.com/v1")).toBeUndefined();
    expect(baseUrlProblem("http://127.0.0.1:11434/v1")).toBeUndefined();
  });

  it("an unknown host (ENOTFOUND) is permanent and configuration, naming the base URL", async () => {
    const { outcome } = await run(request(endpointFor("openai-chat", "http://no-such-host.invalid/v1")));
    expect(outcome).toMatchObject({ status: "failed", permanent: true, configuration: true });
    expect(outcome.errorMessage).toBe("test/test-model: network error (ENOTFOUND): unknown host at http://no-such-host.invalid/v1");
  });

  it("a port fetch never connects to (9, the discard port) is permanent and configuration, naming the base URL", async () => {
    const { outcome } = await run(request(endpointFor("openai-chat", "http://127.0.0.1:9/v1")));
    expect(outcome).toMatchObject({ status: "failed", permanent: true, configuration: true });
    expect(outcome.errorMessage).toBe(
      "test/test-model: network error: blocked port at http://127.0.0.1:9/v1 (fetch never connects to reserved ports such as 9 or 6000: use another port)",
    );
  });

  for (const protocol of CLIENT_TYPES) {
    it(`${protocol}: HTTP 404 and 501 are permanent and configuration, naming the base URL`, async () => {
      const base = kit.baseUrl(protocol);
      for (const [status, words] of [
        [404, "no such endpoint"],
        [501, "not implemented there"],
      ] as const) {
        kit.enqueue({ fault: { kind: "http", status } });
        const { outcome } = await run(request(endpointFor(protocol, base)));
        expect(outcome, String(status)).toMatchObject({ status: "failed", permanent: true, configuration: true, httpStatus: status });
        expect(outcome.errorMessage).toMatch(new RegExp(`^test/test-model: HTTP ${status} at ${base.replace(/[.]/g, "\\.")} \\(${words}\\)`));
      }
    });
  }

  it("transient failures stay retryable and are not configuration: refused connection, 500, 503, 429", async () => {
    const port = await closedPort();
    const refused = await run(request(endpointFor("openai-chat", `http://127.0.0.1:${port}/v1`)));
    expect(refused.outcome).toMatchObject({ status: "failed" });
    expect(refused.outcome.permanent).toBeUndefined();
    expect(refused.outcome.configuration).toBeUndefined();
    expect(refused.outcome.errorMessage).toBe(`test/test-model: network error (ECONNREFUSED): connection refused at http://127.0.0.1:${port}/v1`);
    for (const status of [500, 503, 429]) {
      kit.enqueue({ fault: { kind: "http", status } });
      const { outcome } = await run(request(endpointFor("openai-chat", kit.baseUrl("openai-chat"))));
      expect(outcome.permanent, String(status)).toBeUndefined();
      expect(outcome.configuration, String(status)).toBeUndefined();
    }
  });
});
