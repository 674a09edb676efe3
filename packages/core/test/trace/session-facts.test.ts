// Session facts in the trace: given a real session against the testkit, when the Human is
// asked for an approval, steers, changes the thinking level or the approval mode, titles or
// archives the session, starts a goal or forks, then each fact is an event in the trace, and
// agent.sessionState folds it back (at the end and at any earlier position).
import { afterEach, describe, expect, it } from "vitest";
import { formatPosition } from "@penguin/trace";
import { allow, collect, startHarness, traceOf, type Harness } from "../helpers/harness.js";
import { readTraceFile, sessionTraceFiles } from "../../src/trace/reader.js";
import type { OmniMessage } from "@penguin/omnimessage";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const events = (trace: OmniMessage[], type: string) => trace.flatMap((m) => (m.type === "event_msg" && m.payload.type === type ? [m.payload] : []));

describe("session facts", () => {
  it("given a tool call, when the host is asked, then approval_requested precedes the decision and sessionState shows it pending in between", async () => {
    h = await startHarness({ script: [{ toolCalls: [{ name: "exec_command", arguments: { cmd: "echo hi", description: "hi" } }] }, { text: "done" }] });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    let pendingWhileAsked: unknown;
    await collect(session.run("go", {
      approve: async (call) => {
        pendingWhileAsked = (await h!.agent.sessionState({ sessionId: session.id })).state.pendingApprovals;
        expect(call.name).toBe("exec_command");
        return "allow";
      },
    }));
    const trace = traceOf(session.tracePath);
    const requested = events(trace, "approval_requested");
    expect(requested).toEqual([{ type: "approval_requested", tool_call_id: expect.any(String), name: "exec_command" }]);
    const kinds = trace.map((m) => (m.type === "event_msg" ? m.payload.type : m.type));
    expect(kinds.indexOf("approval_requested")).toBeLessThan(kinds.indexOf("approval_decision"));
    expect(pendingWhileAsked).toEqual([{ toolCallId: (requested[0] as { tool_call_id: string }).tool_call_id, name: "exec_command" }]);
    expect((await h.agent.sessionState({ sessionId: session.id })).state.pendingApprovals).toEqual([]);
    await session.dispose();
  });

  it("given a running task, when steering is queued and one recalled, then both facts are traced and the queue folds empty after delivery", async () => {
    h = await startHarness({ script: [{ toolCalls: [{ name: "exec_command", arguments: { cmd: "sleep 0.3; echo ok", description: "wait" } }] }, { text: "adjusted" }] });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    let queuedState: unknown;
    await collect(session.run("start", { approve: allow }), (m) => {
      if (m.type === "model_msg" && m.payload.type === "partial_tool_call_output" && m.payload.event_type === "start" && queuedState === undefined) {
        session.queueSteering("keep this");
        const drop = session.queueSteering("drop this");
        session.recallSteering(drop!);
        queuedState = "asked";
      }
    });
    const trace = traceOf(session.tracePath);
    expect(events(trace, "steering_queued").map((e) => (e as { text: string }).text)).toEqual(["keep this", "drop this"]);
    expect(events(trace, "steering_recalled")).toHaveLength(1);
    // Fold to just after the recall: one steering left in the queue.
    const recallAt = trace.findIndex((m) => m.type === "event_msg" && m.payload.type === "steering_recalled") + 1;
    const mid = await h.agent.sessionState({ sessionId: session.id, at: recallAt });
    expect(mid.state.steering.map((s) => s.text)).toEqual(["keep this"]);
    expect((await h.agent.sessionState({ sessionId: session.id })).state.steering).toEqual([]);
    await session.dispose();
  });

  it("given a session, when the thinking level and approval mode change and a title and archive are set, then settings_changed, session_title and session_archived are traced", async () => {
    h = await startHarness({ script: [{ text: "one" }, { text: "two" }] });
    const session = await h.agent.createSession({ workspaceDir: h.workspace, thinkingLevel: "medium" });
    session.setApprovalMode("allow-all");
    await collect(session.run("first", { approve: allow }));
    session.thinkingLevel = "high";
    session.setApprovalMode("read-only");
    await collect(session.run("second", { approve: allow }));
    session.recordTitle("Two answers");
    session.recordArchived(true);
    const trace = traceOf(session.tracePath);
    // The session opens with its starting settings (here only the thinking level: no approval
    // mode was given at creation); the host's first mode is recorded when set; then only changes.
    expect(events(trace, "settings_changed")).toEqual([
      { type: "settings_changed", thinking_level: "medium" },
      { type: "settings_changed", approval_mode: "allow-all" },
      { type: "settings_changed", approval_mode: "read-only" },
      { type: "settings_changed", thinking_level: "high" },
    ]);
    const end = (await h.agent.sessionState({ sessionId: session.id })).state;
    expect(end.settings).toEqual({ approvalMode: "read-only", thinkingLevel: "high" });
    expect(end.title).toBe("Two answers");
    expect(end.archived).toBe(true);
    await session.dispose();

    // A session that is not open records through the agent, on the trace on disk.
    h.agent.recordSessionFact(session.id, (await import("@penguin/omnimessage")).sessionArchived(false));
    expect((await h.agent.sessionState({ sessionId: session.id })).state.archived).toBe(false);
    // After a resume, the recorded level is the baseline: the same level records nothing more.
    const resumed = await h.agent.resumeSession({ sessionId: session.id });
    resumed.setApprovalMode("read-only");
    expect(events(traceOf(resumed.tracePath), "settings_changed")).toHaveLength(4);
    await resumed.dispose();
  });

  it("given a new session with an approval mode, then its trace opens with the starting settings, which inspect shows from event 2 and a resume keeps, after a compaction too", async () => {
    h = await startHarness({ script: [{ text: "one" }, { text: "[summary]\nSaid one.\n[/summary]" }, { text: "two" }] });
    const session = await h.agent.createSession({ workspaceDir: h.workspace, thinkingLevel: "low", approvalMode: "read-only" });
    // The host sets the same mode for its first task: nothing more is recorded.
    session.setApprovalMode("read-only");
    await collect(session.run("first", { approve: allow }));
    const first = traceOf(session.tracePath);
    expect(first[0]?.type).toBe("session_meta");
    expect(first[1]?.payload).toEqual({ type: "settings_changed", approval_mode: "read-only", thinking_level: "low" });
    expect(events(first, "settings_changed")).toHaveLength(1);
    expect((await h.agent.sessionState({ sessionId: session.id, at: 2 })).state.settings).toEqual({ approvalMode: "read-only", thinkingLevel: "low" });
    expect((await h.agent.inspectState({ sessionId: session.id, at: 2 })).settings).toMatchObject({ approvalMode: "read-only", thinkingLevel: "low" });

    // A compaction rotates the trace; the new file does not repeat the settings.
    await collect(session.compact());
    await collect(session.run("second", { approve: allow }));
    await session.dispose();
    const files = sessionTraceFiles(h.agent.paths, session.id);
    expect(files.map((f) => f.index)).toEqual([1, 2]);
    expect(events(readTraceFile(files[1]!.file).messages, "settings_changed")).toEqual([]);
    const resumed = await h.agent.resumeSession({ sessionId: session.id });
    expect(resumed.recordedApprovalMode).toBe("read-only");
    expect(resumed.thinkingLevel).toBe("low");
    await resumed.dispose();
  });

  it("given a persisted session that never ran, then its file already holds the starting settings; an unpersisted one leaves no file", async () => {
    h = await startHarness({ script: [] });
    const persisted = await h.agent.createSession({ workspaceDir: h.workspace, persist: true, approvalMode: "allow-all" });
    const lines = traceOf(persisted.tracePath);
    expect(lines.map((m) => m.type)).toEqual(["session_meta", "event_msg"]);
    expect(lines[1]?.payload).toEqual({ type: "settings_changed", approval_mode: "allow-all", thinking_level: "medium" });
    await persisted.dispose();
    const lazy = await h.agent.createSession({ workspaceDir: h.workspace });
    await lazy.dispose();
    expect(sessionTraceFiles(h.agent.paths, lazy.id)).toEqual([]);
  });

  it("given a goal run, when it starts, then goal_started carries the objective and the budget", async () => {
    h = await startHarness({ script: [{ toolCalls: [{ name: "update_goal", arguments: { status: "complete", summary: "done" } }] }, { text: "all done" }] });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(session.run("write the report", { approve: allow, goal: { budget: "500k" } }));
    const started = events(traceOf(session.tracePath), "goal_started");
    expect(started).toEqual([{ type: "goal_started", objective: "write the report", budget: 500000 }]);
    const goal = (await h.agent.sessionState({ sessionId: session.id })).state.goal;
    expect(goal).toMatchObject({ objective: "write the report", budget: 500000 });
    await session.dispose();
  });

  it("given a finished session, when it is forked, then the fork's trace ends with forked_from naming the source and the cut", async () => {
    h = await startHarness({ script: [{ text: "first answer" }] });
    const source = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(source.run("task", { approve: allow }));
    await source.dispose();
    const forkId = await h.agent.forkSession({ sessionId: source.id });
    const [file] = sessionTraceFiles(h.agent.paths, forkId);
    const content = readTraceFile(file!.file);
    const last = content.messages.at(-1);
    const sourceLines = readTraceFile(source.tracePath).lines;
    expect(last?.type === "event_msg" && last.payload).toEqual({ type: "forked_from", session_id: source.id, at: formatPosition({ file: 1, line: sourceLines.at(-1)! }) });
    const state = (await h.agent.sessionState({ sessionId: forkId })).state;
    expect(state.forkedFrom?.sessionId).toBe(source.id);
    expect(state.turns).toBe(1);
  });

  it("given a bad position, when sessionState is asked, then the error names the value and the accepted forms", async () => {
    h = await startHarness({ script: [{ text: "hi" }] });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(session.run("hi", { approve: allow }));
    await expect(h.agent.sessionState({ sessionId: session.id, at: "last tuesday" })).rejects.toThrow(/invalid position "last tuesday".*001:000042/);
    await expect(h.agent.sessionState({ sessionId: "nope" })).rejects.toThrow(/not a session id/);
    await session.dispose();
  });
});
