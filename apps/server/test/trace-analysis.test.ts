// Trace analysis from a real run: a failed request that is retried, a tool call, the final
// answer, then a second task. Both routes (agent trace browser and session) answer the same
// figures: per-request status, retry, usage, context and cache, tool calls and duration;
// per-task counts; totals. The routes answer from the timeline projection; given the same
// sessions, its figures equal core's summary of the JSONL (analyzeSession), for that run and
// for every recorded session shipped in fixtures/traces (tools and a denial, a compaction
// across two files, a subagent, an abort, the demo).
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentPaths, createAgent, sessionDate } from "@penguin/core";
import { rebuildProjections, ProjectionStore } from "@penguin/projections-runner";
import { sessionAnalysis } from "@penguin/projections-timeline";
import { afterEach, describe, expect, it } from "vitest";
import { analyzeSession } from "../src/services/trace-analysis.js";
import { SERVER_PROJECTIONS } from "../src/services/projections.js";
import { startHarness, type Harness } from "./helpers/harness.js";
import { newSession, openStream, text, untilRunsEnded } from "./helpers/session.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

describe("trace analysis", () => {
  it("reports requests, retries, cache figures and tasks the same on both routes", async () => {
    h = await startHarness({
      script: [
        { text: "x", fault: { kind: "http", status: 500 } },
        { toolCalls: [{ name: "write_file", arguments: { file_path: "a.txt", content: "a" } }], usage: { input: 1000, cached: 0, output: 20 } },
        { text: "written", usage: { input: 1100, cached: 1000, output: 5 } },
        { text: "second answer", usage: { input: 1200, cached: 1100, output: 7 } },
      ],
    });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace, approvalMode: "allow-all" });
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("write a.txt"));
    await untilRunsEnded(sse, 1);
    await c.post(`/api/sessions/${sid}/tasks`, text("and again"));
    await untilRunsEnded(sse, 2);
    await sse.close();

    const bySession = await c.get(`/api/sessions/${sid}/analysis`);
    expect(bySession.status).toBe(200);
    const byAgent = await c.get(`/api/projects/default_project/agents/default_agent/traces/${sid}/analysis`);
    expect(byAgent.body).toEqual(bySession.body);
    const a = bySession.body;
    expect(a).toMatchObject({ sessionId: sid, model: { provider: "testkit", modelId: "scripted-model" }, status: "done", files: 1 });
    expect(a.requests.map((r: any) => [r.task, r.status, r.toolCalls])).toEqual([
      [1, "failed", 0],
      [1, "completed", 1],
      [1, "completed", 0],
      [2, "completed", 0],
    ]);
    expect(a.requests[0].retryInMs).toBeGreaterThan(0);
    expect(a.requests[2]).toMatchObject({ context: 1100, cacheRead: 1000, cacheWrite: 100, output: 5, cacheHitRate: 1000 / 1100 });
    for (const r of a.requests) expect(r.durationMs).toEqual(expect.any(Number));
    expect(a.tasks).toEqual([
      expect.objectContaining({ n: 1, prompt: "write a.txt", status: "done", requests: 3 }),
      expect.objectContaining({ n: 2, prompt: "and again", status: "done", requests: 1 }),
    ]);
    expect(a.totals).toMatchObject({ requests: 4, retries: 1, toolCalls: 1, compactions: 0, output: 32 });
    // What the routes answered is what a reading of the JSONL gives.
    expect(a).toEqual({ ...analyzeSession(agentPaths(h.root, "default_project", "default_agent"), sid), timeline: a.timeline });
    expect((await c.get(`/api/projects/default_project/agents/default_agent/traces/session-2026-01-01-00-00-00-00000000/analysis`)).status).toBe(404);
  });
});

describe("trace analysis from the timeline projection", () => {
  it("equals the summary read from the JSONL for every recorded session", async () => {
    const fixtures = join(import.meta.dirname, "..", "..", "..", "fixtures", "traces");
    const root = mkdtempSync(join(tmpdir(), "penguin-analysis-"));
    try {
      const agent = await createAgent({ root, env: {} });
      const sessions: string[] = [];
      for (const name of readdirSync(fixtures, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name)) {
        for (const file of readdirSync(join(fixtures, name)).filter((f) => f.endsWith(".jsonl"))) {
          const sessionId = file.slice(0, file.lastIndexOf("_"));
          if (!sessions.includes(sessionId)) sessions.push(sessionId);
          cpSync(join(fixtures, name, file), join(agent.paths.tracesDir, sessionDate(sessionId), file));
        }
      }
      expect(sessions.length).toBeGreaterThanOrEqual(6);
      const file = join(root, "projections.db");
      await rebuildProjections({ root, file, projections: SERVER_PROJECTIONS });
      const store = await ProjectionStore.open({ file, root, projections: SERVER_PROJECTIONS });
      try {
        for (const sessionId of sessions) {
          const stored = await sessionAnalysis(store.db, sessionId);
          const { sessionId: _id, files: _files, ...fromJsonl } = analyzeSession(agent.paths, sessionId);
          expect(stored, sessionId).toEqual(fromJsonl);
        }
      } finally {
        await store.close();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
