// Given/when/then for the usage projection on :memory:, and the one cost formatter.
import { describe, expect, it } from "vitest";
import { requestEnd, sessionMeta, subagentEvent, tokenUsage } from "@penguin/omnimessage";
import { projectionSpec, traceEvents } from "@penguin/projections-runner";
import { costText, queryUsage, usageErrors, usageProjection, type PriceOf } from "../src/index.js";

const P = "session-2026-01-02-10-00-00-0000000a";
const C = "session-2026-01-02-10-05-00-0000000c";
const at = (s: number) => new Date(Date.UTC(2026, 0, 2, 10, 0, s)).toISOString();
const meta = (id: string, model: string) =>
  sessionMeta({ session_id: id, provider: "openai", model_id: model, model_context_window: 1000, system_prompt: "", agent_state: "/s", workspace: "/w" }, { at: at(0) });
const usage = (cacheRead: number, cacheWrite: number, output: number) => {
  const t = { cache_read: cacheRead, cache_write: cacheWrite, output, total: cacheRead + cacheWrite + output };
  return tokenUsage(t, t, { at: at(5) });
};
const prices: PriceOf = (_project, _provider, model) => (model === "priced" ? { unit: "usd_per_mtok", cache_read: 1, cache_write: 2, output: 10 } : undefined);

describe("usage projection", () => {
  it("given token_usage lines, then one completed row per request with the file's model and the event time", async () => {
    const rows = await projectionSpec(usageProjection)
      .given(traceEvents({ sessionId: P }, [meta(P, "priced")]))
      .when(traceEvents({ sessionId: P, firstLine: 2 }, [usage(100, 200, 50), usage(1000, 0, 10)]))
      .then((db) => db.selectFrom("usage_requests").selectAll().orderBy("line").execute());
    expect(rows.map((r) => [r.line, r.provider, r.model_id, r.status, r.total, r.ts])).toEqual([
      [2, "openai", "priced", "completed", 350, Date.parse(at(5))],
      [3, "openai", "priced", "completed", 1010, Date.parse(at(5))],
    ]);
  });

  it("given failures, then each is a zero-token error row (aborted is not a failure)", async () => {
    const { rows, errors } = await projectionSpec(usageProjection)
      .given(traceEvents({ sessionId: P }, [meta(P, "priced")]))
      .when(traceEvents({ sessionId: P, firstLine: 2 }, [requestEnd("timeout", { error_message: "slow", retry_in_ms: 5 }, { at: at(1) }), requestEnd("auth", { error_message: "bad key" }, { at: at(2) }), requestEnd("aborted", undefined, { at: at(3) })]))
      .then(async (db) => ({ rows: await db.selectFrom("usage_requests").select(["status", "total"]).orderBy("line").execute(), errors: await usageErrors(db, {}, 10, 0) }));
    expect(rows).toEqual([
      { status: "timeout", total: 0 },
      { status: "auth", total: 0 },
    ]);
    expect(errors.total).toBe(2);
    expect(errors.items.map((e) => [e.status, e.kind, e.message, e.source, e.position])).toEqual([
      ["auth", "expected", "bad key", "model", "001:000003"],
      ["timeout", "expected", "slow", "model", "001:000002"],
    ]);
  });

  it("given a subagent's requests, then they count for the parent session, priced by the child's own model", async () => {
    const report = await projectionSpec(usageProjection)
      .given(traceEvents({ sessionId: C }, [meta(C, "unpriced"), usage(0, 1000, 0)]))
      .when(traceEvents({ sessionId: P }, [meta(P, "priced"), subagentEvent(C, { at: at(1) }), usage(1_000_000, 0, 0)]))
      .then((db) => queryUsage(db, {}, "session", prices));
    expect(report.rows).toHaveLength(1);
    expect(report.rows[0]).toMatchObject({ key: P, requests: 2, total: 1_001_000, cost: 1, hasUncosted: true, costText: "$1.00 + n/a" });
  });

  it("groups by model and day and prices per model at query time", async () => {
    const report = await projectionSpec(usageProjection)
      .given(traceEvents({ sessionId: P }, [meta(P, "priced"), usage(0, 0, 1000)]))
      .then((db) => Promise.all([queryUsage(db, {}, "model", prices), queryUsage(db, { fromTs: Date.parse(at(6)) }, "day", prices)]));
    expect(report[0].rows).toEqual([{ key: "openai/priced", cacheRead: 0, cacheWrite: 0, output: 1000, total: 1000, requests: 1, failures: 0, cost: 0.01, hasUncosted: false, costText: "$0.0100" }]);
    expect(report[1].rows).toEqual([]);
    expect(report[1].totals.costText).toBe("$0.00");
  });

  it("writes a cost one way everywhere", () => {
    expect(costText(0, false)).toBe("$0.00");
    expect(costText(0.01234, false)).toBe("$0.0123");
    expect(costText(1.5, false)).toBe("$1.50");
    expect(costText(0, true)).toBe("n/a");
    expect(costText(2, true)).toBe("$2.00 + n/a");
  });
});
