/**
 * The gateway's stream contract as a checker, run on every replay: each segment goes
 * start → delta* → stop with its complete payload right after the stop; aggregating the partials
 * (omnimessage's PartialAggregator) rebuilds exactly the completes; completes settle in the
 * order thinking → text → tool_call; nothing is left open.
 */
import { expect } from "vitest";
import { aggregateAll, modelMessage, type ModelPayload } from "@penguin/omnimessage";
import { STOP_REASONS } from "@penguin/omnimessage";
import type { ModelOutcome } from "../../src/index.js";

const RANK: Record<string, number> = { thinking: 0, text: 1, tool_call: 2 };

export function expectWellFormed(items: ModelPayload[], outcome: ModelOutcome): void {
  expect(STOP_REASONS).toContain(outcome.status);
  const open = new Map<string, number>();
  let lastRank = -1;
  items.forEach((p, i) => {
    if (p.type.startsWith("partial_")) {
      if (!("event_type" in p)) throw new Error("partial without event_type");
      const key = `${p.type}:${"tool_call_id" in p ? p.tool_call_id : ""}`;
      if (p.event_type === "start") {
        expect(open.has(key), `segment ${key} started twice at ${i}`).toBe(false);
        open.set(key, i);
      } else {
        expect(open.has(key), `${p.event_type} of ${key} without a start at ${i}`).toBe(true);
        if (p.event_type === "stop") {
          open.delete(key);
          const next = items[i + 1];
          expect(next?.type, `complete after stop of ${key}`).toBe(p.type.slice("partial_".length));
        }
      }
    } else {
      const prev = items[i - 1];
      expect(prev !== undefined && "event_type" in prev && prev.event_type === "stop", `complete ${p.type} at ${i} follows a stop`).toBe(true);
      const rank = RANK[p.type] ?? 99;
      expect(rank, `complete ${p.type} at ${i} out of order`).toBeGreaterThanOrEqual(lastRank);
      lastRank = rank;
    }
  });
  expect([...open.keys()], "segments left open").toEqual([]);
  const at = "2026-01-01T00:00:00.000Z";
  const rebuilt = aggregateAll(items.filter((p) => p.type.startsWith("partial_")).map((p) => modelMessage(p, { at }))).map((m) => m.payload);
  const completes = items
    .filter((p) => !p.type.startsWith("partial_"))
    .map((p) => {
      const copy: Record<string, unknown> = { ...p };
      delete copy.fidelity;
      return copy;
    });
  expect(rebuilt).toEqual(completes);
  if (outcome.status !== "completed") expect(outcome.usage).toBeUndefined();
}
