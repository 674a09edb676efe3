// The authorization matrix: every route of the route table, called by an anonymous client,
// another user, a project member, the project owner and the admin. Denial is always 404
// (401 only for anonymous callers), and whoever may reach a route is never denied, except
// that a member who did not create a session may not act on it (tasks, approvals, rename,
// delete…: 403; the per-session matrix with the creator is session-permissions.test.ts). Bodies
// are empty on purpose: access is decided before validation, so an allowed caller gets a
// 400 (or a real answer) and a denied one a 404, whatever the body. No route may answer 501.
import { describe, expect, it } from "vitest";
import type { DescribedRoute } from "../src/http/route-table.js";
import { configureProject, modelEntry, startHarness, type Harness } from "./helpers/harness.js";
import type { ApiClient } from "./helpers/client.js";

type Actor = "anonymous" | "other" | "member" | "owner" | "admin";
const ACTORS: Actor[] = ["anonymous", "other", "member", "owner", "admin"];
const PROJECT = "team_project";
const AGENT = "default_agent";

interface Fixture {
  h: Harness;
  clients: Record<Actor, ApiClient>;
  sessionId: string;
}

async function fixture(): Promise<Fixture> {
  const h = await startHarness();
  const admin = await h.admin();
  for (const userId of ["owner", "member", "other", "victim"]) expect((await admin.post("/api/admin/users", { userId, password: `${userId}-password` })).status).toBe(201);
  const login = async (userId: string) => {
    const c = h.client();
    await c.login(userId, `${userId}-password`);
    return c;
  };
  const owner = await login("owner");
  expect((await owner.post("/api/projects", { projectId: PROJECT })).status).toBe(201);
  expect((await owner.post(`/api/projects/${PROJECT}/members`, { userId: "member" })).status).toBe(204);
  configureProject(h.root, PROJECT, modelEntry(h.kit));
  const session = await owner.post(`/api/projects/${PROJECT}/agents/${AGENT}/sessions`, { workspace: h.workspace });
  expect(session.status).toBe(201);
  return { h, sessionId: session.body.id, clients: { anonymous: h.client(), other: await login("other"), member: await login("member"), owner, admin } };
}

function concretePath(route: DescribedRoute, sessionId: string): string {
  const values: Record<string, string> = {
    p: PROJECT,
    a: AGENT,
    id: sessionId,
    sid: sessionId,
    u: "victim",
    idx: "1",
    toolCallId: "call_none",
    followUpId: "fu_none",
    steerId: "st_none",
    pid: "1",
    name: "thing",
    key: "user",
    case: "case1",
    token: "tok",
    file: "nothing.txt",
  };
  return route.path.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, (_m, name: string) => values[name] ?? "x").replace(/\/\*$/, "/rest");
}

/** Destructive calls last, project deletion and logout at the very end. */
function order(routes: readonly DescribedRoute[]): DescribedRoute[] {
  const rank = (r: DescribedRoute) => (r.operationId === "auth.logout" ? 4 : r.operationId === "projects.delete" ? 3 : r.operationId === "admin.deleteUser" || r.operationId === "sessions.delete" ? 2 : r.method === "delete" ? 1 : 0);
  return [...routes].sort((a, b) => rank(a) - rank(b));
}

function expected(route: DescribedRoute, actor: Actor): "allowed" | "unauthorized" | "hidden" | "forbidden" {
  if (route.access === "public") return "allowed";
  if (actor === "anonymous") return "unauthorized";
  switch (route.access) {
    case "user":
      return "allowed";
    case "admin":
      return actor === "admin" ? "allowed" : "hidden";
    case "project":
    case "agent":
    case "session":
      if (actor === "other") return "hidden";
      if (actor === "member") return route.need === "owner" ? "hidden" : route.need === "control" ? "forbidden" : "allowed";
      return "allowed";
  }
}

function isDenial(status: number, message: string, path: string, sessionId: string): boolean {
  if (status !== 404) return false;
  const denials = [`project ${PROJECT} not found`, `agent ${AGENT} not found`, `session ${sessionId} not found`, `${path.split("?")[0]} not found`];
  return denials.includes(message);
}

describe("authorization matrix", () => {
  for (const actor of ACTORS) {
    it(`every route answers ${actor} as the access rules say`, async () => {
      const { h, clients, sessionId } = await fixture();
      try {
        const client = clients[actor];
        const routes = order(h.server.routes);
        expect(routes.length).toBeGreaterThan(90);
        const problems: string[] = [];
        for (const route of routes) {
          const path = concretePath(route, sessionId);
          const method = route.method.toUpperCase();
          const res = await client.raw(method, path, method === "GET" ? {} : { body: {} });
          const type = res.headers.get("content-type") ?? "";
          let message = "";
          if (type.includes("text/event-stream")) await res.body?.cancel();
          else {
            const text = await res.text();
            try {
              message = String(JSON.parse(text)?.error?.message ?? "");
            } catch {
              message = "";
            }
          }
          const want = expected(route, actor);
          const denied = isDenial(res.status, message, path, sessionId);
          const ok =
            want === "unauthorized" ? res.status === 401 : want === "hidden" ? denied : want === "forbidden" ? res.status === 403 : res.status !== 401 && !denied && res.status !== 403 && res.status < 500;
          if (!ok) problems.push(`${method} ${route.path} (${route.operationId}) as ${actor}: expected ${want}, got ${res.status} ${message}`);
        }
        expect(problems).toEqual([]);
      } finally {
        await h.cleanup();
      }
    });
  }
});
