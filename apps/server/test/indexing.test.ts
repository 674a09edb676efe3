// The sessions index is rebuilt from the traces: CLI sessions (run through the SDK, never
// the server) appear at startup and can be continued from the web, subagent traces are
// their own category, web sessions survive a restart even if they never ran (they are
// created persisted) and can then run, and --reindex forgets sessions whose traces were
// deleted.
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { createAgent, sessionTraceFiles } from "@penguin/core";
import { startTestkit } from "@penguin/testkit";
import { createServerApp } from "../src/app.js";
import { ManualTicker } from "../src/runtime/clock.js";
import { ApiClient } from "./helpers/client.js";
import { startHarness, type Harness } from "./helpers/harness.js";
import { listenOnLoopback } from "./helpers/socket.js";
import { newSession, openStream, text, untilRunsEnded } from "./helpers/session.js";
import { messagesOf } from "./helpers/sse.js";
import { testDatabaseOption } from "./helpers/test-database.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

/** A fresh server app on the root, listening on 127.0.0.1; `close` stops both. */
async function reopen(root: string, reindex: boolean) {
  const app = await createServerApp({ root, env: {}, ticker: new ManualTicker(), generateTitles: false, reindex, sleep: async () => undefined, workspaceRoots: [tmpdir()], ...(await testDatabaseOption(root)) });
  const listening = await listenOnLoopback(app.app);
  return {
    request: listening.request,
    async close() {
      await app.close();
      await listening.close();
    },
  };
}

describe("indexing the traces", () => {
  it("shows CLI sessions, keeps subagents apart, keeps never-run web sessions across a restart, and reindexes", async () => {
    const kit = await startTestkit({ script: [{ text: "from the cli" }, { text: "child work" }, { text: "continued in the web" }, { text: "first words after the restart" }] });
    h = await startHarness({ script: [] });
    await h.server.close();
    const { root, workspace } = h;
    // Sessions made by the SDK alone, as the CLI does, while no server runs.
    const entry = { provider: "testkit", model_id: "scripted-model", client_type: "openai-chat" as const, base_url: kit.baseUrl("openai-chat"), api_key: "sk-test-0123456789abcdef" };
    const agent = await createAgent({ root, env: {} });
    const { writeProjectConfig } = await import("@penguin/core");
    writeProjectConfig(agent.paths.projectConfig, { default_model: { provider: entry.provider, model_id: entry.model_id }, models: [entry] });
    // As the CLI does: it names itself as the session's client (recorded in the session_meta).
    const cli = await agent.createSession({ workspaceDir: workspace, client: "cli" });
    for await (const _m of cli.run("hello from the terminal")) void _m;
    await cli.dispose();
    const child = await agent.createSession({ workspaceDir: workspace, source: "subagent" });
    for await (const _m of child.run("child task")) void _m;
    await child.dispose();

    let server = await reopen(root, false);
    let c = new ApiClient(server.request);
    await c.signIn("admin", h.adminPassword);
    const active = (await c.get("/api/projects/default_project/agents/default_agent/sessions")).body.sessions;
    expect(active.map((s: any) => [s.id, s.client])).toEqual([[cli.id, "cli"]]);
    // The CLI names no session: the index titles it from its first prompt (a subagent's run stays untitled).
    expect(active[0].title).toBe("hello from the terminal");
    const sub = (await c.get("/api/projects/default_project/agents/default_agent/sessions?category=subagent")).body.sessions;
    expect(sub.map((s: any) => [s.id, s.source])).toEqual([[child.id, "subagent"]]);
    expect(sub[0].title).toBeNull();
    expect((await c.get(`/api/sessions/${cli.id}/messages`)).body.messages.some((m: any) => m.payload?.text === "from the cli")).toBe(true);

    // Continue the CLI session from the web.
    const sse = await openStream(c, cli.id);
    await c.post(`/api/sessions/${cli.id}/tasks`, text("and now?"));
    await untilRunsEnded(sse, 1);
    expect(messagesOf(sse.events).some((m) => m.payload?.text === "continued in the web")).toBe(true);
    expect(kit.requests[2]?.messages.some((m) => m.text === "from the cli")).toBe(true);
    await sse.close();
    const neverRan = await newSession(c, { workspace });
    expect((await c.get(`/api/sessions/${neverRan}`)).status).toBe(200);
    await server.close();

    server = await reopen(root, false);
    c = new ApiClient(server.request);
    await c.signIn("admin", h.adminPassword);
    const survived = await c.get(`/api/sessions/${neverRan}`);
    expect(survived.status).toBe(200);
    expect(survived.body).toMatchObject({ id: neverRan, client: "web", hasTrace: true, workspace });
    expect((await c.get(`/api/sessions/${cli.id}`)).status).toBe(200);
    const later = await openStream(c, neverRan);
    expect((await c.post(`/api/sessions/${neverRan}/tasks`, text("now run"))).status).toBe(202);
    await untilRunsEnded(later, 1);
    expect(messagesOf(later.events).some((m) => m.payload?.text === "first words after the restart")).toBe(true);
    await later.close();
    await server.close();

    for (const f of sessionTraceFiles(agent.paths, child.id)) rmSync(f.file);
    server = await reopen(root, true);
    c = new ApiClient(server.request);
    await c.signIn("admin", h.adminPassword);
    expect((await c.get(`/api/sessions/${child.id}`)).status).toBe(404);
    expect((await c.get(`/api/sessions/${cli.id}`)).status).toBe(200);
    await server.close();
    await kit.close();
    // The harness's own close runs again in afterEach: closing is idempotent.
  });
});
