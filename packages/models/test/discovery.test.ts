// Protocol detection and model listing against real servers: the testkit (which speaks all
// protocols) and one-protocol servers that answer the other probes with 404, 405 or HTML.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAKE_MODEL_IDS, startTestkit, type Testkit } from "@penguin/testkit";
import { detectProtocol, listModels } from "../src/index.js";
import { html, json, startServer, type LocalServer } from "./helpers/servers.js";

describe("detectProtocol", () => {
  let kit: Testkit;
  const servers: LocalServer[] = [];
  beforeAll(async () => {
    kit = await startTestkit();
  });
  afterAll(async () => {
    await kit.close();
    for (const s of servers) await s.close();
  });

  it("takes the first protocol-shaped reply: /responses on a server that speaks everything", async () => {
    const found = await detectProtocol(kit.baseUrl("openai-chat"), { apiKey: "k" });
    expect(found).toEqual({ clientType: "openai-responses", baseUrl: kit.baseUrl("openai-chat"), status: 400 });
    expect(kit.requests[0]).toMatchObject({ method: "POST", rawBody: "{}" });
    expect(kit.requests[0]?.path).toBe("/v1/responses");
    expect(kit.violations).toEqual([]);
  });

  it("finds Anthropic Messages behind a base URL typed with /v1 (404 elsewhere)", async () => {
    const s = await startServer((req, res) => {
      if (req.url === "/v1/messages") json(res, 400, { type: "error", error: { type: "invalid_request_error", message: "model: Field required" } });
      else json(res, 404, { error: { message: "not found" } });
    });
    servers.push(s);
    const found = await detectProtocol(`${s.url}/v1`, { apiKey: "ant-key" });
    expect(found).toEqual({ clientType: "anthropic-messages", baseUrl: s.url, status: 400 });
    expect(s.seen.map((r) => r.url)).toEqual(["/v1/responses", "/v1/v1/messages", "/v1/messages"]);
    expect(s.seen[2]?.headers["x-api-key"]).toBe("ant-key");
    expect(s.seen[2]?.headers["anthropic-version"]).toBe("2023-06-01");
  });

  it("finds chat completions when the others give HTML and 405; a 401 JSON error counts", async () => {
    const s = await startServer((req, res) => {
      if (req.url === "/api/responses") html(res, 200);
      else if (req.url === "/api/v1/messages") html(res, 405);
      else if (req.url === "/api/chat/completions") json(res, 401, { error: { message: "Invalid token", type: "auth" } });
      else html(res, 404);
    });
    servers.push(s);
    const found = await detectProtocol(`${s.url}/api`);
    expect(found).toEqual({ clientType: "openai-chat", baseUrl: `${s.url}/api`, status: 401 });
  });

  it("answers undefined when nothing speaks a known protocol", async () => {
    const s = await startServer((_req, res) => html(res, 404));
    servers.push(s);
    expect(await detectProtocol(s.url)).toBeUndefined();
    expect(s.seen).toHaveLength(3);
  });
});

describe("listModels", () => {
  let kit: Testkit;
  const servers: LocalServer[] = [];
  beforeAll(async () => {
    kit = await startTestkit();
  });
  afterAll(async () => {
    await kit.close();
    for (const s of servers) await s.close();
  });

  it("reads the OpenAI, Anthropic and Gemini list shapes", async () => {
    for (const clientType of ["openai-chat", "openai-responses", "anthropic-messages", "gemini"] as const) {
      const result = await listModels({ provider: "p", modelId: "m", clientType, baseUrl: kit.baseUrl(clientType), apiKey: "k" });
      expect(result.ok, clientType).toBe(true);
      if (!result.ok) continue;
      expect(result.models.map((m) => m.id)).toEqual(FAKE_MODEL_IDS);
      if (clientType === "gemini") expect(result.models[0]).toMatchObject({ contextWindow: 1_000_000, maxTokens: 65_536 });
      if (clientType === "anthropic-messages") expect(result.models[0]?.displayName).toBe(FAKE_MODEL_IDS[0]);
    }
  });

  it("follows Anthropic paging and sends its headers", async () => {
    const s = await startServer((req, res) => {
      if (req.url === "/v1/models?limit=1000") json(res, 200, { data: [{ id: "a" }], has_more: true, last_id: "a" });
      else if (req.url === "/v1/models?limit=1000&after_id=a") json(res, 200, { data: [{ id: "b" }], has_more: false, last_id: "b" });
      else json(res, 404, {});
    });
    servers.push(s);
    const result = await listModels({ provider: "anthropic", modelId: "x", clientType: "anthropic-messages", baseUrl: s.url, apiKey: "ak" });
    expect(result).toEqual({ ok: true, models: [{ id: "a" }, { id: "b" }] });
    expect(s.seen.every((r) => r.headers["x-api-key"] === "ak" && r.headers["anthropic-version"] === "2023-06-01")).toBe(true);
  });

  it("returns a classified failure that never contains the key", async () => {
    const s = await startServer((_req, res) => json(res, 401, { error: { message: "Incorrect API key provided: sk-live-abcdef123" } }));
    servers.push(s);
    const result = await listModels({ provider: "openai", modelId: "x", clientType: "openai-chat", baseUrl: s.url, apiKey: "sk-live-abcdef123" });
    expect(result).toMatchObject({ ok: false, status: "auth", httpStatus: 401 });
    if (!result.ok) expect(result.error).not.toContain("sk-live-abcdef123");
    expect(s.seen[0]?.headers.authorization).toBe("Bearer sk-live-abcdef123");
  });
});
