// The file-backed resources: agent config written as given (comments kept) after core's
// validation, the vault masked, schedules as files, projects with members and personal
// projects, agents created and deleted, traces imported and paged, and the OpenAPI description.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { agentPaths, readTraceFile, readVault, sessionTraceFiles } from "@penguin/core";
import { sessionMeta, toolCall, toolCallOutput, userText } from "@penguin/omnimessage";
import { startHarness, type Harness } from "./helpers/harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const A = "/api/projects/default_project/agents/default_agent";

describe("agent configuration", () => {
  it("saves system_config.yaml exactly as sent after validating it, and refuses a broken one naming the field", async () => {
    h = await startHarness();
    const c = await h.admin();
    const current = await c.get(`${A}/config`);
    expect(current.body.systemConfig).toContain("system_prompt");
    const edited = `# my own comment, kept verbatim\n${current.body.systemConfig}\n# trailing note\n`;
    const saved = await c.put(`${A}/config`, { systemConfig: edited, agentsMd: "# Be brief\n" });
    expect(saved.status).toBe(200);
    const paths = agentPaths(h.root, "default_project", "default_agent");
    expect(readFileSync(paths.systemConfig, "utf8")).toBe(edited);
    expect(readFileSync(paths.agentsMd, "utf8")).toBe("# Be brief\n");

    const broken = await c.put(`${A}/config`, { systemConfig: edited.replace(/^max_turns:.*$/m, "max_turns: many") });
    expect(edited).toMatch(/^max_turns:/m);
    expect(broken.status).toBe(400);
    expect(broken.body.error).toMatchObject({ code: "invalid_config", field: "max_turns" });
    expect(readFileSync(paths.systemConfig, "utf8")).toBe(edited);

    const reset = await c.post(`${A}/config/reset`);
    expect(reset.body.systemConfig).not.toContain("my own comment");
    expect(reset.body.agentsMd).not.toBe("# Be brief\n");
  });

  it("masks vault values and keeps a value whose mask comes back", async () => {
    h = await startHarness();
    const c = await h.admin();
    const put = await c.put(`${A}/vault`, { values: { GITHUB_TOKEN: "ghp_supersecretvalue123", SHORT: "abc" } });
    expect(put.body.entries).toEqual([
      { name: "GITHUB_TOKEN", value: "••••e123" },
      { name: "SHORT", value: "••••" },
    ]);
    expect(JSON.stringify((await c.get(`${A}/vault`)).body)).not.toContain("supersecret");
    await c.put(`${A}/vault`, { values: { GITHUB_TOKEN: "••••e123", NEW_ONE: "v" } });
    const file = agentPaths(h.root, "default_project", "default_agent").vault;
    expect(await readVault(file)).toEqual({ GITHUB_TOKEN: "ghp_supersecretvalue123", NEW_ONE: "v" });
    expect((await c.put(`${A}/vault`, { values: { "bad key": "x" } })).body.error.code).toBe("invalid_config");
  });

  it("keeps schedules as files: create (409 on a clash), read, update, list with run state, delete", async () => {
    h = await startHarness();
    const c = await h.admin();
    const def = '# nightly\nenabled = true\nperiod = "24h"\nprompt = "tidy up"\nstart_at = 2026-07-19T02:00:00Z\n';
    expect((await c.post(`${A}/schedules`, { name: "nightly", text: def })).status).toBe(201);
    expect((await c.post(`${A}/schedules`, { name: "nightly", text: def })).status).toBe(409);
    expect((await c.get(`${A}/schedules/nightly`)).body.text).toBe(def);
    const listed = await c.get(`${A}/schedules`);
    expect(listed.body).toMatchObject({ running: true, schedules: [{ name: "nightly", enabled: true, period: "24h", valid: true, invalidReason: null, lastFiredAt: null, nextAt: Date.UTC(2026, 6, 19, 2) }] });
    // A replacement must itself be a valid schedule (the route checks it before writing).
    const paused = def.replace("enabled = true", "enabled = false");
    expect((await c.put(`${A}/schedules/nightly`, { text: paused })).status).toBe(200);
    expect(readFileSync(join(agentPaths(h.root, "default_project", "default_agent").scheduleDir, "nightly.toml"), "utf8")).toBe(paused);
    expect((await c.del(`${A}/schedules/nightly`)).status).toBe(204);
    expect((await c.get(`${A}/schedules/nightly`)).status).toBe(404);
    expect((await c.post(`${A}/schedules`, { name: "../escape", text: "" })).body.error.field).toBe("name");
  });

  it("checks a schedule as TOML and as a schedule before writing it: a bad one is a 400 naming the line or field, the file unchanged", async () => {
    h = await startHarness();
    const c = await h.admin();
    const file = join(agentPaths(h.root, "default_project", "default_agent").scheduleDir, "nightly.toml");
    const def = 'enabled = true\nperiod = "24h"\nprompt = "tidy up"\nstart_at = 2026-07-19T02:00:00Z\n';
    expect((await c.post(`${A}/schedules`, { name: "nightly", text: def })).status).toBe(201);
    const bad: [string, string, RegExp][] = [
      ['enabled = true\nprompt = "x\nstart_at = 2026-07-19T02:00:00Z\n', "text", /line 2/],
      ['enabled = true\nstart_at = 2026-07-19T02:00:00Z\n', "text: prompt", /prompt is required/],
      ['prompt = "x"\nstart_at = "soon"\n', "text: start_at", /start_at must be a date-time/],
      ['prompt = "x"\nstart_at = 2026-07-19T02:00:00Z\nperiod = "1m"\n', "text: period", /at least 5m/],
      ['prompt = "x"\nstart_at = 2026-07-19T02:00:00Z\ncolour = "red"\n', "text: colour", /unknown field "colour"/],
      ['prompt = "x"\nstart_at = 2026-07-19T02:00:00Z\nworkspace = "/etc"\n', "text: workspace", /\/etc .*outside the server's workspace roots/],
      [`prompt = "x"\nstart_at = 2026-07-19T02:00:00Z\nworkspace = "${h.root}"\n`, "text: workspace", /data root/],
    ];
    for (const [text, field, message] of bad) {
      const put = await c.put(`${A}/schedules/nightly`, { text });
      expect(put.status, text).toBe(400);
      expect(put.body.error.field, text).toBe(field);
      expect(put.body.error.message, text).toMatch(message);
      expect(readFileSync(file, "utf8"), text).toBe(def);
      const post = await c.post(`${A}/schedules`, { name: "other", text });
      expect(post.status, text).toBe(400);
      expect(existsSync(join(agentPaths(h.root, "default_project", "default_agent").scheduleDir, "other.toml")), text).toBe(false);
    }
    const inWorkspace = `prompt = "x"\nstart_at = 2026-07-19T02:00:00Z\nworkspace = "${h.workspace}"\n`;
    expect((await c.put(`${A}/schedules/nightly`, { text: inWorkspace })).status).toBe(200);
    expect(readFileSync(file, "utf8")).toBe(inWorkspace);
  });
});

describe("projects, members and agents", () => {
  it("gives each user a personal project, shares projects with members, and guards default projects", async () => {
    h = await startHarness();
    const admin = await h.admin();
    const created = await admin.post("/api/admin/users", { userId: "alice", password: "alice-password" });
    expect(created.body.projectId).toBe("alice_default_project");
    const alice = h.client();
    await alice.login("alice", "alice-password");
    const mine = await alice.get("/api/projects");
    expect(mine.body.projects.map((p: any) => [p.projectId, p.role])).toEqual([["alice_default_project", "owner"]]);
    expect(existsSync(join(h.root, "alice_default_project", "agents", "default_agent", "agent_state", "system_config.yaml"))).toBe(true);
    expect((await alice.get("/api/projects/default_project/models")).status).toBe(404);

    await admin.post("/api/projects/default_project/members", { userId: "alice" });
    expect((await alice.get("/api/projects")).body.projects.map((p: any) => [p.projectId, p.role])).toEqual([
      ["alice_default_project", "owner"],
      ["default_project", "member"],
    ]);
    expect((await alice.get("/api/projects/default_project/models")).status).toBe(200);
    expect((await alice.put("/api/projects/default_project/models", { models: [] })).status).toBe(404);
    expect((await admin.get("/api/projects/default_project/members")).body.members.map((m: any) => `${m.role}:${m.userId}`)).toEqual(["owner:admin", "member:alice"]);

    expect((await admin.del("/api/projects/default_project")).body.error.code).toBe("protected");
    expect((await alice.del("/api/projects/alice_default_project")).body.error.code).toBe("protected");
    expect((await alice.post("/api/projects", { projectId: "side_project", name: "Side" })).status).toBe(201);
    expect((await alice.post("/api/projects", { projectId: "side_project" })).status).toBe(409);
    expect((await alice.post("/api/projects", { projectId: "Bad-Id" })).body.error.field).toBe("projectId");
    expect((await alice.del("/api/projects/side_project")).status).toBe(204);
    expect(existsSync(join(h.root, "side_project"))).toBe(false);

    expect((await admin.del("/api/admin/users/admin")).status).toBe(409);
    expect((await admin.del("/api/admin/users/alice")).status).toBe(204);
    expect(h.server.context.stores.projects.get("alice_default_project")?.ownerUserId).toBe("admin");
  });

  it("creates agents with default state and deletes them with their files", async () => {
    h = await startHarness();
    const c = await h.admin();
    const created = await c.post("/api/projects/default_project/agents", { agentId: "writer", name: "Writer" });
    expect(created.status).toBe(201);
    expect((await c.get("/api/projects/default_project/agents")).body.agents.map((a: any) => a.agentId)).toEqual(["default_agent", "writer"]);
    expect((await c.get("/api/projects/default_project/agents/writer/config")).status).toBe(200);
    expect((await c.post("/api/projects/default_project/agents", { agentId: "writer" })).status).toBe(409);
    expect((await c.del("/api/projects/default_project/agents/default_agent")).body.error.code).toBe("protected");
    expect((await c.del("/api/projects/default_project/agents/writer")).status).toBe(204);
    expect(existsSync(join(h.root, "default_project", "agents", "writer"))).toBe(false);
    expect((await c.get("/api/projects/default_project/agents/writer/config")).status).toBe(404);
  });
});

describe("traces", () => {
  it("imports a JSONL trace as a new session, refuses the same id twice, and serves it back", async () => {
    h = await startHarness();
    const c = await h.admin();
    const sid = "session-2026-07-01-10-00-00-abcdef01";
    // Paths the workspace roots allow (and this agent's own agent_state) are stored byte for byte.
    const agentState = agentPaths(h.root, "default_project", "default_agent").agentState;
    const jsonl = [sessionMeta({ session_id: sid, provider: "testkit", model_id: "scripted-model", model_context_window: 1000, system_prompt: "sp", agent_state: agentState, workspace: h.workspace }), userText("imported hello")].map((m) => JSON.stringify(m)).join("\n");
    const dataBase64 = Buffer.from(jsonl).toString("base64");
    const imported = await c.post(`${A}/traces/import`, { dataBase64 });
    expect(imported.status).toBe(201);
    expect(imported.body.sessionId).toBe(sid);
    expect(imported.body.replaced).toEqual([]);
    expect((await c.post(`${A}/traces/import`, { dataBase64 })).status).toBe(409);
    const list = await c.get(`${A}/traces`);
    expect(list.body.sessions.map((s: any) => s.sessionId)).toEqual([sid]);
    const file = await c.get(`${A}/traces/${sid}/1`);
    expect(file.body.lines.map((l: any) => l.line)).toEqual([1, 2]);
    const download = await c.raw("GET", `${A}/traces/${sid}/download`);
    expect(await download.text()).toBe(`${jsonl}\n`);
    expect((await c.get(`/api/sessions/${sid}`)).body).toMatchObject({ id: sid, client: "cli", hasTrace: true });
    expect((await c.get(`/api/sessions/${sid}/messages`)).body.messages.at(-1).payload.text).toBe("imported hello");
  });

  it("pages a trace file by record offset as a whole read numbers it, on both routes, following what is appended between pages, whole or as an outline", async () => {
    h = await startHarness();
    const c = await h.admin();
    const sid = "session-2026-07-01-11-00-00-abcdef02";
    const meta = sessionMeta({ session_id: sid, provider: "testkit", model_id: "scripted-model", model_context_window: 1000, system_prompt: "sp", agent_state: "/x", workspace: h.workspace });
    const first = [meta, ...Array.from({ length: 30 }, (_, i) => userText(`ask ${i}`))].map((m) => JSON.stringify(m)).join("\n");
    expect((await c.post(`${A}/traces/import`, { dataBase64: Buffer.from(first).toString("base64") })).status).toBe(201);
    const file = sessionTraceFiles(agentPaths(h.root, "default_project", "default_agent"), sid)[0]!.file;
    const pagesOf = async (route: string, limit: number) => {
      const lines: { line: number }[] = [];
      let total = -1;
      for (let offset: number | null = 0; offset !== null; ) {
        const page: any = (await c.get(`${route}?offset=${offset}&limit=${limit}`)).body;
        lines.push(...page.lines);
        total = page.total;
        offset = page.nextOffset;
      }
      return { lines, total };
    };
    const wholeRead = () => {
      const full = readTraceFile(file);
      return { lines: full.messages.map((message, i) => ({ line: full.lines[i]!, message })), total: full.messages.length };
    };
    expect(await pagesOf(`${A}/traces/${sid}/1`, 7)).toEqual(wholeRead());
    appendFileSync(file, `not json\n${JSON.stringify(userText("after the garbage"))}\n\0\0${JSON.stringify(userText("padded"))}\n${JSON.stringify(userText("torn")).slice(0, 9)}`);
    expect(await pagesOf(`${A}/traces/${sid}/1`, 5)).toEqual(wholeRead());
    const viaSession = await pagesOf(`/api/sessions/${sid}/traces/1`, 4);
    expect(viaSession).toEqual(wholeRead());
    expect(viaSession.total).toBe(33);
    expect((await c.get(`${A}/traces/${sid}/2`)).status).toBe(404);

    // The outline view: the same lines, each envelope cut to what time travel names an event by.
    appendFileSync(file, `\n${JSON.stringify(toolCall({ name: "exec_command", arguments: "{}", tool_call_id: "call_o" }))}\n${JSON.stringify(toolCallOutput({ tool_call_id: "call_o", output: "x".repeat(5000) }))}\n`);
    const full = await pagesOf(`${A}/traces/${sid}/1`, 500);
    const outline: any = (await c.get(`${A}/traces/${sid}/1?view=outline&limit=500`)).body;
    expect(outline.total).toBe(full.total);
    expect(outline.lines).toEqual(
      full.lines.map(({ line, message }: any) => ({ line, message: message.type === "session_meta" ? { type: "session_meta", payload: {} } : { type: message.type, payload: { type: message.payload.type, ...(message.payload.role === undefined ? {} : { role: message.payload.role }), ...(message.payload.name === undefined ? {} : { name: message.payload.name }) } } })),
    );
    expect(outline.lines.find((l: any) => l.message.payload.name === "exec_command")).toBeDefined();
    expect(JSON.stringify(outline)).not.toContain("xxxxxxxx");
    expect(JSON.stringify(outline).length * 2).toBeLessThan(JSON.stringify(full.lines).length);
    const bad = await c.get(`${A}/traces/${sid}/1?view=everything`);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("view");
  });
});

describe("OpenAPI", () => {
  it("describes every route with a unique operation id and the schemas of its inputs", async () => {
    h = await startHarness();
    const doc = (await h.client().get("/api/openapi.json")).body;
    expect(doc.openapi).toBe("3.1.0");
    const ops = Object.values(doc.paths as Record<string, Record<string, any>>).flatMap((p) => Object.values(p));
    expect(ops).toHaveLength(h.server.routes.length);
    expect(new Set(ops.map((o) => o.operationId)).size).toBe(ops.length);
    const login = doc.paths["/api/auth/login"].post;
    expect(login.requestBody.content["application/json"].schema.required).toEqual(["userId", "password"]);
    expect(login.security).toBeUndefined();
    const task = doc.paths["/api/sessions/{id}/tasks"].post;
    expect(task.parameters).toEqual([expect.objectContaining({ name: "id", in: "path", required: true })]);
    expect(task.security).toEqual([{ sessionCookie: [] }]);
    const usage = doc.paths["/api/projects/{p}/usage"].get;
    expect(usage.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(["p", "groupBy", "granularity", "from", "toTs"]));
    expect(doc.paths["/api/sessions/{id}/scratchpad/{file}"]).toBeDefined();
    for (const [path, method] of [
      ["/api/projects/{p}/agents/{a}/memory/files/{name}", "delete"],
      ["/api/projects/{p}/agents/{a}/skills/archive", "post"],
      ["/api/projects/{p}/agents/{a}/config/kernel-update", "post"],
      ["/api/projects/{p}/agents/{a}/config/thinking-level", "put"],
      ["/api/projects/{p}/agents/{a}/tools", "get"],
      ["/api/projects/{p}/models/presets", "get"],
      ["/api/sessions/{id}/steer/{steerId}", "delete"],
      ["/api/sessions/{id}/processes/{pid}/kill", "post"],
      ["/preview/{token}/{rest}", "get"],
    ] as const) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
    expect(doc.paths["/api/projects/{p}/agents/{a}/import"].post.requestBody.content["application/json"].schema.required).toEqual(["dataBase64"]);
    expect(doc.paths["/preview/{token}/{rest}"].get.security).toBeUndefined();
    writeFileSync(join(h.root, "openapi-snapshot.json"), JSON.stringify(doc));
  });
});
