// The models resource edits `.project_config.toml` through core and never returns a key:
// masked on read, kept when the mask comes back, dropped when the entry moves to another
// URL, and every change reloads the project's sessions with `credentials_updated`. The
// probes (test, detect, list) run against the testkit.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { projectPaths, readProjectConfig } from "@penguin/core";
import { startHarness, type Harness } from "./helpers/harness.js";
import { newSession, openStream, text, untilRunsEnded, untilServerEvent } from "./helpers/session.js";
import { dataOf } from "./helpers/sse.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const KEY = "sk-test-0123456789abcdef";

describe("the model table", () => {
  it("masks keys, keeps a key whose mask comes back, and never sends it to a new URL", async () => {
    h = await startHarness();
    const c = await h.admin();
    const list = await c.get("/api/projects/default_project/models");
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).not.toContain(KEY);
    const [entry] = list.body.models;
    expect(entry).toMatchObject({ provider: "testkit", modelId: "scripted-model", apiKey: "••••cdef", hasKey: true });
    expect(list.body.defaultModel).toEqual({ provider: "testkit", modelId: "scripted-model" });
    expect(typeof list.body.updatedAt).toBe("number");

    const file = projectPaths(h.root, "default_project").projectConfig;
    const kept = await c.put("/api/projects/default_project/models", { models: [{ ...entry, displayName: "Scripted", pricing: { output: 2 } }, { provider: "other", modelId: "m", baseUrl: "https://example.invalid/v1", apiKey: "sk-other-key-12345" }] });
    expect(kept.status).toBe(200);
    expect(JSON.stringify(kept.body)).not.toContain("sk-other-key-12345");
    let config = readProjectConfig(file);
    expect(config.models.find((m) => m.provider === "testkit")).toMatchObject({ api_key: KEY, display_name: "Scripted", pricing: { unit: "usd_per_mtok", output: 2 } });
    expect(config.models.find((m) => m.provider === "other")?.api_key).toBe("sk-other-key-12345");

    const moved = await c.put("/api/projects/default_project/models", { models: [{ ...entry, baseUrl: "https://elsewhere.invalid/v1" }] });
    expect(moved.body.models[0]).toMatchObject({ hasKey: false, apiKey: null });
    config = readProjectConfig(file);
    expect(config.models[0]?.api_key).toBeUndefined();
    expect(readFileSync(file, "utf8")).not.toContain(KEY);

    const dup = await c.put("/api/projects/default_project/models", { models: [entry, entry] });
    expect(dup.status).toBe(400);
    expect(dup.body.error.field).toBe("models.1");
    expect((await c.put("/api/projects/default_project/models/default", { provider: "nope", modelId: "x" })).status).toBe(400);
  });

  it("a table without a default takes the first model added as its default, as the CLI does", async () => {
    h = await startHarness();
    const c = await h.admin();
    const P = "/api/projects/default_project/models";
    const entry = (await c.get(P)).body.models[0];
    const other = { provider: "other", modelId: "m", baseUrl: "https://example.invalid/v1" };
    // Removing the default model clears the default; the next model added fills it again.
    const cleared = await c.put(P, { models: [] });
    expect(cleared.body.defaultModel).toBeNull();
    const added = await c.put(P, { models: [other] });
    expect(added.status).toBe(200);
    expect(added.body.defaultModel).toEqual({ provider: "other", modelId: "m" });
    // With a default set, adding another leaves it alone.
    const second = await c.put(P, { models: [other, entry] });
    expect(second.body.defaultModel).toEqual({ provider: "other", modelId: "m" });
  });

  it("tells open sessions their credentials changed and reloads them for the next task", async () => {
    h = await startHarness({ script: [{ text: "before" }, { text: "after" }] });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace });
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("one"));
    await untilRunsEnded(sse, 1);
    const entry = (await c.get("/api/projects/default_project/models")).body.models[0];
    await c.put("/api/projects/default_project/models", { models: [{ ...entry, maxTokens: 1234 }] });
    expect(dataOf(await untilServerEvent(sse, "credentials_updated")).projectId).toBe("default_project");
    expect(h.server.context.sessions.loadedCount).toBe(0);
    await c.post(`/api/sessions/${sid}/tasks`, text("two"));
    await untilRunsEnded(sse, 2);
    const body = h.kit.requests[1]?.body as { max_tokens?: number; max_completion_tokens?: number };
    expect(body.max_tokens ?? body.max_completion_tokens).toBe(1234);
    await sse.close();
  });

  it("probes an entry, a base URL and its model list against the testkit", async () => {
    h = await startHarness({ script: [{ text: "OK" }] });
    const c = await h.admin();
    const tested = await c.post("/api/projects/default_project/models/test", { provider: "testkit", modelId: "scripted-model" });
    expect(tested.body).toMatchObject({ ok: true, status: "completed" });
    expect(h.kit.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    const detected = await c.post("/api/projects/default_project/models/detect", { baseUrl: h.kit.baseUrl("openai-chat") });
    expect(detected.body.detected).toMatchObject({ clientType: expect.any(String) });
    const listed = await c.post("/api/projects/default_project/models/list", { baseUrl: h.kit.baseUrl("openai-chat"), clientType: "openai-chat" });
    expect(listed.body.ok).toBe(true);
    expect(listed.body.models.length).toBeGreaterThan(0);
    // A stored key never follows an edited URL.
    const before = h.kit.requests.length;
    await c.post("/api/projects/default_project/models/test", { provider: "testkit", modelId: "scripted-model", baseUrl: `${h.kit.url}/v1/` });
    expect(h.kit.requests.slice(before).every((r) => r.headers.authorization !== `Bearer ${KEY}`)).toBe(true);
  });
});

describe("vision and presets", () => {
  it("sets the vision model from the table only, and serves the preset catalog without keys", async () => {
    h = await startHarness();
    const c = await h.admin();
    const P = "/api/projects/default_project/models";
    const missing = await c.put(`${P}/vision`, { provider: "nobody", modelId: "nothing" });
    expect(missing.status).toBe(400);
    expect(missing.body.error.field).toBe("modelId");
    const set = await c.put(`${P}/vision`, { provider: "testkit", modelId: "scripted-model" });
    expect(set.body.visionModel).toEqual({ provider: "testkit", modelId: "scripted-model" });
    expect(readProjectConfig(projectPaths(h.root, "default_project").projectConfig).vision_model).toEqual({ provider: "testkit", model_id: "scripted-model" });

    const presets = await c.get(`${P}/presets`);
    expect(presets.status).toBe(200);
    expect(presets.body.defaultModel).toEqual({ provider: "deepseek", modelId: "deepseek-v4-flash" });
    expect(presets.body.providers.map((p: any) => p.provider)).toEqual(expect.arrayContaining(["deepseek", "anthropic", "openai", "ollama"]));
    expect(presets.body.models.find((m: any) => m.modelId === "deepseek-v4-flash")).toMatchObject({ provider: "deepseek", clientType: "openai-chat", contextWindow: expect.any(Number) });
    expect(JSON.stringify(presets.body)).not.toMatch(/api_?key/i);
  });

  it("detects vision by asking about a red square: seen, refused, or unknown", async () => {
    h = await startHarness();
    const c = await h.admin();
    const sawImage: boolean[] = [];
    h.kit.enqueue((r) => {
      sawImage.push(r.messages.some((m) => m.kind === "image"));
      return { text: "Red." };
    });
    h.kit.enqueue({ text: "x", fault: { kind: "http", status: 400, body: '{"error":{"message":"image input is not supported"}}' } });
    h.kit.enqueue({ text: "x", fault: { kind: "http", status: 401, body: '{"error":{"message":"bad key"}}' } });
    const body = { provider: "testkit", modelId: "scripted-model" };
    const seen = await c.post("/api/projects/default_project/models/detect-vision", body);
    expect(seen.body).toEqual({ vision: true, answer: "Red.", status: "completed" });
    expect(sawImage).toEqual([true]);
    const refused = await c.post("/api/projects/default_project/models/detect-vision", body);
    expect(refused.body).toMatchObject({ vision: false, status: "failed" });
    const unknown = await c.post("/api/projects/default_project/models/detect-vision", body);
    expect(unknown.body).toMatchObject({ vision: null, status: "auth" });
  });
});
