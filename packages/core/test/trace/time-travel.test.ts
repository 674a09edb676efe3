// Time travel and fork from any record, on one scripted session that has parallel tools, a
// denial, steering, a context compaction and a user abort (testkit model, real tools, real
// trace files). Given the live session, when it is idle after each task, then
// `sessionState` at the last record equals the live engine's state; and given any record N,
// when the session is forked at N and the fork runs one more task, then its first request
// passes the testkit's pairing check and carries the context `sessionState` reported at N.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OmniMessage } from "@penguin/omnimessage";
import type { RecordedRequest, ScriptStep } from "@penguin/testkit";
import { allow, collect, startHarness, type Harness } from "../helpers/harness.js";
import type { Session } from "../../src/session.js";
import { loadRecording, type RecordedSession } from "../../src/replay/recording.js";
import { stateAt } from "../../src/trace/state-at.js";
import { createAgent } from "../../src/agent.js";
import { sessionTraceFiles } from "../../src/trace/reader.js";
import {
  comparableFold,
  comparePositions,
  decodeSnapshot,
  describeRecord,
  foldTimeTravel,
  initialTimeTravelState,
  foldCache,
  SessionFolds,
  SnapshotEncoder,
  stepTimeTravel,
  type LineageChunk,
  type SnapshotSource,
  type TracePosition,
  plainSessionState,
} from "@penguin/trace";

/** The content of messages, without the envelope's timestamp (a carried-over output is re-stamped). */
const content = (ms: readonly OmniMessage[]) => ms.map((m) => ({ type: m.type, payload: m.payload }));
const exec = (cmd: string) => ({ name: "exec_command", arguments: { cmd, description: cmd } });
const SUMMARY = "[summary]Counted the words of notes.txt (5), wrote summary.txt; deleting old.log was denied.[/summary]";

/** Answers any request of a fork: a summary when asked to compact, else a short reply. */
const forkAnswer: ScriptStep = (request: RecordedRequest) => {
  const last = request.messages.at(-1);
  return last?.text?.includes("replaced by a summary") === true ? { text: SUMMARY, usage: { input: 100, output: 10 } } : { text: "fork ok", usage: { input: 100, output: 5 } };
};

let h: Harness;
let workspaceBefore: string;
let sessionId: string;
const liveStates: { records: number; history: readonly OmniMessage[]; carryOver: readonly OmniMessage[]; turns: number; usage: unknown }[] = [];

/** Live state at each token_usage as the host sees it (the request has committed by then). */
const atUsage: { message: OmniMessage; history: readonly OmniMessage[]; turns: number; usage: unknown }[] = [];
const watch = (session: Session, also?: (m: OmniMessage) => void) => (m: OmniMessage) => {
  if (m.type === "event_msg" && m.payload.type === "token_usage") atUsage.push({ message: m, history: [...session.history()], turns: session.turns, usage: session.usage });
  also?.(m);
};

function capture(session: Session): void {
  const records = loadRecording({ paths: h.agent.paths }, session.id).events.length;
  liveStates.push({ records, history: [...session.history()], carryOver: [...session.carryOver()], turns: session.turns, usage: session.usage });
}

beforeAll(async () => {
  h = await startHarness({
    entry: { context_window: 12000 },
    script: [
      { text: "Reading and counting.", toolCalls: [{ name: "read_file", arguments: { file_path: "notes.txt" } }, exec("wc -w < notes.txt")], usage: { input: 2000, output: 10 } },
      { text: "notes.txt has 5 words.", usage: { input: 2200, output: 10 } },
      { toolCalls: [exec("rm old.log"), { name: "write_file", arguments: { file_path: "summary.txt", content: "5 words\n" } }], usage: { input: 2400, output: 10 } },
      { text: "summary.txt written; the delete was denied.", usage: { input: 10500, output: 10 } },
      { text: SUMMARY, usage: { input: 10600, output: 20 } },
      { text: "Starting the long job.", toolCalls: [exec("sleep 20")], usage: { input: 800, output: 10 } },
      { text: "Stopped as you asked.", usage: { input: 900, output: 10 } },
    ],
  });
  writeFileSync(join(h.workspace, "notes.txt"), "alpha beta gamma\ndelta epsilon\n");
  writeFileSync(join(h.workspace, "old.log"), "stale\n");
  // The workspace as it was before the first task, for the replay that runs the tools again.
  workspaceBefore = mkdtempSync(join(tmpdir(), "penguin-ws-before-"));
  cpSync(h.workspace, workspaceBefore, { recursive: true });
  const session = await h.agent.createSession({ workspaceDir: h.workspace });
  sessionId = session.id;

  let steered = false;
  await collect(
    session.run("How many words are in notes.txt?", { approve: allow }),
    watch(session, (m) => {
      if (!steered && m.type === "model_msg" && m.payload.type === "tool_call") steered = session.steer("answer in one sentence");
    }),
  );
  capture(session);
  const denyExec = async (call: { name: string }) => (call.name === "exec_command" ? ("deny" as const) : ("allow" as const));
  await collect(session.run("Write the count to summary.txt and delete old.log.", { approve: denyExec }), watch(session));
  capture(session);
  const controller = new AbortController();
  await collect(
    session.run("Run the long job.", { approve: allow, signal: controller.signal }),
    watch(session, (m) => {
      if (m.type === "event_msg" && m.payload.type === "approval_decision") controller.abort();
    }),
  );
  capture(session);
  await collect(session.run("Never mind; what happened?", { approve: allow }), watch(session));
  capture(session);
  await session.dispose();
  expect(h.kit.violations).toEqual([]);
});

afterAll(async () => {
  await h.cleanup();
  rmSync(workspaceBefore, { recursive: true, force: true });
});

describe("sessionState (penguin inspect)", () => {
  it("the scripted session has everything it should", () => {
    const recording = loadRecording({ paths: h.agent.paths }, sessionId);
    const kinds = recording.events.map((e) => (e.message.type === "session_meta" ? "meta" : e.message.payload.type));
    expect(kinds).toContain("compaction_end");
    expect(kinds).toContain("abort");
    expect(recording.events.some((e) => e.message.type === "event_msg" && e.message.payload.type === "approval_decision" && e.message.payload.decision === "deny")).toBe(true);
    expect(recording.events.some((e) => e.message.type === "model_msg" && e.message.payload.type === "text" && e.message.payload.text.includes("[user_steering]"))).toBe(true);
    expect(new Set(recording.events.map((e) => e.fileIndex))).toEqual(new Set([1, 2]));
  });

  it("equals the live engine's state after every task", async () => {
    expect(liveStates).toHaveLength(4);
    for (const live of liveStates) {
      const state = await h.agent.inspectState({ sessionId, at: live.records });
      expect(content(state.history)).toEqual(content(live.history));
      expect(content(state.carryOver)).toEqual(content(live.carryOver));
      expect(state.turns).toBe(live.turns);
      expect(state.usage.session).toEqual(live.usage);
      expect(state.running).toBe(false);
    }
  });

  // (A compaction's own token_usage is left out: the engine closes the context right after
  // it, before the host's loop can look, so the live value there is not observable.)
  it("equals the live engine's state at every committed request's token_usage record", async () => {
    const recording = loadRecording({ paths: h.agent.paths }, sessionId);
    let checked = 0;
    for (const live of atUsage) {
      const record = recording.events.find((e) => JSON.stringify(e.message) === JSON.stringify(live.message));
      expect(record, "the yielded token_usage is in the trace").toBeDefined();
      const state = await h.agent.inspectState({ sessionId, at: record!.n });
      if (state.compaction.inProgress) continue;
      checked += 1;
      expect(content(state.history), `history at record ${record!.n}`).toEqual(content(live.history));
      expect(state.turns, `turns at record ${record!.n}`).toBe(live.turns);
      expect(state.usage.session, `usage at record ${record!.n}`).toEqual(live.usage);
    }
    expect(checked).toBe(6);
  });

  it("reports open calls, pending approvals, files and compaction segments along the way", async () => {
    const recording = loadRecording({ paths: h.agent.paths }, sessionId);
    const firstCall = recording.events.find((e) => e.message.type === "model_msg" && e.message.payload.type === "tool_call")!;
    const atCall = await h.agent.inspectState({ sessionId, at: firstCall.n });
    expect(atCall.pendingApprovals.map((c) => c.name)).toEqual(["read_file"]);
    expect(atCall.running).toBe(true);
    const allowed = recording.events.find((e) => e.n > firstCall.n && e.message.type === "event_msg" && e.message.payload.type === "approval_decision")!;
    expect((await h.agent.inspectState({ sessionId, at: allowed.n })).openToolCalls.map((c) => c.name)).toEqual(["read_file"]);
    const last = await h.agent.inspectState({ sessionId });
    expect(last.filesRead).toEqual(["notes.txt"]);
    expect(last.filesWritten).toEqual(["summary.txt"]);
    expect(last.compaction).toMatchObject({ segment: 2, completed: 1, inProgress: false });
    expect(last.steering).toEqual(["answer in one sentence"]);
    expect(last.steeringQueue).toEqual([]);
    const queued = recording.events.find((e) => e.message.type === "event_msg" && e.message.payload.type === "steering_queued")!;
    expect((await h.agent.inspectState({ sessionId, at: queued.n })).steeringQueue.map((q) => q.text)).toEqual(["answer in one sentence"]);
    const byPosition = await h.agent.inspectState({ sessionId, at: allowed.position });
    expect(byPosition.at.n).toBe(allowed.n);
    await expect(h.agent.inspectState({ sessionId, at: recording.events.length + 1 })).rejects.toThrow(/give a number from 1 to/);
  });
});

describe("forkSession at any record", () => {
  it("every fork runs one more task that passes the pairing check, from the state at N", async () => {
    const recording = loadRecording({ paths: h.agent.paths }, sessionId);
    for (const e of recording.events) {
      const expected = await h.agent.inspectState({ sessionId, at: e.n });
      const forkId = await h.agent.forkSession({ sessionId, at: e.n });
      const forked = loadRecording({ paths: h.agent.paths }, forkId);
      const origin = forked.events[1]?.message;
      expect(origin?.type === "event_msg" && origin.payload).toMatchObject({ type: "forked_from", session_id: sessionId });
      const fork = await h.agent.resumeSession({ sessionId: forkId });
      if (expected.pendingSummary === undefined && !expected.compaction.inProgress) expect(content(fork.history()), `history of the fork at ${e.n}`).toEqual(content(expected.history));
      const before = h.kit.requests.length;
      h.kit.enqueue(forkAnswer, forkAnswer, forkAnswer);
      await collect(fork.run(`one more task after record ${e.n}`, { approve: allow }));
      await fork.dispose();
      expect(h.kit.requests.length, `fork at ${e.n} sent no request`).toBeGreaterThan(before);
      expect(h.kit.violations, `fork at ${e.n} (${expected.at.record})`).toEqual([]);
      const sent = h.kit.requests.at(-1)!.messages.filter((m) => m.role === "user" && m.kind === "text").map((m) => m.text);
      expect(sent.at(-1)).toBe(`one more task after record ${e.n}`);
    }
  });
});

describe("replay of the scripted session", () => {
  it("is identical with recorded tools and with tools run again, steering and the abort re-enacted", async () => {
    for (const tools of ["recorded", "rerun"] as const) {
      const report = await h.agent.replay({ sessionId, tools, workspaceDir: workspaceBefore });
      expect(report.summary, `--tools ${tools}`).toBe("identical");
    }
  });
});

/** A view without envelope timestamps: placeholders a resume would add are stamped per call. */
const timeless = (v: unknown) => JSON.parse(JSON.stringify(v, (key, value: unknown) => (key === "timestamp" ? undefined : value))) as unknown;

/**
 * Stored snapshots of the recording every `every` records, encoded and decoded as a database
 * keeps them (the codec, lineages and all), offered as a SnapshotSource.
 */
function storedSnapshots(recording: RecordedSession, every: number): SnapshotSource & { rows: number } {
  const endOf = new Map<string, number>();
  for (const f of sessionTraceFiles(h.agent.paths, recording.sessionId)) {
    const bytes = readFileSync(f.file);
    let line = 0;
    for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0x0a) endOf.set(`${f.index}:${++line}`, i + 1);
  }
  const encoder = new SnapshotEncoder();
  const rows: { events: number; position: TracePosition; endByte: number; record: string; state: string }[] = [];
  const chunks: LineageChunk[] = [];
  let fold = initialTimeTravelState;
  recording.events.forEach((e, i) => {
    fold = stepTimeTravel(fold, e.message);
    if ((i + 1) % every !== 0) return;
    const encoded = encoder.encode(fold, i + 1);
    rows.push({ events: i + 1, position: { file: e.fileIndex, line: e.line }, endByte: endOf.get(`${e.fileIndex}:${e.line}`)!, record: describeRecord(e.message), state: encoded.state });
    chunks.push(...encoded.chunks);
  });
  return {
    rows: rows.length,
    async nearest(_sessionId, target) {
      const usable = rows.filter((r) => target === undefined || (target.kind === "count" ? r.events <= target.count : comparePositions(r.position, target.position) <= 0));
      const row = usable.at(-1);
      return { totalEvents: recording.events.length, snapshot: row === undefined ? undefined : { ...row, fold: decodeSnapshot(row.state, chunks).fold } };
    },
  };
}

describe("time travel from snapshots", () => {
  it("at every record, by count and by position, snapshots in memory and stored ones answer what the plain fold from the start does", async () => {
    const recording = loadRecording({ paths: h.agent.paths }, sessionId);
    const source = storedSnapshots(recording, 4);
    expect(source.rows).toBeGreaterThan(10);
    const folds = new SessionFolds({ snapshotEvery: 3 });
    for (const e of recording.events) {
      const plain = foldTimeTravel(recording.events.slice(0, e.n).map((r) => r.message));
      const fromStart = timeless(stateAt(recording, e.n, { fromStart: true }));
      expect(timeless(stateAt(recording, e.n, { folds })), `in memory, record ${e.n}`).toEqual(fromStart);
      expect(timeless(stateAt(recording, e.n)), `the process's fold cache, record ${e.n}`).toEqual(fromStart);
      expect(timeless(await h.agent.inspectState({ sessionId, at: e.n, snapshots: source })), `stored, record ${e.n}`).toEqual(fromStart);
      expect(timeless(await h.agent.inspectState({ sessionId, at: e.position, snapshots: source })), `stored, at ${e.position}`).toEqual(fromStart);
      const stored = await source.nearest(sessionId, { kind: "count", count: e.n });
      if (stored?.snapshot?.events === e.n) expect(comparableFold(stored.snapshot.fold), `decoded snapshot at ${e.n}`).toEqual(comparableFold(plain));
      const state = await h.agent.sessionState({ sessionId, at: e.n, snapshots: source });
      // sessionState answers plain JSON: the plain form of the fold from the start, and a JSON round trip of itself.
      expect(state.state, `sessionState at ${e.n}`).toEqual(plainSessionState(plain.session));
      expect(JSON.parse(JSON.stringify(state.state)), `sessionState as JSON at ${e.n}`).toEqual(state.state);
      expect(state.position).toEqual({ file: e.fileIndex, line: e.line });
    }
    const end = await h.agent.inspectState({ sessionId, snapshots: source });
    expect(end.at.n).toBe(recording.events.length);
    expect(timeless(end)).toEqual(timeless(await h.agent.inspectState({ sessionId })));
  });

  it("a record the session does not have is refused as without snapshots", async () => {
    const recording = loadRecording({ paths: h.agent.paths }, sessionId);
    const source = storedSnapshots(recording, 4);
    await expect(h.agent.inspectState({ sessionId, at: recording.events.length + 1, snapshots: source })).rejects.toThrow(/give a number from 1 to/);
    await expect(h.agent.inspectState({ sessionId, at: "009:000001", snapshots: source })).rejects.toThrow(/no record at position/);
  });

  it("inspect, sessionState and loadRecording keep what they fold and parse in the process's one fold cache", async () => {
    foldCache.forget();
    const fresh = await createAgent({ root: h.agent.paths.root, env: {} });
    await fresh.inspectState({ sessionId, at: 3 });
    // The parsed recording and its snapshots: two entries of the shared cache, none of a cache of the agent's own.
    expect(foldCache.size).toBe(2);
    await fresh.sessionState({ sessionId, at: 3 });
    expect(foldCache.size).toBe(3);
    // A second agent in the process finds them there.
    await (await createAgent({ root: h.agent.paths.root, env: {} })).inspectState({ sessionId, at: 4 });
    expect(foldCache.size).toBe(3);
  });
});
