// The start-up trace scan (services/session-index.ts) over a real facts.db and data root: a
// session the index does not know is indexed from its header; one it knows is not read again;
// a row with no trace in its project's folder is dropped (facts.db keeps no flag for that, the
// folder is asked), while the rows of a project whose folder is missing are kept until a full
// reindex.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { agentPaths, sessionDate, traceFilePath } from "@penguin/core";
import { sessionMeta, userText } from "@penguin/omnimessage";
import { LiveProjectionRunner, projectionsFile } from "@penguin/projections-runner";
import { openDatabase } from "../src/db/database.js";
import { createStores } from "../src/db/stores.js";
import { SERVER_PROJECTIONS } from "../src/services/projections.js";
import { indexTraces } from "../src/services/session-index.js";

const dirs: string[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const traced = "session-2026-07-18-11-00-00-00000001";
const neverTraced = "session-2026-07-18-11-00-00-00000002";
const elsewhere = "session-2026-07-18-11-00-00-00000003";

/** A real facts.db and projections runner under `root`, closed after the test, with the admin user. */
async function storesWithAdmin(root: string): Promise<ReturnType<typeof createStores>> {
  const facts = await openDatabase(join(root, "facts.db"));
  const runner = await LiveProjectionRunner.start({ root, file: projectionsFile(root), projections: SERVER_PROJECTIONS, pollIntervalMs: 60_000 });
  cleanups.push(async () => {
    await runner.stop();
    facts.sqlite.close();
  });
  const stores = createStores(facts, runner);
  stores.users.insert({ userId: "admin", passwordHash: "h", isAdmin: true, passwordIsInitial: false, createdAt: 1 });
  return stores;
}

describe("the start-up trace scan", () => {
  it("indexes unknown traced sessions once, drops rows without a trace in a scanned project, and keeps a missing project's rows until a full reindex", async () => {
    const root = mkdtempSync(join(tmpdir(), "penguin-index-"));
    dirs.push(root);
    const file = traceFilePath(agentPaths(root, "on_disk", "default_agent"), sessionDate(traced), traced, 1);
    mkdirSync(dirname(file), { recursive: true });
    const header = sessionMeta({ session_id: traced, provider: "p", model_id: "m", model_context_window: 1000, system_prompt: "", agent_state: "/x", workspace: "/w" }, { at: "2026-07-18T11:00:00.000Z" });
    writeFileSync(file, [header, userText("tidy the docs folder", { at: "2026-07-18T11:00:01.000Z" })].map((m) => `${JSON.stringify(m)}\n`).join(""));

    const stores = await storesWithAdmin(root);
    stores.projects.insert({ projectId: "gone", ownerUserId: "admin", name: null, createdAt: 1 });
    const row = { provider: "p", modelId: "m", workspace: "/w", createdAt: 5 };
    stores.sessions.insert({ ...row, sessionId: elsewhere, projectId: "gone", agentId: "default_agent" });

    const first = indexTraces(root, stores, { full: false, owner: "admin", now: 10 });
    expect(first).toEqual({ scanned: 1, indexed: 1, dropped: 0 });
    // The row says where the session is; its title (the first prompt here) is the trace's, read
    // from the sessions projection, never written into the index.
    expect(stores.sessions.get(traced)).toEqual({ sessionId: traced, projectId: "on_disk", agentId: "default_agent", provider: "p", modelId: "m", workspace: "/w", createdAt: expect.any(Number) });

    // A known session is not read again.
    stores.sessions.insert({ ...row, sessionId: neverTraced, projectId: "on_disk", agentId: "default_agent" });
    expect(indexTraces(root, stores, { full: false, owner: "admin", now: 20 })).toEqual({ scanned: 1, indexed: 0, dropped: 1 });
    expect(stores.sessions.get(traced)?.projectId).toBe("on_disk");
    expect(stores.sessions.get(neverTraced)).toBeUndefined();
    expect(stores.sessions.get(elsewhere)).toBeDefined();

    expect(indexTraces(root, stores, { full: true, owner: "admin", now: 30 })).toEqual({ scanned: 1, indexed: 1, dropped: 1 });
    expect(stores.sessions.get(elsewhere)).toBeUndefined();
    expect(stores.sessions.get(traced)?.projectId).toBe("on_disk");
  });

  it("given a session the trace follower indexed from its header first, when the server records the session it created, then its row is updated, not duplicated, and holds no approval mode to fail open with", async () => {
    const root = mkdtempSync(join(tmpdir(), "penguin-index-race-"));
    dirs.push(root);
    const stores = await storesWithAdmin(root);
    stores.projects.insert({ projectId: "p1", ownerUserId: "admin", name: null, createdAt: 1 });
    stores.sessions.upsertFromTrace({ sessionId: traced, projectId: "p1", agentId: "default_agent", provider: "p", modelId: "m", workspace: "/w", createdAt: 5 });
    expect(stores.sessions.get(traced)).toMatchObject({ createdAt: 5 });

    stores.sessions.insert({ sessionId: traced, projectId: "p1", agentId: "default_agent", provider: "p2", modelId: "m2", workspace: "/w2", createdAt: 6 });
    // The approval mode (and every other session fact) is the trace's: the row has no column for one.
    expect(stores.sessions.get(traced)).toEqual({ sessionId: traced, projectId: "p1", agentId: "default_agent", provider: "p2", modelId: "m2", workspace: "/w2", createdAt: 6 });
  });
});
