// The projections' catch-up as a cluster duty: three server processes on one data root and one
// PostgreSQL (a real one, helpers/postgres.ts). Exactly one node holds the `projections` duty (a
// session advisory lock on its facts connection, named in pg_stat_activity after its process)
// and follows the traces in the background; trace lines appended to the root appear in the
// projections once (no line applied twice, however many nodes run); SIGKILL the holder and
// another node takes the duty over and carries on. Every wait polls the event itself (the lock's
// holder, the checkpoints reaching the lines written), never a fixed time.
import { mkdirSync, appendFileSync } from "node:fs";
import { dirname, join } from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { requestBegin, requestEnd, sessionMeta, userText, type OmniMessage } from "@penguin/omnimessage";
import { StartedServers } from "./helpers/child.js";
import { dutyHolders, startCluster } from "./helpers/cluster.js";
import { startHarness, type Harness } from "./helpers/harness.js";
import { startPostgres, type PostgresServer } from "./helpers/postgres.js";

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});
const started = new StartedServers();
afterEach(async () => {
  await started.cleanup();
});

async function query<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** The process ids of the nodes holding the `projections` duty now (helpers/cluster.ts). */
const holdersOfProjections = (url: string): Promise<number[]> => dutyHolders(url, "projections");

const at = (second: number): string => new Date(Date.UTC(2026, 0, 2, 10, 0, second)).toISOString();

/** Appends one turn (4 lines) to a session's trace file in the data root's layout. */
function appendTurn(root: string, sessionId: string, start: number): number {
  const file = join(root, "default_project", "agents", "default_agent", "traces", "2026-01-02", `${sessionId}_001.jsonl`);
  const lines: OmniMessage[] = [
    sessionMeta({ session_id: sessionId, provider: "fake", model_id: "m1", model_context_window: 1000, system_prompt: "", agent_state: "/a", workspace: "/w" }, { at: at(start) }),
    userText(`turn at ${start}`, { at: at(start + 1) }),
    requestBegin({ at: at(start + 2) }),
    requestEnd("completed", undefined, { at: at(start + 3) }),
  ];
  mkdirSync(dirname(file), { recursive: true });
  appendFileSync(file, lines.map((m) => `${JSON.stringify(m)}\n`).join(""));
  return lines.length;
}

/** What the projections hold: events the sessions projection applied, events the timeline listed, and request counts per session. */
async function projected(url: string): Promise<{ applied: number; listed: number; requests: Record<string, number> }> {
  const applied = await query<{ n: string | null }>(url, "select sum(events) as n from penguin_projections.projection_checkpoints where projection = 'sessions'");
  const blocks = await query<{ events: string }>(url, "select events from penguin_projections.timeline_event_blocks");
  const sessions = await query<{ session_id: string; requests: string }>(url, "select session_id, requests from penguin_projections.sessions order by session_id");
  return {
    applied: Number(applied[0]?.n ?? 0),
    listed: blocks.reduce((n, b) => n + (JSON.parse(b.events) as unknown[]).length, 0),
    requests: Object.fromEntries(sessions.map((s) => [s.session_id, Number(s.requests)])),
  };
}

describe("projection catch-up by one node", { timeout: 180_000 }, () => {
  it("one of three nodes holds the duty and brings new trace lines in once; after it is SIGKILLed another takes over", async () => {
    const url = await server.createDatabase("projection_duty");
    const root = started.tempDir("penguin-duty-root-");
    // One after another (helpers/cluster.ts): the first creates the facts tables and the projections schema.
    const nodes = (await startCluster(started, root, url, ["A", "B", "C"])).nodes.map((n) => n.child);
    const pids = nodes.map((n) => n.proc.pid!);

    // Exactly one node holds the duty (taken by the first whose poll asked for it).
    await vi.waitFor(async () => expect(await holdersOfProjections(url)).toHaveLength(1), { timeout: 30_000, interval: 20 });
    const [holder] = await holdersOfProjections(url);
    expect(pids).toContain(holder);

    // Lines appended by no server at all (a CLI run): the holder's background catch-up brings them in, once each.
    let written = 0;
    written += appendTurn(root, "session-2026-01-02-10-00-00-aaaa0001", 0);
    written += appendTurn(root, "session-2026-01-02-10-00-00-aaaa0002", 10);
    written += appendTurn(root, "session-2026-01-02-10-00-00-aaaa0001", 20);
    await vi.waitFor(async () => expect((await projected(url)).applied).toBe(written), { timeout: 30_000, interval: 20 });
    expect(await projected(url)).toEqual({ applied: written, listed: written, requests: { "session-2026-01-02-10-00-00-aaaa0001": 2, "session-2026-01-02-10-00-00-aaaa0002": 1 } });

    // The holder dies without a goodbye: its connection, and the lock with it, goes; another node takes the duty.
    const dead = nodes[pids.indexOf(holder!)]!;
    dead.proc.kill("SIGKILL");
    await dead.exited;
    await vi.waitFor(
      async () => {
        const now = await holdersOfProjections(url);
        expect(now).toHaveLength(1);
        expect(now[0]).not.toBe(holder);
      },
      { timeout: 30_000, interval: 20 },
    );
    const [successor] = await holdersOfProjections(url);
    expect(pids.filter((p) => p !== holder)).toContain(successor);

    written += appendTurn(root, "session-2026-01-02-10-00-00-aaaa0002", 30);
    written += appendTurn(root, "session-2026-01-02-10-00-00-aaaa0003", 40);
    await vi.waitFor(async () => expect((await projected(url)).applied).toBe(written), { timeout: 30_000, interval: 20 });
    expect(await projected(url)).toEqual({
      applied: written,
      listed: written,
      requests: { "session-2026-01-02-10-00-00-aaaa0001": 2, "session-2026-01-02-10-00-00-aaaa0002": 2, "session-2026-01-02-10-00-00-aaaa0003": 1 },
    });
    expect(await holdersOfProjections(url)).toEqual([successor]);
  });

  it("a node without the duty does not catch up in the background: it only reads what the holder wrote", async () => {
    const url = await server.createDatabase("projection_duty_gate");
    const a = await startHarness({ app: { database: url, projectionsPollMs: 20 } });
    const nodes: Harness[] = [a];
    try {
      // A takes the duty before B exists, so the holder is known.
      expect(a.server.context.stores.facts.holdsDuty("projections")).toBe(true);
      const b = await startHarness({ root: a.root, app: { database: url, projectionsPollMs: 20 }, adminPassword: a.adminPassword });
      nodes.push(b);
      // Count each node's catch-ups from now on (B's start-up refresh is behind it), and B's passes.
      const catchUps = [0, 0];
      for (const [i, node] of nodes.entries()) {
        const store = await node.server.context.projections.store();
        const catchUp = store.catchUp.bind(store);
        store.catchUp = (...args) => {
          catchUps[i]! += 1;
          return catchUp(...args);
        };
      }
      let bPasses = 0;
      b.server.context.projections.onCaughtUp(async () => void (bPasses += 1));
      // Hints that another node wrote (a trace notice) reach B's projections as a nudge or a
      // refresh: count them, so the test knows B heard the notice sent below.
      const bProjections = b.server.context.projections;
      let bHints = 0;
      for (const name of ["nudge", "refresh"] as const) {
        const original = bProjections[name].bind(bProjections) as () => unknown;
        (bProjections as unknown as Record<string, () => unknown>)[name] = () => ((bHints += 1), original());
      }

      const sessionId = "session-2026-01-02-10-00-00-bbbb0001";
      const written = appendTurn(a.root, sessionId, 0);
      await vi.waitFor(async () => expect((await projected(url)).applied).toBe(written), { timeout: 30_000, interval: 20 });
      // A runner's announcement of those lines, as a node running the session sends it: B hears
      // it and looks, but the lines are the holder's to bring in.
      await query(url, "select pg_notify($1, $2)", ["penguin_trace_lines", sessionId]);
      await vi.waitFor(() => expect(bHints).toBeGreaterThan(0), { timeout: 30_000, interval: 5 });
      // B has passed twice since the rows came in (so at least one whole pass of it saw the new lines on disk) …
      const seen = bPasses;
      await vi.waitFor(() => expect(bPasses).toBeGreaterThanOrEqual(seen + 2), { timeout: 30_000, interval: 5 });
      // … without catching up once; A did the work.
      expect(catchUps[1]).toBe(0);
      expect(catchUps[0]).toBeGreaterThan(0);
      expect(b.server.context.projections.following).toBe(false);
      expect(a.server.context.projections.following).toBe(true);
    } finally {
      for (const node of nodes.reverse()) await node.cleanup().catch(() => undefined);
    }
  });
});
