// The read models on `/api/events`: a session run through the SDK beside the server (as the
// CLI runs one) shows up on the user feed as a `session_row` and its project's `usage_totals`
// when the projections commit it; the feed resumes with Last-Event-ID inside one process
// (exactly the events missed), and after a restart exactly the read-model changes missed, read
// back from the read-model log; only when the log cannot answer (its file gone) is an id whose
// projection position exists answered with one `projection_snapshot` of the current rows,
// while ids the projections cannot have reached, and the old `<epoch>-<seq>` form, get
// `resync_required`.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { createAgent } from "@penguin/core";
import { createServerApp, type ServerApp } from "../src/app.js";
import { ManualTicker } from "../src/runtime/clock.js";
import { ApiClient } from "./helpers/client.js";
import { startHarness, type Harness } from "./helpers/harness.js";
import { listenOnLoopback } from "./helpers/socket.js";
import { dataOf, SseReader, type SseEvent } from "./helpers/sse.js";
import { testDatabaseOption } from "./helpers/test-database.js";

let h: Harness | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await h?.cleanup();
  h = undefined;
});

const rowOf = (sid: string) => (e: SseEvent) => e.event === "server_event" && dataOf(e).type === "session_row" && dataOf(e).session.sessionId === sid;

async function sdkTask(root: string, workspace: string, prompt: string): Promise<string> {
  const agent = await createAgent({ root, env: {} });
  const session = await agent.createSession({ workspaceDir: workspace });
  for await (const _m of session.run(prompt)) void _m;
  await session.dispose();
  return session.id;
}

describe("the read models on the user feed", () => {
  it("announces SDK sessions and usage as the projections commit them, and resumes by position within a process and across a restart", { timeout: 120_000 }, async () => {
    h = await startHarness({ script: [{ text: "one", usage: { input: 100, output: 10 } }, { text: "two", usage: { input: 200, output: 20 } }, { text: "three" }], app: { projectionsPollMs: 50 } });
    const admin = await h.admin();
    const feed = new SseReader((await admin.raw("GET", "/api/events")).body!);
    await feed.until((e) => dataOf(e).type === "hello");

    const first = await sdkTask(h.root, h.workspace, "first from the terminal");
    const row = dataOf(await feed.until(rowOf(first)));
    expect(row.session).toMatchObject({ sessionId: first, projectId: "default_project", agentId: "default_agent", requests: 1 });
    expect(row.position).toBeGreaterThan(0);
    const totals = dataOf(await feed.until((e) => dataOf(e).type === "usage_totals" && dataOf(e).totals.requests === 1));
    expect(totals).toMatchObject({ projectId: "default_project", totals: { requests: 1, output: 10 } });
    // A second connection follows what the first is about to miss.
    const live = new SseReader((await admin.raw("GET", "/api/events")).body!);
    await live.until((e) => dataOf(e).type === "hello");
    const lastId = feed.events.filter((e) => e.id !== undefined).at(-1)!.id!;
    expect(lastId).toMatch(new RegExp(`^\\d+\\.${h.server.context.ids.epoch}\\.\\d+$`));
    expect(Number(lastId.split(".")[0])).toBeGreaterThanOrEqual(totals.position);
    await feed.close();

    // Missed while away, in the same process: replayed exactly.
    const second = await sdkTask(h.root, h.workspace, "second from the terminal");
    await live.until(rowOf(second));
    await live.until((e) => dataOf(e).type === "usage_totals" && dataOf(e).totals.requests === 2);
    const seq = (id: string) => Number(id.split(".")[2]);
    const missed = live.events.filter((e) => e.id !== undefined && seq(e.id) > seq(lastId));
    expect(missed.some(rowOf(second))).toBe(true);
    const back = new SseReader((await admin.raw("GET", "/api/events", { headers: { "last-event-id": lastId } })).body!);
    await back.until((e) => e.id === missed.at(-1)!.id);
    expect(back.events.filter((e) => e.id !== undefined).map((e) => [e.id, e.data])).toEqual(missed.map((e) => [e.id, e.data]));
    await live.close();
    await back.close();

    // A restart: the ring is gone, the projection position and the read-model log are not.
    const { root, adminPassword } = h;
    await h.server.close();
    const restart = async (): Promise<ApiClient> => {
      const app: ServerApp = await createServerApp({ root, env: {}, ticker: new ManualTicker(), generateTitles: false, sleep: async () => undefined, workspaceRoots: [tmpdir()], projectionsPollMs: 50, ...(await testDatabaseOption(root)) });
      const listening = await listenOnLoopback(app.app);
      const close = async () => {
        await app.close();
        await listening.close();
      };
      closers.push(close);
      const client = new ApiClient(listening.request);
      await client.signIn("admin", adminPassword);
      return Object.assign(client, { close });
    };
    let c = await restart();
    // Exactly the changes missed since lastId (the second session's row, the totals after it), from the log.
    const resumed = new SseReader((await c.raw("GET", "/api/events", { headers: { "last-event-id": lastId } })).body!);
    await resumed.until((e) => dataOf(e).type === "usage_totals" && dataOf(e).totals.requests === 2);
    const replayed = resumed.events.filter((e) => e.id !== undefined);
    const missedChanges = missed.filter((e) => ["session_row", "usage_totals"].includes(dataOf(e).type));
    expect(replayed.map((e) => e.data)).toEqual(missedChanges.map((e) => e.data));
    expect(replayed.every((e) => /^\d+\.log\.\d+$/.test(e.id!))).toBe(true);
    expect(resumed.events.some((e) => dataOf(e).type === "projection_snapshot" || dataOf(e).type === "resync_required")).toBe(false);
    // And it goes on live from there.
    const third = await sdkTask(root, h.workspace, "third, after the restart");
    await resumed.until(rowOf(third));
    const afterThird = resumed.events.filter((e) => e.id !== undefined).at(-1)!.id!;
    await resumed.close();

    // A session run while no server runs: a client of the old server gets its row after the next restart.
    await (c as ApiClient & { close(): Promise<void> }).close();
    const fourth = await sdkTask(root, h.workspace, "fourth, while the server is down");
    c = await restart();
    const back2 = new SseReader((await c.raw("GET", "/api/events", { headers: { "last-event-id": afterThird } })).body!);
    const fourthRow = dataOf(await back2.until(rowOf(fourth)));
    expect(fourthRow.session).toMatchObject({ sessionId: fourth, requests: 1 });
    expect(back2.events.some((e) => dataOf(e).type === "projection_snapshot")).toBe(false);
    await back2.close();

    // The log gone (it is derived data): the same id is answered with one snapshot of the current rows.
    await (c as ApiClient & { close(): Promise<void> }).close();
    rmSync(join(root, "read-model-feed.jsonl"));
    c = await restart();
    const fromSnapshot = new SseReader((await c.raw("GET", "/api/events", { headers: { "last-event-id": lastId } })).body!);
    const snapshot = dataOf(await fromSnapshot.until((e) => dataOf(e).type === "projection_snapshot"));
    expect(snapshot.lastEventId).toBe(lastId);
    expect(snapshot.sessions.map((s: any) => s.sessionId).sort()).toEqual([first, second, third, fourth].sort());
    expect(snapshot.usage).toEqual([{ projectId: "default_project", totals: expect.objectContaining({ requests: 4 }) }]);
    await fromSnapshot.close();

    for (const stale of [`${snapshot.position + 1000}.abc.1`, "mx4abc-12", "garbage"]) {
      const r = new SseReader((await c.raw("GET", "/api/events", { headers: { "last-event-id": stale } })).body!);
      const answer = await r.until((e) => dataOf(e).type !== "hello");
      expect(dataOf(answer)).toMatchObject({ type: "resync_required", lastEventId: stale });
      await r.close();
    }
  });

  it("gives a fresh connection's hello the id of now, so a client that heard nothing else gets what a restarted server folded", { timeout: 120_000 }, async () => {
    h = await startHarness({ script: [{ text: "while down", usage: { input: 100, output: 10 } }], app: { projectionsPollMs: 50 } });
    const admin = await h.admin();
    const feed = new SseReader((await admin.raw("GET", "/api/events")).body!);
    const hello = await feed.until((e) => dataOf(e).type === "hello");
    expect(hello.id).toMatch(new RegExp(`^\\d+\\.${h.server.context.ids.epoch}\\.\\d+$`));
    await feed.close();
    // A reconnect's hello has no id of its own: the replay after it sets it.
    const again = new SseReader((await admin.raw("GET", "/api/events", { headers: { "last-event-id": hello.id! } })).body!);
    expect((await again.until((e) => dataOf(e).type === "hello")).id).toBeUndefined();
    await again.close();

    const { root, adminPassword, workspace } = h;
    await h.server.close();
    const whileDown = await sdkTask(root, workspace, "run while no server is up");
    const app: ServerApp = await createServerApp({ root, env: {}, ticker: new ManualTicker(), generateTitles: false, sleep: async () => undefined, workspaceRoots: [tmpdir()], projectionsPollMs: 50, ...(await testDatabaseOption(root)) });
    const listening = await listenOnLoopback(app.app);
    closers.push(async () => {
      await app.close();
      await listening.close();
    });
    const c = new ApiClient(listening.request);
    await c.signIn("admin", adminPassword);
    const back = new SseReader((await c.raw("GET", "/api/events", { headers: { "last-event-id": hello.id! } })).body!);
    expect(dataOf(await back.until(rowOf(whileDown))).session).toMatchObject({ sessionId: whileDown, requests: 1 });
    await back.until((e) => dataOf(e).type === "usage_totals" && dataOf(e).totals.requests === 1);
    expect(back.events.some((e) => ["projection_snapshot", "resync_required"].includes(dataOf(e).type))).toBe(false);
    await back.close();
  });
});
