// Concurrency over a real socket: 20 sessions run scripted tasks at once, each followed by
// two subscribers. A second task on a busy session gets 409, a third is queued and runs
// after; every subscriber receives every event, in order, with strictly increasing ids.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestkit, type Testkit } from "@penguin/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { ManualTicker } from "../src/runtime/clock.js";
import { startServer, type RunningServer } from "../src/start.js";
import { ApiClient } from "./helpers/client.js";
import { configureProject, modelEntry } from "./helpers/harness.js";
import { enqueueSmart, endsWithToolResult, lastUserText } from "./helpers/model.js";
import { newSession, openStream, text, untilRunsEnded, untilServerEvent } from "./helpers/session.js";
import { dataOf, messagesOf, seqOf } from "./helpers/sse.js";

const SESSIONS = 20;
let kit: Testkit | undefined;
let server: RunningServer | undefined;
const dirs: string[] = [];

afterEach(async () => {
  await server?.close();
  await kit?.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

// 20 real sessions on one busy 2-core machine can take well over the default 5 s; the test
// waits on events, so only this upper bound grows.
describe("20 sessions at once", { timeout: 120_000 }, () => {
  it("keeps one task per session, queues follow-ups, and delivers every event to every subscriber in order", async () => {
    kit = await startTestkit();
    enqueueSmart(kit, SESSIONS * 4, (r) => {
      const prompt = lastUserText(r);
      if (endsWithToolResult(r)) return { text: `finished ${prompt}`, chunkSize: 3, delayMs: 1 };
      if (prompt.startsWith("again")) return { text: `again ${prompt}`, chunkSize: 3 };
      return { toolCalls: [{ name: "write_file", arguments: { file_path: `${prompt}.txt`, content: prompt } }] };
    });
    const root = mkdtempSync(join(tmpdir(), "penguin-conc-"));
    const workspace = mkdtempSync(join(tmpdir(), "penguin-conc-ws-"));
    dirs.push(root, workspace);
    configureProject(root, "default_project", modelEntry(kit));
    server = await startServer({ root, port: 0, env: {}, sleep: async () => undefined, app: { ticker: new ManualTicker(), generateTitles: false, workspaceRoots: [workspace] } });
    const c = new ApiClient((url, init) => fetch(url, init), server.url);
    await c.signIn("admin", readFileSync(join(root, "initial-admin-password"), "utf8").trim());

    const sessions = await Promise.all(
      Array.from({ length: SESSIONS }, async (_v, i) => {
        const sid = await newSession(c, { workspace, approvalMode: "always-ask" });
        return { i, sid, a: await openStream(c, sid), b: await openStream(c, sid) };
      }),
    );
    await Promise.all(sessions.map(({ i, sid }) => c.post(`/api/sessions/${sid}/tasks`, text(`task${i}`))));
    const asks = await Promise.all(sessions.map(({ a }) => untilServerEvent(a, "approval_request")));

    // Every session is busy (parked on its approval): a second task is refused or queued.
    const seconds = await Promise.all(sessions.map(({ sid }) => c.post(`/api/sessions/${sid}/tasks`, text("refused"))));
    expect(seconds.map((s) => s.status)).toEqual(Array(SESSIONS).fill(409));
    expect(seconds.every((s) => s.body.error.code === "task_in_progress")).toBe(true);
    const thirds = await Promise.all(sessions.map(({ i, sid }) => c.post(`/api/sessions/${sid}/tasks`, { ...text(`again${i}`), queueIfBusy: true })));
    expect(thirds.every((t) => t.status === 202 && t.body.status === "queued")).toBe(true);

    await Promise.all(sessions.map(({ sid }, k) => c.post(`/api/sessions/${sid}/approvals/${dataOf(asks[k]!).toolCallId}`, { decision: "allow" })));
    await Promise.all(sessions.flatMap(({ a, b }) => [untilRunsEnded(a, 2), untilRunsEnded(b, 2)]));

    for (const { i, a, b } of sessions) {
      const idsA = a.events.filter((e) => e.id !== undefined);
      const idsB = b.events.filter((e) => e.id !== undefined);
      expect(idsB.map((e) => e.id)).toEqual(idsA.map((e) => e.id));
      expect(idsB.map((e) => e.data)).toEqual(idsA.map((e) => e.data));
      const seqs = idsA.map((e) => seqOf(e.id));
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
      expect(new Set(seqs).size).toBe(seqs.length);
      const texts = messagesOf(a.events).filter((m) => m.payload?.type === "text").map((m) => `${m.payload.role}:${m.payload.text}`);
      expect(texts).toEqual([`user:task${i}`, `assistant:finished task${i}`, `user:again${i}`, `assistant:again again${i}`]);
      const partial = messagesOf(a.events).filter((m) => m.payload?.type === "partial_text" && m.payload.event_type === "delta").map((m) => m.payload.text).join("");
      expect(partial).toBe(`finished task${i}again again${i}`);
      expect(readFileSync(join(workspace, `task${i}.txt`), "utf8")).toBe(`task${i}`);
      await a.close();
      await b.close();
    }
    expect(kit.violations).toEqual([]);
  });
});
