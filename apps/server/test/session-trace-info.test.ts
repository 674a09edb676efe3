// What the session API reads from the traces rather than from facts.db (run source, latest
// event, trace presence, a replay's recording): from the sessions projection when it has the
// session, else from the session's trace header (a session created a moment ago), and from the
// header too when the projection cannot be read (reported, never fatal).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { agentPaths, sessionDate, traceFilePath } from "@penguin/core";
import { eventMessage, sessionMeta } from "@penguin/omnimessage";
import { LiveProjectionRunner, projectionsFile } from "@penguin/projections-runner";
import { SERVER_PROJECTIONS } from "../src/services/projections.js";
import { NO_TRACE_INFO, sessionTraceInfo } from "../src/services/session-trace-info.js";

const dirs: string[] = [];
const runners: LiveProjectionRunner[] = [];
afterEach(async () => {
  for (const r of runners.splice(0)) await r.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempRoot = () => {
  const dir = mkdtempSync(join(tmpdir(), "penguin-trace-info-"));
  dirs.push(dir);
  return dir;
};
const startRunner = async (root: string) => {
  const runner = await LiveProjectionRunner.start({ root, file: projectionsFile(root), projections: SERVER_PROJECTIONS, pollIntervalMs: 60_000 });
  runners.push(runner);
  return runner;
};

const AT = "2026-07-18T11:00:00.000Z";
const LATER = "2026-07-18T11:05:00.000Z";
const scheduled = "session-2026-07-18-11-00-00-00000001";
const replay = "session-2026-07-18-11-00-00-00000002";
const recorded = "session-2026-07-01-09-00-00-000000aa";
const traceless = "session-2026-07-18-11-00-00-00000003";

function writeTrace(root: string, sessionId: string, meta: { source?: "schedule" | "replay"; replay_of?: string }, later: boolean): void {
  const file = traceFilePath(agentPaths(root, "default_project", "default_agent"), sessionDate(sessionId), sessionId, 1);
  mkdirSync(dirname(file), { recursive: true });
  const header = sessionMeta({ session_id: sessionId, provider: "p", model_id: "m", model_context_window: 1000, system_prompt: "", agent_state: "/x", workspace: "/y", ...meta }, { at: AT });
  const lines = later ? [header, eventMessage({ type: "request_begin" }, { at: LATER })] : [header];
  writeFileSync(file, lines.map((m) => `${JSON.stringify(m)}\n`).join(""));
}

describe("a session's trace info", () => {
  it("comes from the trace header while the projection has no row, and from the projection once it has one", async () => {
    const root = tempRoot();
    writeTrace(root, scheduled, { source: "schedule" }, true);
    writeTrace(root, replay, { source: "replay", replay_of: recorded }, false);
    const agent = agentPaths(root, "default_project", "default_agent");
    const reported: unknown[] = [];
    const ids = [scheduled, replay, traceless];

    // A projection of another (empty) root knows none of them: the headers answer.
    const empty = await startRunner(tempRoot());
    const fromHeaders = await sessionTraceInfo(empty, agent, ids, (e) => reported.push(e));
    expect(fromHeaders.get(scheduled)).toEqual({ ...NO_TRACE_INFO, hasTrace: true, source: "schedule", lastEventAt: null, forkedFrom: null, replayOf: null });
    expect(fromHeaders.get(replay)).toEqual({ ...NO_TRACE_INFO, hasTrace: true, source: "replay", lastEventAt: null, forkedFrom: null, replayOf: recorded });
    expect(fromHeaders.get(traceless)).toEqual(NO_TRACE_INFO);

    // The projection of this root has folded both traces: their latest events are known.
    const live = await startRunner(root);
    const projected = await sessionTraceInfo(live, agent, ids, (e) => reported.push(e), { byAgent: true });
    expect(projected.get(scheduled)).toEqual({ ...NO_TRACE_INFO, hasTrace: true, source: "schedule", lastEventAt: Date.parse(LATER), forkedFrom: null, replayOf: null });
    expect(projected.get(replay)).toEqual({ ...NO_TRACE_INFO, hasTrace: true, source: "replay", lastEventAt: Date.parse(AT), forkedFrom: null, replayOf: recorded });
    expect(projected.get(traceless)).toEqual(NO_TRACE_INFO);
    expect(reported).toEqual([]);
  });

  it("falls back to the trace headers, reporting the error, when the projection cannot be read", async () => {
    const root = tempRoot();
    writeTrace(root, scheduled, { source: "schedule" }, true);
    const agent = agentPaths(root, "default_project", "default_agent");
    const runner = await startRunner(root);
    (await runner.store()).sqlite.close();
    const reported: unknown[] = [];
    const infos = await sessionTraceInfo(runner, agent, [scheduled], (e) => reported.push(e));
    expect(reported).toHaveLength(1);
    expect(infos.get(scheduled)).toEqual({ ...NO_TRACE_INFO, hasTrace: true, source: "schedule", lastEventAt: null, forkedFrom: null, replayOf: null });
  });
});
