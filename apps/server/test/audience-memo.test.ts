// The audience of project events remembered for one burst (auth/audience-memo.ts): a projection pass
// asks the facts connection once per project instead of once per changed row, and a change of who
// can see a project empties the memo, so the next event never reaches a member who was removed
// (the security check: with the invalidation removed, the removed member still gets the event).
// Real parts: a SQLite facts file with its migrations, the real stores, AccessPolicy and UserEventHub.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AccessPolicy } from "../src/auth/access.js";
import { openDatabase, openPostgresFacts } from "../src/db/database.js";
import type { FactsDb } from "../src/db/facts-db.js";
import { ProjectStore } from "../src/db/projects-store.js";
import { SessionCreators } from "../src/db/session-creators-store.js";
import { SessionStore } from "../src/db/sessions-store.js";
import type { Stores } from "../src/db/stores.js";
import { UserStore } from "../src/db/users-store.js";
import type { SseSink } from "../src/http/sse.js";
import { EventIds } from "../src/runtime/sse-channel.js";
import { UserEventHub } from "../src/runtime/user-events.js";
import { startPostgres } from "./helpers/postgres.js";

const dirs: string[] = [];
const open: FactsDb[] = [];
afterEach(() => {
  for (const f of open.splice(0)) f.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function sink(): SseSink & { frames: string[] } {
  const frames: string[] = [];
  return { frames, send: (f) => void frames.push(f), close: () => undefined, closed: false };
}

async function setup(database?: string) {
  const dir = mkdtempSync(join(tmpdir(), "penguin-audience-"));
  dirs.push(dir);
  const facts = database === undefined ? await openDatabase(join(dir, "facts.db")) : await openPostgresFacts(database);
  open.push(facts);
  const users = new UserStore(facts);
  const projects = new ProjectStore(facts);
  // Count the facts reads the audience makes: the memo's point is to make fewer.
  let audienceReads = 0;
  const counted = new Proxy(projects, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (key === "get" || key === "memberIds" || key === "audienceIds") audienceReads++;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const stores = { users, projects: counted, sessions: new SessionStore(facts) } as unknown as Stores;
  const policy = new AccessPolicy(stores, dir, new SessionCreators(facts));
  for (const userId of ["owner", "member", "admin"]) users.insert({ userId, passwordHash: "x", isAdmin: userId === "admin", passwordIsInitial: false, createdAt: 1 });
  projects.insert({ projectId: "p1", ownerUserId: "owner", name: null, createdAt: 1 });
  projects.addMember("p1", "member", 1);
  const hub = new UserEventHub(new EventIds("ep1"), (projectId) => policy.audience(projectId), () => policy.audienceMemo());
  const clients = { owner: sink(), member: sink(), admin: sink() };
  for (const [userId, client] of Object.entries(clients)) hub.channel(userId).subscribe(client);
  return { projects, users, hub, clients, reads: () => audienceReads };
}

describe("audience memo", () => {
  it("asks the facts once per project for a burst of events, not once per event", async () => {
    const { hub, clients, reads } = await setup();
    const audienceOf = hub.audienceMemo();
    const before = reads();
    for (let i = 0; i < 50; i++) hub.toProject("p1", { type: "session_row", n: i }, audienceOf);
    expect(reads() - before).toBe(1);
    expect(clients.member.frames).toHaveLength(50);
    expect(clients.admin.frames).toHaveLength(50);
  });

  it("a member removed mid-burst gets none of the events after the removal", async () => {
    const { projects, hub, clients } = await setup();
    const audienceOf = hub.audienceMemo();
    hub.toProject("p1", { type: "session_row", n: 1 }, audienceOf);
    expect(clients.member.frames).toHaveLength(1);
    projects.removeMember("p1", "member");
    hub.toProject("p1", { type: "session_row", n: 2 }, audienceOf);
    expect(clients.member.frames).toHaveLength(1);
    expect(clients.owner.frames).toHaveLength(2);
    // Added again: the next event reaches them.
    projects.addMember("p1", "member", 2);
    hub.toProject("p1", { type: "session_row", n: 3 }, audienceOf);
    expect(clients.member.frames).toHaveLength(2);
  });

  it("a project handed to another owner, or a user deleted, is seen by the next event", async () => {
    const { projects, users, hub, clients } = await setup();
    const audienceOf = hub.audienceMemo();
    hub.toProject("p1", { type: "usage_totals" }, audienceOf);
    users.delete("admin");
    projects.reassignOwner("owner", "member");
    projects.removeMember("p1", "member");
    hub.toProject("p1", { type: "usage_totals" }, audienceOf);
    expect(clients.admin.frames).toHaveLength(1);
    expect(clients.owner.frames).toHaveLength(1);
    expect(clients.member.frames).toHaveLength(2);
  });

  it("on PostgreSQL, the one audience statement answers owner, members and admins, and nothing for a missing project", async () => {
    const postgres = await startPostgres();
    try {
      const { projects, hub, clients } = await setup(await postgres.createDatabase("audience_memo"));
      const audienceOf = hub.audienceMemo();
      expect(audienceOf("p1").sort()).toEqual(["admin", "member", "owner"]);
      expect(audienceOf("missing")).toEqual([]);
      projects.removeMember("p1", "member");
      hub.toProject("p1", { type: "session_row" }, audienceOf);
      expect(clients.member.frames).toHaveLength(0);
      expect(clients.owner.frames).toHaveLength(1);
      for (const f of open.splice(0)) f.close();
    } finally {
      await postgres.stop();
    }
  });
});
