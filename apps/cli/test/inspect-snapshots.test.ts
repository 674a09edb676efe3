// `penguin inspect --at N` on a session long enough for the timeline's snapshots: the built
// CLI catches the data root's projections.db up and starts from the nearest snapshot. Given a
// 1,180-record session (tool calls with approvals, a denial, steering, a compaction that
// rotates the trace), when inspect is asked at records on and around the snapshots, by count
// and by position, and for a diff, then it prints what the in-process fold from the start
// answers, and projections.db holds the snapshots it started from.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent, loadRecording, newSessionId, sessionDate, traceFilePath, TraceWriter, type Agent } from "@penguin/core";
import {
  approvalDecision,
  assistantText,
  compactionBegin,
  compactionEnd,
  requestBegin,
  requestEnd,
  tokenUsage,
  toolCall,
  toolCallOutput,
  userText,
  wrapMarker,
  type OmniMessage,
} from "@penguin/omnimessage";
import { ensureBuilt } from "./helpers/build.js";
import { runCli } from "./helpers/run-cli.js";
import { cleanEnv } from "./helpers/world.js";

let root: string;
let agent: Agent;
let sessionId: string;
const usage = (n: number) => ({ cache_read: n, cache_write: 20, output: 4, total: n + 24 });

function turn(i: number): OmniMessage[] {
  const id = `call_${i}`;
  const call = toolCall({ name: i % 2 === 0 ? "read_file" : "exec_command", arguments: JSON.stringify(i % 2 === 0 ? { file_path: `notes${i % 3}.txt` } : { cmd: `echo ${i}` }), tool_call_id: id });
  const decision = approvalDecision(i % 9 === 4 ? "deny" : "allow", id);
  const steer = i % 13 === 7 ? [userText(wrapMarker("user_steering", `keep it short ${i}`))] : [];
  return [requestBegin(), userText(`task ${i}`), ...steer, assistantText(`on it ${i}`), call, decision, requestEnd("completed"), tokenUsage(usage(i), usage(i)), toolCallOutput({ tool_call_id: id, output: `result ${i}`, stop_reason: i % 9 === 4 ? "failed" : "completed" })];
}

beforeAll(async () => {
  await ensureBuilt();
  root = mkdtempSync(join(tmpdir(), "penguin-inspect-snapshots-"));
  agent = await createAgent({ root, env: {} });
  sessionId = newSessionId(new Date());
  const meta = { session_id: sessionId, provider: "p", model_id: "m", model_context_window: 200_000, system_prompt: "you help", agent_state: agent.paths.agentState, workspace: root };
  const writer = new TraceWriter({ fileFor: (i) => traceFilePath(agent.paths, sessionDate(sessionId), sessionId, i), index: 1, meta, existing: false, fsync: false });
  writer.setTools([]);
  for (let i = 0; i < 145; i++) {
    for (const m of turn(i)) writer.append(m);
    if (i === 70) {
      writer.append(compactionBegin({ reason: "manual", mode: "summarize", context: 50_000, turns: i }));
      writer.append(requestBegin());
      writer.append(assistantText("[summary]seventy tasks done[/summary]"));
      writer.append(requestEnd("completed"));
      writer.append(compactionEnd({ reason: "manual", mode: "summarize", status: "completed" }));
      writer.rotate();
    }
  }
  writer.close();
}, 300_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const env = () => cleanEnv({ PENGUIN_HOME: root });
/** The state as JSON without envelope timestamps (a resume's placeholders are stamped per call). */
const timeless = (v: unknown) => JSON.parse(JSON.stringify(v, (key, value: unknown) => (key === "timestamp" ? undefined : value))) as Record<string, unknown>;

describe("penguin inspect from the timeline's snapshots", { timeout: 120_000 }, () => {
  it("prints at any record what the fold from the start answers, and the snapshots are in projections.db", async () => {
    const recording = loadRecording({ paths: agent.paths }, sessionId);
    expect(recording.events.length).toBeGreaterThan(1100);
    const asked = [1, 499, 500, 501, 777, 1001, recording.events.length];
    for (const n of asked) {
      const run = await runCli(["inspect", sessionId, "--at", String(n), "--json"], { env: env() });
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      const { type, ...printed } = JSON.parse(run.stdout) as Record<string, unknown>;
      expect(type).toBe("session_state");
      expect(timeless(printed), `inspect --at ${n}`).toEqual(timeless(await agent.inspectState({ sessionId, at: n })));
    }
    const position = recording.events[900]!.position;
    const byPosition = await runCli(["inspect", sessionId, "--at", position, "--json"], { env: env() });
    expect(JSON.parse(byPosition.stdout)).toMatchObject({ at: { n: 901, position } });

    const diff = await runCli(["inspect", sessionId, "--at", "1001", "--diff", "999", "--json"], { env: env() });
    expect(diff.code).toBe(0);
    expect(JSON.parse(diff.stdout)).toMatchObject({ type: "state_diff", from: { n: 999 }, to: { n: 1001 } });

    const db = new BetterSqlite3(join(root, "projections.db"));
    try {
      const rows = db.prepare("select events, state from timeline_snapshots where session_id = ? order by events").all(sessionId) as { events: number; state: string }[];
      expect(rows.map((r) => r.events)).toEqual([500, 1000]);
      // The answer really starts there: a snapshot that says another request count shows through.
      const requests = (JSON.parse(rows[0]!.state) as { facts: { requests: number } }).facts.requests;
      db.prepare("update timeline_snapshots set state = replace(state, ?, ?) where session_id = ? and events = 500").run(`"requests":${requests},`, `"requests":${requests + 1000},`, sessionId);
    } finally {
      db.close();
    }
    const tampered = await runCli(["inspect", sessionId, "--at", "501", "--json"], { env: env() });
    expect(JSON.parse(tampered.stdout).requests).toBe((await agent.inspectState({ sessionId, at: 501 })).requests + 1000);
  });
});
