// The read-model rows of `/api/events` applied in the web (issue 28): a `session_row` adds or
// updates the session list's row without asking the server (the list's fetch is counted), and
// a `usage_totals` event's `added` is added to the Usage page's totals when the view allows.
import { afterEach, describe, expect, it } from "vitest";
import { setFetch } from "../src/api/http";
import { parseServerEvent } from "../src/api/stream-events";
import { addUsage, liveUsageApplies, summaryFromRow, sumAdded } from "../src/lib/live-read-models";
import { applyUserEvent, loadSessions, sessionList } from "../src/state/session-list-store";

const row = (patch: Record<string, unknown> = {}) => ({
  sessionId: "session-2026-12-03-10-00-00-aaaaaaaa",
  projectId: "p1",
  agentId: "a1",
  title: null,
  archived: false,
  forkedFrom: null,
  provider: "testkit",
  modelId: "scripted-model",
  workspace: "/w",
  source: "cli",
  createdAt: 1000,
  lastEventAt: 2000,
  status: "done",
  tasks: 1,
  requests: 1,
  toolCalls: 0,
  tokens: 10,
  files: 0,
  parentSessionId: null,
  ...patch,
});

afterEach(() => setFetch((input, init) => fetch(input, init)));

describe("live read models", () => {
  it("decodes session_row and usage_totals from the user feed", () => {
    const r = parseServerEvent({ type: "session_row", position: 7, session: row() });
    expect(r).toMatchObject({ type: "session_row", position: 7, row: { sessionId: row().sessionId, projectId: "p1", lastEventAt: 2000 } });
    const u = parseServerEvent({ type: "usage_totals", position: 7, projectId: "p1", totals: { requests: 3 }, added: { requests: 1, output: 5, cost: 0.5, hasUncosted: false } });
    expect(u).toEqual({ type: "usage_totals", position: 7, projectId: "p1", added: { requests: 1, output: 5, cost: 0.5 } });
    expect(parseServerEvent({ type: "session_row", position: 7, session: { sessionId: 1 } })).toEqual({ type: "other", name: "session_row" });
  });

  it("adds a session run elsewhere to the list and updates it from its rows, with no request after the first load", async () => {
    const requests: string[] = [];
    setFetch(async (input) => {
      requests.push(String(input));
      return new Response(JSON.stringify({ sessions: [] }), { status: 200, headers: { "content-type": "application/json" } });
    });
    await loadSessions("p1", ["a1"]);
    expect(requests).toHaveLength(1);
    const event = (patch: Record<string, unknown>) => parseServerEvent({ type: "session_row", position: 1, session: row(patch) })!;
    applyUserEvent(event({ status: "running" }));
    expect(sessionList.sessions.map((s) => [s.id, s.state, s.approvalMode])).toEqual([[row().sessionId, "running", "always-ask"]]);
    applyUserEvent(event({ title: "Fix the build", status: "done", lastEventAt: 5000 }));
    expect(sessionList.sessions).toHaveLength(1);
    expect(sessionList.sessions[0]).toMatchObject({ title: "Fix the build", state: "idle", lastActiveAt: 5000 });
    // Another project's or agent's rows are not this list's.
    applyUserEvent(event({ sessionId: "session-2026-12-03-10-00-00-bbbbbbbb", projectId: "p2" }));
    applyUserEvent(event({ sessionId: "session-2026-12-03-10-00-00-cccccccc", agentId: "a2" }));
    expect(sessionList.sessions).toHaveLength(1);
    expect(requests).toHaveLength(1);
  });

  it("keeps what the row does not carry from the list's row, and a server task's state from session_state", () => {
    const rowOf = (patch: Record<string, unknown>) => (parseServerEvent({ type: "session_row", position: 1, session: row(patch) }) as { row: any }).row;
    const known = { ...summaryFromRow(rowOf({}), undefined), approvalMode: "allow-all" as const, thinkingLevel: "high" as const, state: "running" as const, lastActiveAt: 9000 };
    expect(summaryFromRow(rowOf({ title: "t", lastEventAt: 3000 }), known, true)).toMatchObject({ approvalMode: "allow-all", thinkingLevel: "high", state: "running", lastActiveAt: 9000, title: "t" });
    expect(summaryFromRow(rowOf({ status: "done" }), known, false).state).toBe("idle");
  });

  it("adds what the totals grew by to the Usage page's totals when the view is a range ending now, unfiltered", () => {
    const totals = { cacheRead: 10, cacheWrite: 20, output: 5, total: 35, requests: 2, failures: 0, cost: 1, hasUncosted: false };
    const grew = sumAdded({ requests: 1, output: 3 }, { requests: 1, total: 9, cost: 0.25 });
    expect(addUsage(totals, grew)).toEqual({ ...totals, requests: 4, output: 8, total: 44, cost: 1.25 });
    expect(liveUsageApplies({ range: "24h", agentId: "", model: "" })).toBe(true);
    expect(liveUsageApplies({ range: "custom", agentId: "", model: "" })).toBe(false);
    expect(liveUsageApplies({ range: "24h", agentId: "a1", model: "" })).toBe(false);
    expect(liveUsageApplies({ range: "7d", agentId: "", model: "testkit/scripted-model" })).toBe(false);
  });
});
