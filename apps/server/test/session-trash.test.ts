// Deleting a session never destroys its only history: it moves to the data root's trash, an
// owner restores it (the same bytes at the same paths, its settings back, listed again), a
// restore onto a session id that exists again is refused, a member may not delete a
// colleague's session at all, and the admin's purge removes only what is older than asked.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { agentPaths, sessionScratchpad, sessionTraceFiles, trashRoot } from "@penguin/core";
import { afterEach, describe, expect, it } from "vitest";
import type { ApiClient } from "./helpers/client.js";
import { configureProject, modelEntry, startHarness, type Harness } from "./helpers/harness.js";
import { newSession, openStream, text, untilRunsEnded } from "./helpers/session.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const PROJECT = "team_project";
const AGENT = "default_agent";
const DAY = 24 * 60 * 60 * 1000;

async function team(harness: Harness): Promise<{ owner: ApiClient; creator: ApiClient; member: ApiClient; admin: ApiClient }> {
  const admin = await harness.admin();
  const clients: Record<string, ApiClient> = {};
  for (const userId of ["owner", "creator", "member"]) {
    expect((await admin.post("/api/admin/users", { userId, password: `${userId}-password` })).status).toBe(201);
    const c = harness.client();
    await c.login(userId, `${userId}-password`);
    clients[userId] = c;
  }
  const owner = clients.owner as ApiClient;
  expect((await owner.post("/api/projects", { projectId: PROJECT })).status).toBe(201);
  for (const userId of ["creator", "member"]) expect((await owner.post(`/api/projects/${PROJECT}/members`, { userId })).status).toBe(204);
  configureProject(harness.root, PROJECT, modelEntry(harness.kit));
  return { owner, creator: clients.creator as ApiClient, member: clients.member as ApiClient, admin };
}

/** Every file of the session in its live places (trace folder and scratchpad), by path relative to the agent, with its sha256. */
function liveFiles(harness: Harness, sid: string): Record<string, string> {
  const agent = agentPaths(harness.root, PROJECT, AGENT);
  const out: Record<string, string> = {};
  const add = (file: string) => (out[relative(agent.agentDir, file)] = createHash("sha256").update(readFileSync(file)).digest("hex"));
  const first = sessionTraceFiles(agent, sid)[0];
  // The session's files beside its trace, but its lease: a lock held by whoever runs it (the
  // server, while the session is loaded), not part of its history.
  if (first !== undefined) for (const name of readdirSync(join(first.file, "..")).filter((n) => n.startsWith(sid) && !n.endsWith(".lease"))) add(join(first.file, "..", name));
  const scratch = sessionScratchpad(agent, sid);
  if (existsSync(scratch)) for (const name of readdirSync(scratch, { recursive: true }) as string[]) if (statSync(join(scratch, name)).isFile()) add(join(scratch, name));
  return out;
}

async function ranSession(harness: Harness, c: ApiClient, title: string): Promise<string> {
  const sid = await newSession(c, { workspace: harness.workspace, approvalMode: "always-ask" }, PROJECT);
  const sse = await openStream(c, sid);
  expect((await c.post(`/api/sessions/${sid}/tasks`, text("remember the tide tables"))).status).toBe(202);
  await untilRunsEnded(sse, 1);
  await sse.close();
  expect((await c.patch(`/api/sessions/${sid}`, { title })).status).toBe(200);
  return sid;
}

const listed = async (c: ApiClient) => ((await c.get(`/api/projects/${PROJECT}/agents/${AGENT}/sessions`)).body.sessions as { id: string }[]).map((s) => s.id);

describe("deleting a session moves it to the trash", () => {
  it("refuses a member's delete of a colleague's session (trace untouched); the creator's goes to the trash and an owner restores it byte for byte", { timeout: 120_000 }, async () => {
    h = await startHarness({ script: [{ text: "noted the tides" }] });
    const { owner, creator, member } = await team(h);
    const sid = await ranSession(h, creator, "Tide tables");
    // The scratchpad (uploads, archived outputs) goes and comes back with the session.
    const scratch = sessionScratchpad(agentPaths(h.root, PROJECT, AGENT), sid);
    mkdirSync(join(scratch, "uploads"), { recursive: true });
    writeFileSync(join(scratch, "uploads", "chart.txt"), "high water 06:12\n");
    const before = liveFiles(h, sid);
    expect(Object.keys(before).some((p) => p.endsWith("_001.jsonl"))).toBe(true);
    const history = (await creator.get(`/api/sessions/${sid}/messages`)).body.messages;

    const refused = await member.del(`/api/sessions/${sid}`);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("forbidden");
    expect(liveFiles(h, sid)).toEqual(before);
    expect(existsSync(trashRoot(h.root))).toBe(false);

    expect((await creator.del(`/api/sessions/${sid}`)).status).toBe(204);
    expect(liveFiles(h, sid)).toEqual({});
    expect((await creator.get(`/api/sessions/${sid}`)).status).toBe(404);
    expect(await listed(owner)).not.toContain(sid);
    // In the trash: one entry under <root>/.trash/<project>/<agent>/, the same bytes.
    const agentTrash = join(trashRoot(h.root), PROJECT, AGENT);
    const entries = readdirSync(agentTrash);
    expect(entries).toHaveLength(1);
    expect(entries[0]?.startsWith(`${sid}-`)).toBe(true);
    const manifest = JSON.parse(readFileSync(join(agentTrash, entries[0] ?? "", "session.json"), "utf8"));
    expect({ sessionId: manifest.sessionId, deletedBy: manifest.deletedBy }).toEqual({ sessionId: sid, deletedBy: "creator" });

    // Members do not see the trash; the owner does, and restores.
    expect((await member.get(`/api/projects/${PROJECT}/trash`)).status).toBe(404);
    expect((await creator.post(`/api/projects/${PROJECT}/trash/${entries[0]}/restore`)).status).toBe(404);
    const trash = await owner.get(`/api/projects/${PROJECT}/trash`);
    expect(trash.status).toBe(200);
    expect(trash.body.sessions.map((s: any) => ({ id: s.id, sessionId: s.sessionId, title: s.title, deletedBy: s.deletedBy }))).toEqual([{ id: entries[0], sessionId: sid, title: "Tide tables", deletedBy: "creator" }]);
    const restored = await owner.post(`/api/projects/${PROJECT}/trash/${entries[0]}/restore`);
    expect(restored.status).toBe(200);
    expect({ id: restored.body.id, title: restored.body.title, approvalMode: restored.body.approvalMode }).toEqual({ id: sid, title: "Tide tables", approvalMode: "always-ask" });
    expect(liveFiles(h, sid)).toEqual(before);
    expect(await listed(member)).toContain(sid);
    expect((await member.get(`/api/sessions/${sid}/messages`)).body.messages).toEqual(history);
    expect(existsSync(agentTrash)).toBe(false);
    // The creator is still its creator: they act on it again, the other member still may not.
    expect((await creator.patch(`/api/sessions/${sid}`, { title: "Tide tables again" })).status).toBe(200);
    expect((await member.patch(`/api/sessions/${sid}`, { title: "mine now" })).status).toBe(403);
    expect((await owner.post(`/api/projects/${PROJECT}/trash/${entries[0]}/restore`)).status).toBe(404);
  });

  it("stays deleted across a restart, though projections.db still holds its rows, and comes back on restore", { timeout: 120_000 }, async () => {
    h = await startHarness({ script: [{ text: "noted" }] });
    const { owner, creator } = await team(h);
    const sid = await ranSession(h, creator, "Ghost");
    // The list catches the projections up: projections.db now holds the session's rows.
    expect(await listed(owner)).toContain(sid);
    expect((await creator.del(`/api/sessions/${sid}`)).status).toBe(204);
    await h.server.close();
    const kit = h.kit;
    h = await startHarness({ root: h.root, adminPassword: h.adminPassword });
    await kit.close();
    // The restarted server follows the projections from the start: the deleted session's rows must not bring it back.
    await h.server.context.projections.refresh();
    const admin = await h.admin();
    expect((await admin.get(`/api/sessions/${sid}`)).status).toBe(404);
    expect(await listed(admin)).not.toContain(sid);
    const [entry] = (await admin.get(`/api/projects/${PROJECT}/trash`)).body.sessions;
    expect(entry.sessionId).toBe(sid);
    expect((await admin.post(`/api/projects/${PROJECT}/trash/${entry.id}/restore`)).status).toBe(200);
    expect((await admin.get(`/api/sessions/${sid}`)).body).toMatchObject({ id: sid, title: "Ghost", hasTrace: true });
    expect(await listed(admin)).toContain(sid);
  });

  it("refuses to restore onto a session id that exists again, and keeps the entry", { timeout: 120_000 }, async () => {
    h = await startHarness({ script: [{ text: "noted" }] });
    const { owner, creator } = await team(h);
    const sid = await ranSession(h, creator, "Twice");
    const download = await owner.raw("GET", `/api/projects/${PROJECT}/agents/${AGENT}/traces/${sid}/download`);
    const trace = Buffer.from(await download.arrayBuffer());
    expect((await owner.del(`/api/sessions/${sid}`)).status).toBe(204);
    // The same session comes back another way (its trace imported again).
    const imported = await owner.post(`/api/projects/${PROJECT}/agents/${AGENT}/traces/import`, { dataBase64: trace.toString("base64") });
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    const [entry] = (await owner.get(`/api/projects/${PROJECT}/trash`)).body.sessions;
    const refused = await owner.post(`/api/projects/${PROJECT}/trash/${entry.id}/restore`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("already_exists");
    expect(refused.body.error.message).toContain(`session ${sid} exists again`);
    expect((await owner.get(`/api/projects/${PROJECT}/trash`)).body.sessions.map((s: any) => s.id)).toEqual([entry.id]);
  });

  it("the admin's purge removes only the entries older than asked; nobody else may purge", { timeout: 120_000 }, async () => {
    h = await startHarness({ script: [{ text: "one" }, { text: "two" }] });
    let { owner, creator, admin } = await team(h);
    const old = await ranSession(h, creator, "Old");
    const recent = await ranSession(h, creator, "Recent");
    const start = h.clock.now();
    expect((await creator.del(`/api/sessions/${old}`)).status).toBe(204);
    // Days pass on the server's clock (sign-ins expire on it too: sign in again).
    const signedIn = async (userId: string) => {
      const c = (h as Harness).client();
      await c.login(userId, `${userId}-password`);
      return c;
    };
    h.clock.set(start + 10 * DAY);
    creator = await signedIn("creator");
    expect((await creator.del(`/api/sessions/${recent}`)).status).toBe(204);
    h.clock.set(start + 12 * DAY);
    owner = await signedIn("owner");
    admin = await h.admin();
    expect((await owner.post("/api/admin/trash/purge?olderThanDays=5")).status).toBe(404);
    const purged = await admin.post("/api/admin/trash/purge?olderThanDays=5");
    expect(purged.status).toBe(200);
    expect(purged.body.purged.map((p: any) => p.id.slice(0, old.length))).toEqual([old]);
    expect(purged.body.kept).toBe(1);
    expect((await owner.get(`/api/projects/${PROJECT}/trash`)).body.sessions.map((s: any) => s.sessionId)).toEqual([recent]);
    // Without an age, everything goes.
    expect((await admin.post("/api/admin/trash/purge")).body.purged.map((p: any) => p.id.slice(0, recent.length))).toEqual([recent]);
    expect((await owner.get(`/api/projects/${PROJECT}/trash`)).body.sessions).toEqual([]);
  });

  it("a deleted project takes its trash with it: a project made later under the same id finds none", { timeout: 120_000 }, async () => {
    h = await startHarness({ script: [{ text: "noted" }] });
    const { owner, creator, member } = await team(h);
    const sid = await ranSession(h, creator, "Before the project went");
    expect((await creator.del(`/api/sessions/${sid}`)).status).toBe(204);
    expect(existsSync(join(trashRoot(h.root), PROJECT))).toBe(true);
    expect((await owner.del(`/api/projects/${PROJECT}`)).status).toBe(204);
    expect(existsSync(join(trashRoot(h.root), PROJECT))).toBe(false);
    expect((await member.post("/api/projects", { projectId: PROJECT })).status).toBe(201);
    expect((await member.get(`/api/projects/${PROJECT}/trash`)).body.sessions).toEqual([]);
  });
});
