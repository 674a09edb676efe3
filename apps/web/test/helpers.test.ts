// Small pure helpers: slash commands, tool argument summaries, MCP entries in YAML text,
// usage buckets, trace analysis, formatting and the client-side cost rule.
import { describe, expect, it } from "vitest";
import { requestBegin, requestEnd, tokenUsage, userText } from "@penguin/omnimessage";
import { parseSlash, skillPrompt, slashItems, slashMenu } from "../src/features/chat/slash-commands";
import { summarizeArgs } from "../src/features/chat/tool-summary";
import { addMcpServer, listMcpServers } from "../src/features/agents/mcp-yaml";
import { bucketTime, fillBuckets, granularityFor } from "../src/lib/usage-series";
import { timelineRow } from "../src/lib/trace-analysis";
import { costOf, formatCost, formatDuration, formatTokens } from "../src/lib/format";
import { groupSessions, workspaceLabel } from "../src/state/session-list-store";
import type { SessionSummary } from "../src/api/types";

describe("slash commands", () => {
  const items = slashItems([{ name: "pdf" }]);
  it("lists matches while the first word is typed", () => {
    expect(slashMenu("/co", items).map((i) => i.name)).toEqual(["compact"]);
    expect(slashMenu("/", items)).toHaveLength(4);
    expect(slashMenu("/compact now", items)).toEqual([]);
    expect(slashMenu("hello", items)).toEqual([]);
  });
  it("parses known commands and leaves other slashes as text", () => {
    expect(parseSlash("/compact", items)).toEqual({ kind: "compact" });
    expect(parseSlash("/model deepseek", items)).toEqual({ kind: "model", arg: "deepseek" });
    expect(parseSlash("/pdf read a.pdf", items)).toEqual({ kind: "skill", name: "pdf", rest: "read a.pdf" });
    expect(parseSlash("/usr/bin/env is odd", items)).toBeUndefined();
    expect(skillPrompt("pdf", "read a.pdf")).toBe("[use_skills]\npdf\n[/use_skills]\nread a.pdf");
  });
});

describe("tool summaries", () => {
  it("picks the telling argument", () => {
    expect(summarizeArgs('{"cmd":"ls -la","timeout":5}')).toBe("ls -la");
    expect(summarizeArgs('{"path":"src/a.ts","content":"…"}')).toBe("src/a.ts");
    expect(summarizeArgs('{"foo":"bar"}')).toBe("foo: bar");
    expect(summarizeArgs('{"cmd":"ls')).toBe('{"cmd":"ls');
  });
});

describe("MCP servers in system_config.yaml", () => {
  const yaml = "name: a\ntools:\n  # comment\n  mcpServers: []\nmemory:\n  enabled: true\n";
  it("adds to an empty list and lists what is there", () => {
    const once = addMcpServer(yaml, { name: "files", transport: "stdio", command: "npx", args: ["srv"], url: "" });
    expect(once).toContain('  mcpServers:\n    - name: files\n      config: { command: "npx", args: ["srv"] }\nmemory:');
    const twice = addMcpServer(once, { name: "web", transport: "http", command: "", args: [], url: "https://h/mcp" });
    expect(listMcpServers(twice)).toEqual(["files", "web"]);
    expect(() => addMcpServer(twice, { name: "web", transport: "http", command: "", args: [], url: "x" })).toThrow(/already exists/);
  });
  it("refuses when it cannot find the key", () => {
    expect(() => addMcpServer("name: a\n", { name: "x", transport: "http", command: "", args: [], url: "u" })).toThrow(/Could not find/);
  });
});

describe("usage buckets", () => {
  it("reads local bucket keys and fills gaps with empty points", () => {
    expect(bucketTime("2026-07-18")).toBe(new Date(2026, 6, 18).getTime());
    expect(bucketTime("2026-07-18T03:00")).toBe(new Date(2026, 6, 18, 3).getTime());
    expect(bucketTime("2026-07")).toBe(new Date(2026, 6, 1).getTime());
    const row = { key: "2026-07-18T03:00", cacheRead: 1, cacheWrite: 2, output: 3, total: 6, requests: 1, failures: 0, cost: 0.1, hasUncosted: false };
    const points = fillBuckets([row], "hour", new Date(2026, 6, 18, 1, 30).getTime(), new Date(2026, 6, 18, 5).getTime());
    expect(points.map((p) => new Date(p.t).getHours())).toEqual([1, 2, 3, 4, 5]);
    expect(points.filter((p) => p.row !== undefined)).toHaveLength(1);
    expect(granularityFor(3_600_000)).toBe("minute");
    expect(granularityFor(86_400_000)).toBe("hour");
    expect(granularityFor(30 * 86_400_000)).toBe("day");
  });
});

describe("trace timeline", () => {
  it("gives one lane-coloured row per trace line", () => {
    const t = (s: number) => ({ at: new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString() });
    const msgs = [
      userText("hi", t(0)),
      requestBegin(t(1)),
      requestEnd("completed", undefined, t(3)),
      tokenUsage({ cache_read: 0, cache_write: 100, output: 10, total: 110 }, { cache_read: 0, cache_write: 100, output: 10, total: 110 }, t(3)),
      requestBegin(t(4)),
      requestEnd("failed", { error_message: "503" }, t(5)),
      requestBegin(t(6)),
      requestEnd("completed", undefined, t(8)),
      tokenUsage({ cache_read: 80, cache_write: 150, output: 30, total: 260 }, { cache_read: 80, cache_write: 50, output: 20, total: 150 }, t(8)),
    ];
    expect(timelineRow(1, msgs[0]!)).toMatchObject({ lane: "input", type: "text (user)", text: "hi" });
    expect(timelineRow(6, msgs[5]!)).toMatchObject({ lane: "event", type: "request_end", text: "failed · 503" });
    expect(timelineRow(9, msgs[8]!)).toMatchObject({ lane: "event", type: "token_usage", text: "150 tokens (80 cached, 20 out)" });
  });
});

describe("formatting and cost", () => {
  it("formats", () => {
    expect(formatTokens(950)).toBe("950");
    expect(formatTokens(12_345)).toBe("12k");
    expect(formatDuration(2500)).toBe("2.5 s");
    expect(formatDuration(125_000)).toBe("2m 5s");
    expect(formatCost(0.00123)).toBe("$0.0012");
  });
  it("prices tokens and refuses to call an unpriced model free", () => {
    expect(costOf({ cache_read: 1_000_000, cache_write: 1_000_000, output: 500_000, total: 0 }, { cacheRead: 0.1, cacheWrite: 1, output: 4 })).toBeCloseTo(3.1);
    expect(costOf({ cache_read: 0, cache_write: 10, output: 0, total: 10 }, { output: 4 })).toBeUndefined();
    expect(costOf({ cache_read: 0, cache_write: 0, output: 0, total: 0 }, undefined)).toBe(0);
  });
});

describe("session grouping", () => {
  const s = (id: string, agentId: string, workspace: string | null): SessionSummary => ({ id, projectId: "p", agentId, title: null, provider: null, modelId: null, workspace, approvalMode: "allow-all", thinkingLevel: null, archived: false, source: null, forkedFrom: null, replayOf: null, state: "idle", lastActiveAt: 0, createdAt: 0 });
  it("groups by workspace (temporary ones together) or by agent", () => {
    const list = [s("1", "a", "/w/proj"), s("2", "b", "/d/agents/a/workspaces/tmp-0123abcd"), s("3", "a", "/d/agents/b/workspaces/tmp-89abcdef")];
    expect(groupSessions(list, "workspace").map((g) => [g.label, g.sessions.length])).toEqual([
      ["proj", 1],
      ["Temporary workspaces", 2],
    ]);
    expect(groupSessions(list, "agent").map((g) => g.key)).toEqual(["a", "b"]);
    expect(workspaceLabel(null)).toBe("No workspace");
  });
});
