// Given/when/then for the sessions projection on :memory:.
import { describe, expect, it } from "vitest";
import { abortEvent, assistantText, followupDequeued, followupQueued, forkedFrom, goalFinished, goalStarted, settingsChanged, requestBegin, requestEnd, sessionArchived, sessionMeta, sessionTitle, subagentEvent, tokenUsage, toolCall, userText } from "@penguin/omnimessage";
import { projectionSpec, traceEvents } from "@penguin/projections-runner";
import { foldSession, getSession, listSessions, sessionsProjection } from "../src/index.js";

const P = "session-2026-01-02-10-00-00-0000000a";
const C = "session-2026-01-02-10-05-00-0000000c";
const at = (s: number) => new Date(Date.UTC(2026, 0, 2, 10, 0, s)).toISOString();
const tokens = (total: number) => ({ cache_read: 0, cache_write: total - 1, output: 1, total });
const meta = (id: string, source?: "subagent") =>
  sessionMeta({ session_id: id, provider: "openai", model_id: "gpt-x", model_context_window: 1000, system_prompt: "", agent_state: "/s", workspace: "/w", source }, { at: at(0) });

describe("sessions projection", () => {
  it("given a session's start, when its task completes, then one row says what it is and how it ended", async () => {
    const row = await projectionSpec(sessionsProjection)
      .given(traceEvents({ sessionId: P }, [meta(P), userText("  fix the\nbuild  ", { at: at(1) }), requestBegin({ at: at(2) })]))
      .when(
        traceEvents({ sessionId: P, firstLine: 4 }, [
          toolCall({ name: "exec_command", arguments: "{}", tool_call_id: "t1" }, { at: at(3) }),
          requestEnd("completed", undefined, { at: at(4) }),
          tokenUsage(tokens(10), tokens(10), { at: at(5) }),
          requestBegin({ at: at(6) }),
          assistantText("done", { at: at(7) }),
          requestEnd("completed", undefined, { at: at(8) }),
          tokenUsage(tokens(25), tokens(15), { at: at(9) }),
        ]),
      )
      .then((db) => getSession(db, P));
    expect(row).toEqual({
      session_id: P,
      project_id: "default_project",
      agent_id: "default_agent",
      title: "fix the build",
      title_set: 0,
      archived: 0,
      // No session fact recorded in these events: every one at its empty value.
      archived_at: null,
      approval_mode: null,
      thinking_level: null,
      sandbox_network: 0,
      goal_objective: null,
      goal_budget: null,
      goal_started_at: null,
      goal_status: null,
      goal_rounds: null,
      goal_tokens_used: null,
      goal_updated_at: null,
      followups_pending: 0,
      forked_from: null,
      provider: "openai",
      model_id: "gpt-x",
      workspace: "/w",
      source: "user",
      client: null,
      created_at: Date.parse(at(0)),
      last_event_at: Date.parse(at(9)),
      status: "done",
      tasks: 1,
      requests: 2,
      tool_calls: 1,
      tokens: 25,
      files: 1,
      parent_session_id: null,
    });
  });

  it("given a session's opening settings, when its settings, archive, goal and follow-up queue change, then the row carries each fact as the trace last records it", async () => {
    const row = await projectionSpec(sessionsProjection)
      .given(traceEvents({ sessionId: P }, [meta(P), settingsChanged({ approval_mode: "deny-all", thinking_level: "medium" }, { at: at(1) })]))
      .when(
        traceEvents({ sessionId: P, firstLine: 3 }, [
          settingsChanged({ thinking_level: "high" }, { at: at(2) }),
          settingsChanged({ sandbox_network: true }, { at: at(3) }),
          sessionArchived(true, { at: at(4) }),
          goalStarted("ship it", 500, { at: at(5) }),
          goalFinished({ outcome: "complete", rounds: 2, tokens_used: 120 }, { at: at(6) }),
          followupQueued({ followup_id: "fu_1", input: [{ type: "text", text: "next" }] }, { at: at(7) }),
          followupQueued({ followup_id: "fu_2", input: [{ type: "text", text: "after" }] }, { at: at(8) }),
          followupDequeued("fu_1", "started", { at: at(9) }),
        ]),
      )
      .then((db) => getSession(db, P));
    expect(row).toMatchObject({
      approval_mode: "deny-all",
      thinking_level: "high",
      sandbox_network: 1,
      archived: 1,
      archived_at: Date.parse(at(4)),
      goal_objective: "ship it",
      goal_budget: 500,
      goal_started_at: Date.parse(at(5)),
      goal_status: "complete",
      goal_rounds: 2,
      goal_tokens_used: 120,
      goal_updated_at: Date.parse(at(6)),
      followups_pending: 1,
    });
  });

  it("given a forked session with a first prompt, when it is titled, archived and unarchived, then the row follows each fact", async () => {
    const titled = await projectionSpec(sessionsProjection)
      .given(traceEvents({ sessionId: C }, [meta(C), forkedFrom(P, "001:000012", { at: at(1) }), userText("first prompt here", { at: at(2) })]))
      .when(traceEvents({ sessionId: C, firstLine: 4 }, [sessionTitle("Release notes", { at: at(3) }), sessionArchived(true, { at: at(4) }), userText("another prompt", { at: at(5) })]))
      .then((d) => getSession(d, C));
    expect(titled).toMatchObject({ title: "Release notes", title_set: 1, archived: 1, forked_from: `${P}@001:000012`, tasks: 2 });
    const later = await projectionSpec(sessionsProjection)
      .given(traceEvents({ sessionId: C }, [meta(C), sessionArchived(true, { at: at(1) })]))
      .when(traceEvents({ sessionId: C, firstLine: 3 }, [sessionArchived(false, { at: at(2) })]))
      .then((d) => getSession(d, C));
    expect(later).toMatchObject({ archived: 0, title: null, title_set: 0, forked_from: null });
  });

  it("given a running request, when it fails with a retry pending, then it is still running; when it fails for good, failed", () => {
    const [m, b, retry, fail] = traceEvents({ sessionId: P }, [meta(P), requestBegin({ at: at(1) }), requestEnd("timeout", { retry_in_ms: 100 }, { at: at(2) }), requestEnd("failed", {}, { at: at(3) })]);
    const running = [m!, b!, retry!].reduce(foldSession, undefined as never);
    expect(running.status).toBe("running");
    expect(foldSession(running, fail!).status).toBe("failed");
  });

  it("given an abort, then the session reads aborted when the user stopped it and failed when a failure did", async () => {
    const statusAfter = (reason: string) =>
      projectionSpec(sessionsProjection)
        .given(traceEvents({ sessionId: P }, [meta(P), userText("go", { at: at(1) }), requestBegin({ at: at(2) })]))
        .when(traceEvents({ sessionId: P, firstLine: 4 }, [abortEvent(reason, { at: at(3) })]))
        .then(async (db) => (await listSessions(db)).map((r) => r.status));
    expect(await statusAfter("aborted by user")).toEqual(["aborted"]);
    expect(await statusAfter("request failed: HTTP 400")).toEqual(["failed"]);
  });

  it("given a subagent session read before its parent's pointer, then the list links it to its parent either way", async () => {
    const spec = projectionSpec(sessionsProjection)
      .given(traceEvents({ sessionId: C }, [meta(C, "subagent"), userText("sub task", { at: at(30), sender: "parent_agent" })]))
      .when(traceEvents({ sessionId: P }, [meta(P), userText("main", { at: at(1) }), subagentEvent(C, { at: at(2) })]));
    const { all, top } = await spec.then(async (db) => ({ all: await listSessions(db, { includeSubagents: true }), top: await listSessions(db) }));
    expect(all.map((r) => [r.session_id, r.source, r.parent_session_id, r.tasks])).toEqual([
      [C, "subagent", P, 0],
      [P, "user", null, 1],
    ]);
    expect(top.map((r) => r.session_id)).toEqual([P]);
  });
});
