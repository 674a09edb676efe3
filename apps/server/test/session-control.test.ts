// Acting on a session is narrower than reading it: any project member reads and forks a
// colleague's session, but only its creator, a project owner or the admin may run tasks in
// it, change its approval mode, rename or delete it, or answer its approvals (a member could
// otherwise switch a colleague's session to allow-all, or approve the colleague's pending
// command). The full matrix is session-permissions.test.ts. And the Host allowlist: requests
// naming any other host than the loopback names or a configured one are refused (DNS
// rebinding), whatever the route.
import { afterEach, describe, expect, it } from "vitest";
import type { ApiClient } from "./helpers/client.js";
import { configureProject, modelEntry, startHarness, type Harness } from "./helpers/harness.js";
import { newSession } from "./helpers/session.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const PROJECT = "team_project";

async function team(harness: Harness): Promise<{ owner: ApiClient; member: ApiClient; admin: ApiClient }> {
  const admin = await harness.admin();
  for (const userId of ["owner", "member"]) expect((await admin.post("/api/admin/users", { userId, password: `${userId}-password` })).status).toBe(201);
  const owner = harness.client();
  await owner.login("owner", "owner-password");
  const member = harness.client();
  await member.login("member", "member-password");
  expect((await owner.post("/api/projects", { projectId: PROJECT })).status).toBe(201);
  expect((await owner.post(`/api/projects/${PROJECT}/members`, { userId: "member" })).status).toBe(204);
  configureProject(harness.root, PROJECT, modelEntry(harness.kit));
  return { owner, member, admin };
}

describe("who controls a session", () => {
  it("lets the creator, the owner and the admin change the approval mode, answer approvals, rename, run and delete, not another member", async () => {
    h = await startHarness();
    const { owner, member, admin } = await team(h);
    const ownersSession = await newSession(owner, { workspace: h.workspace }, PROJECT);
    const membersSession = await newSession(member, { workspace: h.workspace }, PROJECT);

    expect((await owner.patch(`/api/sessions/${ownersSession}`, { approvalMode: "always-ask" })).status).toBe(200);
    const refused = await member.patch(`/api/sessions/${ownersSession}`, { approvalMode: "allow-all" });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("forbidden");
    // The mode is the trace's (read back through the API from the fold or the projection).
    expect((await owner.get(`/api/sessions/${ownersSession}`)).body.approvalMode).toBe("always-ask");
    expect((await member.post(`/api/sessions/${ownersSession}/approvals/call_x`, { decision: "allow" })).status).toBe(403);
    // Every other change is the creator's, an owner's or the admin's too: renaming, running a task, deleting.
    expect((await member.patch(`/api/sessions/${ownersSession}`, { title: "renamed by a member" })).status).toBe(403);
    expect((await owner.get(`/api/sessions/${ownersSession}`)).body.title).not.toBe("renamed by a member");
    expect((await member.post(`/api/sessions/${ownersSession}/tasks`, { input: [{ type: "text", text: "run this" }] })).status).toBe(403);
    expect((await member.del(`/api/sessions/${ownersSession}`)).status).toBe(403);

    expect((await member.patch(`/api/sessions/${membersSession}`, { approvalMode: "read-only" })).status).toBe(200);
    expect((await owner.patch(`/api/sessions/${membersSession}`, { approvalMode: "always-ask" })).status).toBe(200);
    expect((await admin.patch(`/api/sessions/${ownersSession}`, { approvalMode: "read-only" })).status).toBe(200);
    // Allowed callers reach the approval itself (no such call pending: not a 403).
    expect((await member.post(`/api/sessions/${membersSession}/approvals/call_x`, { decision: "deny" })).status).not.toBe(403);
    expect((await owner.post(`/api/sessions/${ownersSession}/approvals/call_x`, { decision: "deny" })).status).not.toBe(403);

  });
});

describe("the Host allowlist", () => {
  it("answers the loopback names and configured names, and refuses any other Host before anything else", async () => {
    h = await startHarness({ app: { allowedHosts: ["penguin.lan"] } });
    for (const host of ["localhost", "127.0.0.1", "[::1]", "localhost:7364", "penguin.lan:8080", "PENGUIN.LAN"]) {
      expect((await h.request(`http://${host}/api/version`)).status, host).toBe(200);
    }
    for (const url of ["http://evil.example/api/version", "http://evil.example/", "http://127.0.0.1.evil.example/api/auth/login", "http://attacker.test/preview/x/index.html"]) {
      const answer = await h.request(url, url.endsWith("login") ? { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ userId: "admin", password: h.adminPassword }) } : {});
      expect(answer.status, url).toBe(403);
      const body = await answer.json();
      expect(body.error.code).toBe("bad_host");
      expect(answer.headers.get("set-cookie")).toBeNull();
    }
  });
});
