// Reload stitching: history + live cursor + buffered SSE must equal one straight run of the
// stream, for every moment the page could have subscribed and read the history.
import { describe, expect, it, beforeEach } from "vitest";
import { StreamReducer } from "../src/lib/stream/reducer";
import { isAfter, parseEventId, Stitcher } from "../src/lib/stream/stitch";
import type { ServerEvent, StreamEvent } from "../src/api/stream-events";
import { historyAt, publish, resetClock, taskScript, type Published } from "./helpers/stream-script";

beforeEach(resetClock);

function straight(events: readonly Published[]) {
  const r = new StreamReducer();
  for (const e of events) r.apply(e.message);
  return r.items();
}

/** Subscribe after `subscribeAt` events were published, read the history after `readAt`, then let the rest arrive. */
function stitched(events: readonly Published[], subscribeAt: number, readAt: number, running: boolean) {
  const r = new StreamReducer();
  const server: { e: ServerEvent; stale: boolean }[] = [];
  const s = new Stitcher({ message: (m) => r.apply(m), server: (e, stale) => server.push({ e, stale }) });
  const toEvent = (p: Published): StreamEvent => ({ kind: "message", id: p.id, message: p.message });
  for (const p of events.slice(subscribeAt, readAt)) s.push(toEvent(p));
  const h = historyAt(events, readAt, running);
  const outcome = s.seed({ messages: h.messages, fragments: h.live?.fragments ?? [], cursor: h.live?.cursor ?? h.cursor ?? undefined });
  expect(outcome).toBe("ok");
  for (const p of events.slice(readAt)) s.push(toEvent(p));
  return { items: r.items(), server };
}

const strip = (items: ReturnType<typeof straight>) => JSON.stringify(items);

describe("event ids", () => {
  it("orders trace positions, then the followers of a record by k within an epoch, and treats another epoch as newer", () => {
    expect(parseEventId("001:000012")).toEqual({ file: 1, line: 12 });
    expect(parseEventId("002:000003.abc.7")).toEqual({ file: 2, line: 3, follower: { epoch: "abc", k: 7 } });
    expect(parseEventId("nope")).toBeUndefined();
    expect(parseEventId("e-12")).toBeUndefined();
    expect(isAfter("001:000010", "001:000009")).toBe(true);
    expect(isAfter("001:000009", "001:000009")).toBe(false);
    expect(isAfter("001:000002", "001:000010")).toBe(false);
    expect(isAfter("002:000001", "001:999999")).toBe(true);
    expect(isAfter("001:000009.e.1", "001:000009")).toBe(true);
    expect(isAfter("001:000009", "001:000009.e.1")).toBe(false);
    expect(isAfter("001:000009.e.3", "001:000009.e.2")).toBe(true);
    expect(isAfter("001:000009.e.2", "001:000009.e.2")).toBe(false);
    expect(isAfter("001:000009.e.10", "001:000010")).toBe(false);
    expect(isAfter("001:000009.f.1", "001:000009.e.5")).toBe(true);
  });
});

describe("Stitcher", () => {
  it("gives the same rows as a straight run for every subscribe/read point mid-task (no gaps, no duplicates)", () => {
    const events = publish(taskScript());
    const want = strip(straight(events));
    let cases = 0;
    for (let read = 1; read < events.length; read++) {
      for (let sub = Math.max(0, read - 6); sub <= read; sub++) {
        expect(strip(stitched(events, sub, read, true).items), `subscribe at ${sub}, read at ${read}`).toBe(want);
        cases += 1;
      }
    }
    expect(cases).toBeGreaterThan(100);
  });

  it("drops buffered events at or before the cursor when the session was idle", () => {
    const first = publish(taskScript("first"));
    const rest = publish(taskScript("second"), "ep1", first.length + 1);
    const all = [...first, ...rest];
    const want = strip(straight(all));
    // Subscribed while the first task ended, read the history while idle between tasks.
    expect(strip(stitched(all, first.length - 3, first.length, false).items)).toBe(want);
  });

  it("asks for a retry when messages were buffered but the history has no cursor", () => {
    const events = publish(taskScript());
    const s = new Stitcher({ message: () => undefined, server: () => undefined });
    s.push({ kind: "message", id: events[0]?.id, message: events[0]!.message });
    expect(s.seed({ messages: [], fragments: [], cursor: undefined })).toBe("retry");
    expect(s.live).toBe(false);
    expect(s.seed({ messages: [], fragments: [], cursor: undefined }, { lastAttempt: true })).toBe("ok");
    expect(s.live).toBe(true);
  });

  it("ignores live events it already applied (a replay overlapping the history)", () => {
    const events = publish(taskScript());
    const r = new StreamReducer();
    const s = new Stitcher({ message: (m) => r.apply(m), server: () => undefined });
    const h = historyAt(events, 10, true);
    s.seed({ messages: h.messages, fragments: h.live?.fragments ?? [], cursor: h.live?.cursor ?? undefined });
    for (const p of events.slice(5)) s.push({ kind: "message", id: p.id, message: p.message });
    expect(strip(r.items())).toBe(strip(straight(events)));
  });

  it("marks buffered server events older than the history as stale, and keeps newer ones live", () => {
    const events = publish(taskScript());
    const s = new Stitcher({ message: () => undefined, server: (e, stale) => seen.push([e.type, stale]) });
    const seen: [string, boolean][] = [];
    s.push({ kind: "server", id: undefined, event: { type: "task_state", state: "idle", queued: 0, pendingFollowUps: [], pendingSteering: [] } });
    s.push({ kind: "server", id: events[2]!.id, event: { type: "credentials_updated" } });
    s.push({ kind: "server", id: events[8]!.id, event: { type: "session_title", sessionId: undefined, title: "T" } });
    const h = historyAt(events, 5, true);
    s.seed({ messages: h.messages, fragments: h.live?.fragments ?? [], cursor: h.live?.cursor ?? undefined });
    s.push({ kind: "server", id: undefined, event: { type: "resync_required" } });
    expect(seen).toEqual([
      ["task_state", true],
      ["credentials_updated", true],
      ["session_title", false],
      ["resync_required", false],
    ]);
  });
});
