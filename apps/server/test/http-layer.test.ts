// The HTTP layer on express: bad input of every shape is the client's 400/413 with the
// {error:{code,message}} body (deep JSON, huge JSON, broken JSON, malformed percent-encoding,
// a wrong field type), never a 500; the OpenAPI document comes from the decoding schemas;
// and a graceful stop finishes even with a connection that would never end by itself.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ManualTicker } from "../src/runtime/clock.js";
import { startServer, type RunningServer } from "../src/start.js";
import { ApiClient } from "./helpers/client.js";
import { startHarness, type Harness } from "./helpers/harness.js";

let h: Harness | undefined;
let running: RunningServer | undefined;
let root: string | undefined;
afterEach(async () => {
  await h?.cleanup();
  await running?.close();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
  h = running = root = undefined;
});

describe("input errors on express", () => {
  it("answers deep, huge and broken JSON with 400/413, and names a field of the wrong type", async () => {
    h = await startHarness();
    const c = await h.admin();
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const deepAnswer = await c.call("POST", "/api/auth/login", deep);
    expect(deepAnswer.status).toBe(400);
    expect(deepAnswer.body.error).toMatchObject({ code: "invalid_request" });
    expect(deepAnswer.body.error.message).toContain("deeper than");

    const huge = JSON.stringify({ userId: "admin", password: "x".repeat(2 * 1024 * 1024) });
    const hugeAnswer = await c.call("POST", "/api/auth/login", huge);
    expect(hugeAnswer.status).toBe(413);
    expect(hugeAnswer.body.error.code).toBe("payload_too_large");

    const broken = await c.call("POST", "/api/auth/login", "{ not json");
    expect(broken.status).toBe(400);
    expect(broken.body.error.message).toContain("not valid JSON");

    const wrongType = await c.post("/api/auth/login", { userId: 42, password: "whatever" });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error).toMatchObject({ code: "invalid_request", field: "userId" });

    const badQuery = await c.get("/api/projects/default_project/usage/errors?limit=many");
    expect(badQuery.status).toBe(400);
    expect(badQuery.body.error.field).toBe("limit");
  });

  it("answers a path that is not valid percent-encoding with a 400, and an unknown API path with a 404", async () => {
    h = await startHarness();
    const c = await h.admin();
    const bad = await c.get("/api/sessions/%E0%A4%A/messages");
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_request");
    const missing = await c.get("/api/no/such/route");
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: "not_found" });
    expect((await h.client().get("/api/no/such/route")).status).toBe(401);
  });

  it("describes query numbers as the strings they arrive as, with their bounds", async () => {
    h = await startHarness();
    const doc = (await h.client().get("/api/openapi.json")).body;
    const list = doc.paths["/api/projects/{p}/agents/{a}/sessions"].get;
    const limit = list.parameters.find((p: any) => p.name === "limit");
    expect(limit).toMatchObject({ in: "query", required: false, schema: { type: "string" } });
    expect(limit.schema.description).toContain("less than or equal to 500");
    expect(list.responses["403"].description).toContain("password_change_required");
    expect(doc.paths["/api/me"].get.responses["403"]).toBeUndefined();
    expect(doc.paths["/api/auth/login"].post.responses["403"]).toBeUndefined();
  });
});

describe("graceful shutdown", () => {
  it("closes after the grace period even while a client keeps a request open", async () => {
    root = mkdtempSync(join(tmpdir(), "penguin-shutdown-"));
    running = await startServer({ root, port: 0, host: "127.0.0.1", env: {}, sleep: async () => undefined, shutdownGraceMs: 50, app: { ticker: new ManualTicker(), generateTitles: false } });
    const password = readFileSync(join(root, "initial-admin-password"), "utf8").trim();
    const c = new ApiClient((url, init) => fetch(url, init), running.url);
    await c.signIn("admin", password);
    const events = await c.raw("GET", "/api/events");
    expect(events.status).toBe(200);
    const reader = events.body!.getReader();
    await reader.read();
    // A request whose body never finishes arriving: only the grace cut ends this connection.
    const socket = connect(running.port, "127.0.0.1");
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    const socketClosed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.on("error", () => undefined);
    socket.write(`POST /api/auth/login HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"userId":`);
    await running.close();
    await socketClosed;
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (chunk.done) break;
    }
    await expect(fetch(`${running.url}/api/version`)).rejects.toThrow();
  });
});
