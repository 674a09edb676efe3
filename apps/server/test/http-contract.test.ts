// The HTTP contract (src/contract/): every route that answers JSON declares its body as an
// effect/Schema schema, the OpenAPI document carries it, and real answers decode with it.
// The decode test drives a scripted session (testkit model) through the server over
// 127.0.0.1 and checks every 2xx JSON answer against the schema its route declares, so a
// handler that drifts from the contract fails here even when no page reads the field; a field
// the schema does not name fails too (onExcessProperty: error), so the OpenAPI document is whole.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { agentPaths } from "@penguin/core";
import { Either, ParseResult, Schema } from "effect";
import { afterEach, describe, expect, it } from "vitest";
import type { DescribedRoute } from "../src/http/route-table.js";
import { openApiPath } from "../src/http/openapi.js";
import { ApiClient, type ApiAnswer } from "./helpers/client.js";
import { startHarness, type Harness } from "./helpers/harness.js";
import { newSession, openStream, text, untilRunsEnded, untilServerEvent } from "./helpers/session.js";
import { dataOf } from "./helpers/sse.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

/**
 * Answers the scripted session cannot reach: a model endpoint to probe, an MCP server to
 * connect, an upload (skills, snapshots, a trace import), a goal run or a background command.
 * Each is still declared (the first test) and checked by the route tests that do reach it.
 */
const NEEDS_MORE_THAN_A_SESSION = new Set([
  "models.test 200",
  "models.detect 200",
  "models.listEndpoint 200",
  "models.detectVision 200",
  "agentConfig.mcpTest 200",
  "agentSkills.install 200",
  "agentSkills.installArchive 201",
  "snapshots.import 200",
  "agentTraces.import 201",
  "sessions.goal 200",
  "processes.kill 200",
]);

/** Statuses whose answer has no JSON body of its own: nothing to declare. */
const BODYLESS = new Set(["204", "302"]);
const isJson = (contentType: string | undefined) => contentType === undefined || contentType === "application/json";

/** Every (route, status) that answers a JSON body: each must carry a schema. */
function jsonAnswers(routes: readonly DescribedRoute[]): { route: DescribedRoute; status: string; declared: boolean }[] {
  return routes.flatMap((route) =>
    Object.entries(route.responses)
      .filter(([status, spec]) => Number(status) < 300 && !BODYLESS.has(status) && isJson(spec.contentType))
      .map(([status, spec]) => ({ route, status, declared: spec.schema !== undefined })),
  );
}

/** The route express would pick for a request: the first registered whose path matches. */
function routeFor(routes: readonly DescribedRoute[], method: string, url: string): DescribedRoute | undefined {
  const path = decodeURI(new URL(url, "http://localhost").pathname);
  return routes.find((r) => r.method === method.toLowerCase() && pathPattern(r.path).test(path));
}

function pathPattern(path: string): RegExp {
  const body = path
    .replace(/[.]/g, "\\.")
    .replace(/\/\*$/, "(?:/.*)?")
    .replace(/:([A-Za-z0-9_]+)\{\\\.\+\}/g, ".+")
    .replace(/:([A-Za-z0-9_]+)/g, "[^/]+");
  return new RegExp(`^${body}$`);
}

/** An API client that decodes every 2xx JSON answer with its route's declared schema. */
class ContractClient extends ApiClient {
  readonly failures: string[] = [];
  readonly checked = new Set<string>();
  constructor(
    readonly inner: ApiClient,
    readonly routes: readonly DescribedRoute[],
  ) {
    super(async () => new Response(null));
  }
  override async raw(method: string, path: string, init: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Response> {
    return this.inner.raw(method, path, init);
  }
  override async call<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiAnswer<T>> {
    const answer = await super.call<T>(method, path, body, headers);
    const route = routeFor(this.routes, method, path);
    if (route === undefined) {
      this.failures.push(`${method} ${path}: no route matches`);
      return answer;
    }
    const spec = route.responses[answer.status];
    const type = answer.headers.get("content-type") ?? "";
    if (answer.status >= 300 || !type.startsWith("application/json")) return answer;
    if (spec?.schema === undefined) {
      this.failures.push(`${route.operationId} answered ${answer.status} with JSON, but declares no schema for it`);
      return answer;
    }
    const decoded = Schema.decodeUnknownEither(spec.schema as Schema.Schema<unknown, unknown>, { onExcessProperty: "error" })(answer.body);
    if (Either.isLeft(decoded)) this.failures.push(`${route.operationId} ${answer.status}: ${ParseResult.TreeFormatter.formatErrorSync(decoded.left)}`);
    else this.checked.add(`${route.operationId} ${answer.status}`);
    return answer;
  }
}

describe("the HTTP contract", () => {
  it("declares a response schema for every JSON answer of every route, and the OpenAPI document carries it", async () => {
    h = await startHarness();
    const answers = jsonAnswers(h.server.routes);
    expect(answers.length).toBeGreaterThan(80);
    expect(answers.filter((a) => !a.declared).map((a) => `${a.route.operationId} ${a.status}`)).toEqual([]);

    const doc = (await h.client().get("/api/openapi.json")).body;
    const missing = answers.filter(({ route, status }) => doc.paths[openApiPath(route.path)]?.[route.method]?.responses?.[status]?.content?.["application/json"]?.schema === undefined);
    expect(missing.map((a) => a.route.operationId)).toEqual([]);
    // A request body is described too, from the same table.
    expect(doc.paths["/api/sessions/{id}"].patch.requestBody.content["application/json"].schema.properties).toHaveProperty("approvalMode");
    expect(doc.paths["/api/sessions/{id}"].get.responses["200"].content["application/json"].schema.required).toContain("permissions");
  });

  it("finds a route without a response schema", () => {
    const fake: DescribedRoute = {
      method: "get",
      path: "/api/x",
      operationId: "x.get",
      summary: "x",
      tag: "x",
      access: "user",
      need: undefined,
      beforePasswordChange: false,
      params: undefined,
      query: undefined,
      body: undefined,
      responses: { 200: { description: "{x}" }, 204: { description: "none" }, 201: { description: "zip", contentType: "application/zip" } },
    };
    expect(jsonAnswers([fake]).map((a) => [a.route.operationId, a.status, a.declared])).toEqual([["x.get", "200", false]]);
  });

  it("decodes every answer of a scripted session with its route's schema", async () => {
    h = await startHarness({
      script: [{ text: "first answer" }, { text: "second answer" }, { text: "<summary>we talked</summary>" }, { toolCalls: [{ name: "write_file", arguments: { file_path: "w.txt", content: "x" } }] },
        { toolCalls: [{ name: "write_file", arguments: { file_path: "kept.txt", content: "checkpointed\n" } }] },
        { text: "wrote it" },
      ],
    });
    const c = new ContractClient(await h.admin(), h.server.routes);
    const P = "/api/projects/default_project";
    const A = `${P}/agents/default_agent`;
    const ok = (answer: ApiAnswer, ...statuses: number[]) => {
      expect(statuses.length === 0 ? [200, 201, 202] : statuses, JSON.stringify(answer.body)).toContain(answer.status);
      return answer;
    };

    // Server, people and projects.
    ok(await c.post("/api/auth/login", { userId: "admin", password: h.adminPassword }));
    ok(await c.get("/api/version"));
    ok(await c.get("/api/openapi.json"));
    ok(await c.get("/api/me"));
    ok(await c.put("/api/me/prefs", { theme: "dark" }));
    ok(await c.get("/api/me/prefs"));
    ok(await c.get("/api/admin/users"));
    ok(await c.post("/api/admin/users", { userId: "bob", password: "bob-password-1" }));
    ok(await c.get("/api/admin/settings"));
    ok(await c.get("/api/projects"));
    ok(await c.post("/api/projects", { projectId: "side_project", name: "Side" }));
    ok(await c.patch("/api/projects/side_project", { name: "Side 2" }));
    ok(await c.get(`${P}/members`));
    ok(await c.get(`${P}/agents`));
    ok(await c.post(`${P}/agents`, { agentId: "helper" }));
    ok(await c.get(`${P}/chat-defaults`));
    ok(await c.get(`${P}/command-policy`));
    ok(await c.get(`${P}/models`));
    ok(await c.get(`${P}/models/presets`));
    ok(await c.get(`${P}/dirs?path=${encodeURIComponent(h.workspace)}`));
    ok(await c.get("/api/skills"));

    // The agent's resources.
    ok(await c.get(`${A}/config`));
    ok(await c.get(`${A}/config/thinking-level`));
    ok(await c.get(`${A}/vault`));
    ok(await c.put(`${A}/vault`, { values: { TOKEN: "secret-value-1" } }));
    ok(await c.get(`${A}/memory`));
    ok(await c.get(`${A}/memory/export`));
    ok(await c.get(`${A}/schedules`));
    ok(await c.post(`${A}/schedules`, { name: "nightly", text: 'enabled = false\nperiod = "24h"\nprompt = "tidy"\nstart_at = 2026-07-19T02:00:00Z\n' }));
    ok(await c.get(`${A}/schedules/nightly`));
    ok(await c.get(`${A}/skills`));
    ok(await c.get(`${A}/tools`));
    ok(await c.get(`${A}/benchmarks`));
    ok(await c.get(`${A}/snapshots`));

    // A session: two tasks through the scripted model, then every read of it.
    const sid = await newSession(c, { workspace: h.workspace });
    const sse = await openStream(c, sid);
    ok(await c.post(`/api/sessions/${sid}/tasks`, text("one")));
    await untilRunsEnded(sse, 1);
    ok(await c.post(`/api/sessions/${sid}/tasks`, text("two")));
    await untilRunsEnded(sse, 2);
    const S = `/api/sessions/${sid}`;
    ok(await c.post(`${S}/compact`), 202);
    await untilRunsEnded(sse, 3);
    await sse.close();
    ok(await c.get(`${S}/records/001:000001`));
    ok(await c.get(`${A}/sessions`));
    ok(await c.get(S));
    ok(await c.get(`${S}/messages`));
    ok(await c.get(`${S}/messages?tailLimit=2`));
    ok(await c.get(`${S}/state`));
    ok(await c.get(`${S}/state?at=3`));
    ok(await c.get(`${S}/analysis`));
    ok(await c.get(`${S}/traces`));
    ok(await c.get(`${S}/traces/1`));
    ok(await c.get(`${S}/traces/1?view=outline`));
    ok(await c.get(`${S}/processes`));
    ok(await c.post(`${S}/retry-now`));
    ok(await c.patch(S, { title: "Renamed", thinkingLevel: "high" }));
    ok(await c.get(`${A}/traces`));
    ok(await c.get(`${A}/traces/${sid}/analysis`));
    ok(await c.get(`${A}/traces/${sid}/1`));
    ok(await c.get(`${P}/usage`));
    ok(await c.get(`${P}/usage?groupBy=model&granularity=hour`));
    ok(await c.get(`${P}/usage/errors`));

    // Its workspace files.
    ok(await c.put(`${S}/files/content`, { path: "notes.txt", dataBase64: Buffer.from("hello").toString("base64") }));
    ok(await c.get(`${S}/files`));
    ok(await c.get(`${S}/files/content?path=notes.txt`));
    ok(await c.post(`${S}/files/stat`, { paths: ["notes.txt", "missing.txt"] }));
    ok(await c.get(`${S}/files/preview-redirect?path=notes.txt&format=json`));

    // Settings written back.
    ok(await c.post(`${A}/config/reset`));
    const withoutPlaceholders = (await c.get(`${A}/config`)).body.systemConfig.replaceAll("{{VAULT}}", "").replaceAll("{{MEMORY}}", "");
    ok(await c.put(`${A}/config`, { systemConfig: withoutPlaceholders }));
    ok(await c.put(`${A}/config/thinking-level`, { thinkingLevel: "low" }));
    ok(await c.post(`${A}/config/kernel-update`));
    ok(await c.post(`${A}/vault/template-placeholder`));
    ok(await c.post(`${A}/memory/template-placeholder`));
    ok(await c.post(`${A}/memory/import`, { payload: { format: "penguin-memory", version: 1, files: [{ path: "global/notes.md", encoding: "utf8", content: "remember" }] }, mode: "skip" }));
    ok(await c.get(`${A}/memory/scopes/global/files`));
    ok(await c.get(`${A}/memory/files/global/notes.md`));
    ok(await c.put(`${A}/schedules/nightly`, { text: 'enabled = false\nperiod = "12h"\nprompt = "tidy"\nstart_at = 2026-07-19T02:00:00Z\n' }));
    ok(await c.put(`${P}/chat-defaults`, { approvalMode: "always-ask" }));
    ok(await c.put(`${P}/command-policy`, (await c.get(`${P}/command-policy`)).body));
    ok(await c.put("/api/admin/settings", (await c.get("/api/admin/settings")).body));
    const models = (await c.get(`${P}/models`)).body;
    ok(await c.put(`${P}/models/default`, models.defaultModel));
    ok(await c.put(`${P}/models/vision`, models.defaultModel));
    const sentBack = models.models.map((m: any) => ({ provider: m.provider, modelId: m.modelId, clientType: m.clientType, baseUrl: m.baseUrl, apiKey: m.apiKey, contextWindow: m.contextWindow }));
    ok(await c.put(`${P}/models`, { models: sentBack }));

    // A benchmark laid out on disk: its cases, files and rubric.
    const bench = join(agentPaths(h.root, "default_project", "default_agent").benchmarksDir, "bench1");
    mkdirSync(join(bench, "cases", "case1"), { recursive: true });
    mkdirSync(join(bench, "rubric"), { recursive: true });
    writeFileSync(join(bench, "cases", "case1", "task.md"), "do it");
    writeFileSync(join(bench, "rubric", "score.md"), "score it");
    ok(await c.get(`${A}/benchmarks/bench1/cases`));
    ok(await c.get(`${A}/benchmarks/bench1/cases/case1/files`));
    ok(await c.get(`${A}/benchmarks/bench1/cases/case1/files/content?path=task.md`));
    ok(await c.get(`${A}/benchmarks/bench1/rubric/files`));
    ok(await c.get(`${A}/benchmarks/bench1/rubric/files/content?path=score.md`));

    // A running task waiting on an approval: its live reads, steering, a queued follow-up, abort.
    const busy = await newSession(c, { workspace: h.workspace, approvalMode: "always-ask" });
    const B = `/api/sessions/${busy}`;
    const live = await openStream(c, busy);
    ok(await c.post(`${B}/tasks`, text("write it")), 202);
    dataOf(await untilServerEvent(live, "approval_request"));
    ok(await c.get(B));
    ok(await c.get(`${B}/messages`));
    const steered = ok(await c.post(`${B}/steer`, { text: "also this" }), 202);
    ok(await c.del(`${B}/steer/${steered.body.id}`));
    const queued = ok(await c.post(`${B}/tasks`, { ...text("later"), queueIfBusy: true }), 202);
    ok(await c.del(`${B}/follow-ups/${queued.body.followUpId}`));
    ok(await c.post(`${B}/tasks`, { ...text("later again"), queueIfBusy: true }), 202);
    ok(await c.post(`${B}/abort`), 202);
    await untilRunsEnded(live, 1);
    await live.close();

    // The workspace at a record, from its checkpoints (issue 29): a session that writes a file.
    const writer = await newSession(c, { workspace: h.workspace, approvalMode: "allow-all" });
    const W = `/api/sessions/${writer}`;
    const wsse = await openStream(c, writer);
    ok(await c.post(`${W}/tasks`, text("write kept.txt")), 202);
    await untilRunsEnded(wsse, 1);
    await wsse.close();
    const at = ok(await c.get(`${W}/checkpoints/files`));
    ok(await c.get(`${W}/checkpoints/file?at=${at.body.at}&path=kept.txt`));
    ok(await c.get(`${W}/checkpoints/diff?from=1&to=${at.body.at}`));
    ok(await c.get(`${W}/checkpoints/changes?at=${at.body.at}`));
    ok(await c.post(`${W}/checkpoints/restore`, { at: 1, force: true }));

    // Fork, delete to the trash, restore.
    const fork = ok(await c.post(`${S}/fork`, { at: 3 }));
    ok(await c.del(`/api/sessions/${fork.body.id}`), 204);
    const trash = ok(await c.get(`${P}/trash`));
    ok(await c.post(`${P}/trash/${trash.body.sessions[0].id}/restore`));
    ok(await c.post("/api/admin/trash/purge"));

    expect(c.failures).toEqual([]);
    // Every declared JSON answer was met, but those that need what a scripted session has not:
    // a model endpoint to probe (models.test/detect/listEndpoint/detectVision), an MCP server
    // (agentConfig.mcpTest), an upload (skills, snapshots, a trace import) or a goal run.
    const notReached = jsonAnswers(h.server.routes)
      .map(({ route, status }) => `${route.operationId} ${status}`)
      .filter((answer) => !c.checked.has(answer));
    expect(notReached.filter((answer) => !NEEDS_MORE_THAN_A_SESSION.has(answer))).toEqual([]);
  });

  it("imports nothing but effect and the protocol's schemas, so the web can take its types", () => {
    const dir = fileURLToPath(new URL("../src/contract/", import.meta.url));
    const files = readdirSync(dir).filter((f) => f.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(5);
    const outside = files.flatMap((file) =>
      [...readFileSync(join(dir, file), "utf8").matchAll(/^(?:import|export)[^;]*?from "([^"]+)"/gms)]
        .map((m) => m[1]!)
        // The web's compiled shapes (web-shapes.generated.ts) take the `Shape` type from the protocol's effect-free browser entry.
        .filter((spec) => !/^\.\/[a-z-]+\.js$/.test(spec) && spec !== "effect" && spec !== "@penguin/omnimessage/schema" && spec !== "@penguin/omnimessage/browser")
        .map((spec) => `${file}: ${spec}`),
    );
    expect(outside).toEqual([]);
  });
});
