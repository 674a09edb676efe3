// `/api/events`: each user's own feed. It greets with `hello`, carries session events of the
// projects the user can see (and only those), and resumes with Last-Event-ID. Also: session
// creation errors from core come back as 400s with core's advice.
import { afterEach, describe, expect, it } from "vitest";
import { configureProject, modelEntry, startHarness, type Harness } from "./helpers/harness.js";
import { newSession } from "./helpers/session.js";
import { dataOf, SseReader } from "./helpers/sse.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

describe("the user feed", () => {
  it("tells the audience of a project about its sessions, and nobody else", async () => {
    h = await startHarness();
    const admin = await h.admin();
    await admin.post("/api/admin/users", { userId: "alice", password: "alice-password" });
    await admin.post("/api/admin/users", { userId: "bob", password: "bob-password" });
    await admin.post("/api/projects/default_project/members", { userId: "alice" });
    const feed = async (userId: string) => {
      const c = h!.client();
      await c.login(userId, `${userId}-password`);
      const res = await c.raw("GET", "/api/events");
      return new SseReader(res.body!);
    };
    const alice = await feed("alice");
    const bob = await feed("bob");
    const adminFeed = new SseReader((await admin.raw("GET", "/api/events")).body!);
    const sid = await newSession(admin, { workspace: h.workspace });
    for (const r of [alice, adminFeed]) {
      const created = await r.until((e) => dataOf(e).type === "session_created");
      expect(dataOf(created).session.id).toBe(sid);
    }
    expect(dataOf(alice.events[0]!)).toMatchObject({ type: "hello", userId: "alice", epoch: h.server.context.ids.epoch });
    // bob's feed only ever says hello: send him something of his own to know his feed is live.
    await admin.post("/api/projects", { projectId: "admins_only" });
    const bobClient = h.client();
    await bobClient.login("bob", "bob-password");
    configureProject(h.root, "bob_default_project", modelEntry(h.kit));
    await newSession(bobClient, { workspace: h.workspace }, "bob_default_project");
    const own = await bob.until((e) => dataOf(e).type === "session_created");
    expect(dataOf(own).session.projectId).toBe("bob_default_project");
    expect(bob.events.filter((e) => dataOf(e).type === "session_created")).toHaveLength(1);

    // Reconnecting with the last id replays what was missed.
    const lastId = alice.events.filter((e) => e.id !== undefined).at(-1)?.id;
    await alice.close();
    await admin.patch(`/api/sessions/${sid}`, { title: "Renamed" });
    const c = h.client();
    await c.login("alice", "alice-password");
    const back = new SseReader((await c.raw("GET", "/api/events", { headers: { "last-event-id": lastId ?? "" } })).body!);
    const updated = await back.until((e) => dataOf(e).type === "session_updated");
    expect(dataOf(updated).session.title).toBe("Renamed");
    for (const r of [bob, adminFeed, back]) await r.close();
  });
});

describe("creating sessions", () => {
  it("answers core's configuration errors with 400 and its advice", async () => {
    h = await startHarness();
    const c = await h.admin();
    const half = await c.post("/api/projects/default_project/agents/default_agent/sessions", { provider: "testkit" });
    expect(half.status).toBe(400);
    expect(half.body.error.message).toContain("pair");
    const unknown = await c.post("/api/projects/default_project/agents/default_agent/sessions", { provider: "nope", modelId: "x" });
    expect(unknown.body.error.message).toContain("penguin config model add");
    const noWs = await c.post("/api/projects/default_project/agents/default_agent/sessions", { workspace: "/definitely/not/here" });
    expect(noWs.status).toBe(400);
    const bad = await c.post("/api/projects/default_project/agents/default_agent/sessions", { approvalMode: "sometimes" });
    expect(bad.body.error.field).toBe("approvalMode");
  });
});
