// Answers decoded with the HTTP contract (api/contract-decode.ts): the session list, a session,
// the usage report and the project and agent lists are checked against the contract's schemas compiled to plain shapes
// (no effect in the bundle). Given an answer that matches, the page gets the contract's values;
// given one from a server of another version (a field missing or of another kind), the page
// still gets what can be read field by field, and the console says once which field differed.
import { afterEach, describe, expect, it, vi } from "vitest";
import { SessionViewShape } from "@penguin/server/contract-shapes";
import { decodeAnswer } from "../src/api/contract-decode";
import { setFetch } from "../src/api/http";
import { listSessions, sessionOf } from "../src/api/sessions";
import { getUsage } from "../src/api/usage";
import { listAgents, listProjects } from "../src/api/projects";

afterEach(() => {
  vi.restoreAllMocks();
  setFetch((i, init) => fetch(i, init));
});

const view = (id: string, extra: Record<string, unknown> = {}) => ({
  id, projectId: "p", agentId: "a", provider: "x", modelId: "y", workspace: "/w", approvalMode: "read-only", thinkingLevel: "high", title: "Tides",
  archived: false, archivedAt: null, client: "sdk", source: null, hasTrace: true, sandboxNetwork: true, createdAt: 1, lastActiveAt: 2, state: "idle",
  pendingApprovals: 0, queued: 0, forkedFrom: { sessionId: "session-a", at: "001:000004" }, replayOf: null, ...extra,
});
const totals = { cacheRead: 1, cacheWrite: 2, output: 3, total: 6, requests: 1, failures: 0, cost: 0.5, hasUncosted: false, costText: "$0.50" };

describe("decoding answers with the contract", () => {
  it("given a session view that matches the contract, when decoded, then it is the view itself", () => {
    const v = view("s1");
    expect(decodeAnswer("SessionView", SessionViewShape, v)).toEqual({ ok: true, value: v });
    expect(sessionOf(v)).toMatchObject({ id: "s1", approvalMode: "read-only", thinkingLevel: "high", sandboxNetwork: true, forkedFrom: { sessionId: "session-a", at: "001:000004" } });
  });

  it("given a field of the wrong kind, when decoded, then the error names the path, and the page reads what it can", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const bad = view("s2", { approvalMode: "sometimes" });
    const decoded = decodeAnswer("SessionView", SessionViewShape, bad);
    expect(decoded.ok).toBe(false);
    expect(decoded.ok ? "" : decoded.error).toMatch(/^SessionView\["approvalMode"\]: Expected .*actual "sometimes"/);
    // Read field by field: an unknown mode is the reader's default.
    expect(sessionOf(bad)).toMatchObject({ id: "s2", approvalMode: "allow-all", title: "Tides" });
    expect(sessionOf(view("s3", { approvalMode: "never" }))?.id).toBe("s3");
    // Said once per answer kind.
    expect(warn.mock.calls.filter((c) => String(c[0]).includes("SessionView"))).toHaveLength(1);
  });

  it("given the list and usage answers of the server, when loaded, then the pages get the decoded values", async () => {
    setFetch(async (input) => {
      const path = new URL(String(input), "http://localhost").pathname;
      const reply = (body: unknown) => new Response(JSON.stringify(body), { status: 200 });
      if (path === "/api/projects/p/agents/a/sessions") return reply({ sessions: [view("s1"), view("s4", { title: null, forkedFrom: null })] });
      if (path === "/api/projects/p/usage") return reply({ groupBy: "session", granularity: "day", rows: [{ key: "s1", ...totals }], totals });
      if (path === "/api/projects") return reply({ projects: [{ projectId: "p", name: null, ownerUserId: "me", role: "admin", createdAt: 5 }] });
      if (path === "/api/projects/p/agents") return reply({ agents: [{ agentId: "a", name: "Ada", description: null, createdAt: null }] });
      return new Response("{}", { status: 404 });
    });
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const sessions = await listSessions("p", "a");
    expect(sessions.map((s) => [s.id, s.title, s.forkedFrom])).toEqual([["s1", "Tides", { sessionId: "session-a", at: "001:000004" }], ["s4", null, null]]);
    const usage = await getUsage("p", {}, "session", "day");
    expect(usage).toEqual({ rows: [{ key: "s1", ...totals }], totals });
    expect(await listProjects()).toEqual([{ projectId: "p", name: null, ownerUserId: "me", role: "admin" }]);
    expect(await listAgents("p")).toEqual([{ agentId: "a", name: "Ada", description: null }]);
    expect(warn).not.toHaveBeenCalled();
  });
});
