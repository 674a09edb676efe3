// Who may do what to a session: the permission matrix of apps/server/README.md, played over
// real HTTP against every session route of the route table × the session's creator (a
// member), another member, the project owner, a non-member and the admin. The list of routes
// comes from the route table, so a new session route without an entry in RULES fails here.
// A refused write gets a real, valid body (what would act if the guard were gone) and the
// test checks that nothing of the session changed: trace bytes, index row, workspace files.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { agentPaths, sessionDate } from "@penguin/core";
import { describe, expect, it } from "vitest";
import type { DescribedRoute } from "../src/http/route-table.js";
import type { ApiClient } from "./helpers/client.js";
import { configureProject, eventually, modelEntry, startHarness, type Harness } from "./helpers/harness.js";
import { newSession, openStream, text, untilRunsEnded } from "./helpers/session.js";

type Actor = "creator" | "member" | "owner" | "other" | "admin";
const ACTORS: Actor[] = ["creator", "member", "owner", "other", "admin"];
/** read: every member (and fork); act: creator, owner, admin; owner: owner, admin; admin: admin only. */
type Rule = "read" | "act" | "owner" | "admin";
const PROJECT = "team_project";
const AGENT = "default_agent";

/** Every session route and its rule: the matrix of apps/server/README.md. */
const RULES: Record<string, Rule> = {
  "sessions.list": "read",
  "sessions.create": "read",
  "sessions.get": "read",
  "sessions.messages": "read",
  "sessions.stream": "read",
  "sessions.state": "read",
  "sessions.goal": "read",
  "sessions.fork": "read",
  "sessionTraces.list": "read",
  "sessionTraces.file": "read",
  "sessionTraces.record": "read",
  "sessionTraces.analysis": "read",
  "sessionTraces.scratchpad": "read",
  "agentTraces.list": "read",
  "agentTraces.import": "read",
  "agentTraces.analysis": "read",
  "agentTraces.download": "read",
  "agentTraces.file": "read",
  "files.list": "read",
  "files.read": "read",
  "files.previewRedirect": "read",
  "files.stat": "read",
  "checkpoints.files": "read",
  "checkpoints.file": "read",
  "checkpoints.diff": "read",
  "checkpoints.changes": "read",
  "processes.list": "read",
  "sessions.update": "act",
  "sessions.delete": "act",
  "sessions.postTask": "act",
  "sessions.recallFollowUp": "act",
  "sessions.steer": "act",
  "sessions.recallSteer": "act",
  "sessions.abort": "act",
  "sessions.decide": "act",
  "sessions.retryNow": "act",
  "sessions.compact": "act",
  "processes.kill": "act",
  "processes.delete": "act",
  "files.write": "act",
  "checkpoints.restore": "act",
  "trash.list": "owner",
  "trash.restore": "owner",
  "trash.purge": "admin",
};

/** A valid body for each write: what would change the session if the guard let it through. */
const ACTING_BODIES: Record<string, unknown> = {
  "sessions.update": { title: "hijacked", archived: true, approvalMode: "allow-all", thinkingLevel: "high" },
  "sessions.postTask": { input: [{ type: "text", text: "hijack" }] },
  "sessions.steer": { text: "hijack" },
  "sessions.decide": { decision: "allow" },
  "files.write": { path: "hijacked.txt", dataBase64: Buffer.from("hijacked").toString("base64") },
  "checkpoints.restore": { at: 1, force: true },
};

/** The session routes of the table: session access, and the agent and project routes about sessions, traces and the trash. */
function sessionRoutes(routes: readonly DescribedRoute[]): DescribedRoute[] {
  return routes.filter((r) => r.access === "session" || /\/(sessions|traces|trash)(\/|$)/.test(r.path));
}

function concretePath(route: DescribedRoute, sessionId: string): string {
  const values: Record<string, string> = { p: PROJECT, a: AGENT, id: sessionId, sid: sessionId, idx: "1", toolCallId: "call_none", followUpId: "fu_none", steerId: "st_none", pid: "1", file: "nothing.txt", entry: "x" };
  const path = route.path.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, (_m, name: string) => values[name] ?? "x");
  return route.operationId.startsWith("files.") && route.method === "get" && route.operationId !== "files.list" ? `${path}?path=seen.txt` : path;
}

/** Destructive calls last: the delete, then the purge. */
function ordered(routes: DescribedRoute[]): DescribedRoute[] {
  const rank = (r: DescribedRoute) => (r.operationId === "trash.purge" ? 2 : r.operationId === "sessions.delete" ? 1 : 0);
  return [...routes].sort((a, b) => rank(a) - rank(b));
}

function expected(rule: Rule, actor: Actor): "allowed" | "forbidden" | "hidden" {
  if (actor === "admin") return "allowed";
  if (actor === "other") return "hidden";
  switch (rule) {
    case "read":
      return "allowed";
    case "act":
      return actor === "member" ? "forbidden" : "allowed";
    case "owner":
      return actor === "owner" ? "allowed" : "hidden";
    case "admin":
      return "hidden";
  }
}

interface Team {
  h: Harness;
  clients: Record<Actor, ApiClient>;
  sessionId: string;
}

async function team(): Promise<Team> {
  const h = await startHarness({ script: [{ text: "hello from the model" }] });
  const admin = await h.admin();
  for (const userId of ["owner", "creator", "member", "other"]) expect((await admin.post("/api/admin/users", { userId, password: `${userId}-password` })).status).toBe(201);
  const login = async (userId: string) => {
    const c = h.client();
    await c.login(userId, `${userId}-password`);
    return c;
  };
  const owner = await login("owner");
  expect((await owner.post("/api/projects", { projectId: PROJECT })).status).toBe(201);
  for (const userId of ["creator", "member"]) expect((await owner.post(`/api/projects/${PROJECT}/members`, { userId })).status).toBe(204);
  configureProject(h.root, PROJECT, modelEntry(h.kit));
  const creator = await login("creator");
  const sessionId = await newSession(creator, { workspace: h.workspace, approvalMode: "allow-all" }, PROJECT);
  const sse = await openStream(creator, sessionId);
  expect((await creator.post(`/api/sessions/${sessionId}/tasks`, text("hello"))).status).toBe(202);
  await untilRunsEnded(sse, 1);
  await sse.close();
  return { h, sessionId, clients: { creator, member: await login("member"), owner, other: await login("other"), admin } };
}

/** What a refused call must leave alone: the trace files' bytes, the index row and the workspace. */
function fingerprint(h: Harness, sessionId: string): string {
  const dir = join(agentPaths(h.root, PROJECT, AGENT).tracesDir, sessionDate(sessionId));
  const traces = existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith(sessionId) && n.endsWith(".jsonl")).sort() : [];
  const hashes = traces.map((n) => `${n}:${createHash("sha256").update(readFileSync(join(dir, n))).digest("hex")}`);
  return JSON.stringify({ hashes, row: h.server.context.stores.sessions.get(sessionId) ?? null, workspace: readdirSync(h.workspace).sort() });
}

describe("the session permission matrix", () => {
  it("has a rule for every session route of the route table, and each route declares the need its rule implies", async () => {
    const h = await startHarness();
    try {
      const routes = sessionRoutes(h.server.routes);
      expect(routes.map((r) => r.operationId).sort()).toEqual(Object.keys(RULES).sort());
      const needs = routes.map((r) => `${r.operationId}:${r.need ?? "read"}`);
      const wanted = routes.map((r) => `${r.operationId}:${RULES[r.operationId] === "act" ? "control" : RULES[r.operationId] === "owner" ? "owner" : "read"}`);
      expect(needs).toEqual(wanted);
    } finally {
      await h.cleanup();
    }
  });

  for (const actor of ACTORS) {
    it(`answers the ${actor === "other" ? "non-member" : actor === "member" ? "other member" : actor} as the matrix says, and a refused write changes nothing`, { timeout: 120_000 }, async () => {
      const { h, clients, sessionId } = await team();
      try {
        const client = clients[actor];
        const problems: string[] = [];
        let refusedWrites = 0;
        for (const route of ordered(sessionRoutes(h.server.routes))) {
          const rule = RULES[route.operationId];
          if (rule === undefined) continue; // the first test names it
          const want = expected(rule, actor);
          const method = route.method.toUpperCase();
          const path = concretePath(route, sessionId);
          const refusedWrite = want !== "allowed" && method !== "GET";
          // An allowed compact (or task) may still run: the delete waits for the session to be idle, as a person would.
          if (route.operationId === "sessions.delete" && want === "allowed") await eventually(async () => (await clients.admin.get(`/api/sessions/${sessionId}`)).body.state === "idle", "the session to be idle");
          const before = refusedWrite ? fingerprint(h, sessionId) : "";
          const body = method === "GET" ? undefined : refusedWrite ? (ACTING_BODIES[route.operationId] ?? {}) : {};
          const res = await client.raw(method, path, body === undefined ? {} : { body });
          let message = "";
          if ((res.headers.get("content-type") ?? "").includes("text/event-stream")) await res.body?.cancel();
          else {
            try {
              message = String(JSON.parse(await res.text())?.error?.message ?? "");
            } catch {
              message = "";
            }
          }
          const hidden = res.status === 404 && [`project ${PROJECT} not found`, `session ${sessionId} not found`, `${path} not found`].includes(message);
          const ok = want === "hidden" ? hidden : want === "forbidden" ? res.status === 403 : res.status !== 401 && res.status !== 403 && !hidden && res.status < 500;
          if (!ok) problems.push(`${method} ${route.path} (${route.operationId}) as ${actor}: expected ${want}, got ${res.status} ${message}`);
          if (refusedWrite) {
            refusedWrites += 1;
            if (fingerprint(h, sessionId) !== before) problems.push(`${method} ${route.path} (${route.operationId}) as ${actor} was refused but changed the session`);
          }
        }
        expect(problems).toEqual([]);
        if (actor === "member" || actor === "other") expect(refusedWrites).toBeGreaterThanOrEqual(14);
        // The allowed ones really acted: the delete at the end moved the session away.
        const deleted = expected("act", actor) === "allowed";
        expect(h.server.context.stores.sessions.get(sessionId) === undefined).toBe(deleted);
      } finally {
        await h.cleanup();
      }
    });
  }
});
