// SessionController: buffering the stream until the history is in, stitching, live updates,
// server events (task state, approvals, title, auth lock) and resync.
import { beforeEach, describe, expect, it } from "vitest";
import { requestBegin, requestEnd, userText } from "@penguin/omnimessage";
import type { SseOptions } from "../src/api/sse";
import type { SessionHistory } from "../src/api/types";
import { SessionController } from "../src/lib/stream/session-controller";
import { StreamReducer } from "../src/lib/stream/reducer";
import { at, historyAt, publish, resetClock, streamedText, taskScript, type Published } from "./helpers/stream-script";

beforeEach(resetClock);

function harness(histories: (() => SessionHistory)[], older?: (before: string) => SessionHistory) {
  let opts: SseOptions | undefined;
  let fetches = 0;
  const resolvers: (() => void)[] = [];
  const c = new SessionController("s1", {
    openStream: (o) => {
      opts = o;
      return { close: () => undefined, reconnectNow: () => undefined, lastEventId: undefined, status: "open" };
    },
    fetchHistory: (_id, _signal, query) => {
      if (query.before !== undefined && older !== undefined) return Promise.resolve(older(query.before));
      const make = histories[Math.min(fetches, histories.length - 1)];
      fetches += 1;
      return new Promise<SessionHistory>((resolve) => resolvers.push(() => make !== undefined && resolve(make())));
    },
    schedule: (fn) => fn(),
  });
  c.start();
  const o = () => {
    if (opts === undefined) throw new Error("stream not opened");
    return opts;
  };
  return {
    c,
    open: () => o().onOpen?.({ reconnect: false, lastEventId: undefined }),
    message: (p: Published) => o().onFrame({ event: "message", id: p.id, data: JSON.stringify(p.message) }),
    server: (data: object, id?: string) => o().onFrame({ event: "server_event", id, data: JSON.stringify(data) }),
    resolveHistory: async () => {
      const r = resolvers.shift();
      r?.();
      await new Promise((res) => setTimeout(res, 0));
    },
    fetches: () => fetches,
  };
}

const straightItems = (events: readonly Published[], end: boolean) => {
  const r = new StreamReducer();
  for (const e of events) r.apply(e.message);
  if (end) r.endTask();
  return JSON.stringify(r.items());
};

describe("SessionController", () => {
  it("reconciles each flush into the view by row id: rows that did not change keep their object", async () => {
    const events = publish([userText("Say hello", at()), ...streamedText("Hello there, world")]);
    const h = harness([() => historyAt(events, 0, true)]);
    h.open();
    await h.resolveHistory();
    h.message(events[0] as Published);
    h.message(events[1] as Published);
    h.message(events[2] as Published);
    const [prompt, draft] = h.c.view.items;
    expect(draft).toMatchObject({ kind: "assistant", text: "Hell", streaming: true });
    for (const e of events.slice(3)) h.message(e);
    expect(h.c.view.items[0]).toBe(prompt);
    expect(h.c.view.items[1]).toBe(draft);
    expect(draft).toMatchObject({ kind: "assistant", text: "Hello there, world", streaming: false });
    expect(JSON.stringify(h.c.view.items)).toBe(straightItems(events, false));
  });

  it("buffers until the history arrives, then shows history + buffer + live without gaps", async () => {
    const events = publish(taskScript());
    const h = harness([() => historyAt(events, 30, true)]);
    h.open();
    for (const e of events.slice(25, 34)) h.message(e);
    expect(h.c.view.loading).toBe(true);
    await h.resolveHistory();
    for (const e of events.slice(34)) h.message(e);
    expect(JSON.stringify(h.c.view.items)).toBe(straightItems(events, false));
    expect(h.c.view.taskState).toBe("running");
    h.server({ type: "task_state", state: "idle", queued: 0, pendingFollowUps: [], pendingSteering: [] }, "001:000999");
    expect(JSON.stringify(h.c.view.items)).toBe(straightItems(events, true));
    expect(h.c.view.taskState).toBe("idle");
  });

  it("a task that ends while the history is being fetched ends in the view: the buffered idle wins over the history's running", async () => {
    const events = publish(taskScript());
    const h = harness([() => historyAt(events, 30, true)]);
    h.open();
    for (const e of events.slice(25)) h.message(e);
    // The server read the history while the task ran; the task ended before the answer arrived.
    h.server({ type: "task_state", state: "idle", queued: 0, pendingFollowUps: [], pendingSteering: [] }, "001:000999");
    await h.resolveHistory();
    expect(h.c.view.taskState).toBe("idle");
    expect(JSON.stringify(h.c.view.items)).toBe(straightItems(events, true));
  });

  it("a history taken when idle ends the task before the buffer: a task started after it keeps running", async () => {
    const first = publish(taskScript());
    const h = harness([() => historyAt(first, first.length, false)]);
    h.open();
    const second = publish([userText("and another", at()), requestBegin(at())], "ep1", 900);
    h.server({ type: "task_state", state: "running", queued: 0, pendingFollowUps: [], pendingSteering: [] }, "001:000998");
    for (const e of second) h.message(e);
    await h.resolveHistory();
    expect(h.c.view.taskState).toBe("running");
  });

  it("tracks approvals, queue and steering from server events", async () => {
    const h = harness([() => ({ messages: [], live: null, cursor: null, state: "idle", pendingApprovals: [] })]);
    h.open();
    await h.resolveHistory();
    h.server({ type: "task_state", state: "running", queued: 1, pendingFollowUps: [{ id: "fu_1", input: [{ type: "text", text: "later" }] }], pendingSteering: [{ id: "st_1", text: "faster" }] });
    h.server({ type: "approval_request", toolCallId: "call_0", toolCall: { name: "exec_command", arguments: "{}", tool_call_id: "call_0" }, requestedAt: 1 });
    const s = h.c.view;
    expect(s.followUps).toEqual([{ id: "fu_1", input: [{ type: "text", text: "later" }] }]);
    expect(s.steering).toEqual([{ id: "st_1", text: "faster" }]);
    expect(s.approvals.map((a) => a.toolCallId)).toEqual(["call_0"]);
    h.server({ type: "approval_resolved", toolCallId: "call_0", decision: "allow" });
    expect(h.c.view.approvals).toEqual([]);
    h.server({ type: "session_title", sessionId: "s1", title: "Hello file" });
    expect(h.c.view.title).toBe("Hello file");
  });

  it("takes pending approvals from the history answer", async () => {
    const h = harness([() => ({ messages: [], live: null, cursor: "001:000004", state: "running", pendingApprovals: [{ toolCallId: "c9", toolCall: { type: "tool_call", role: "assistant", name: "x", arguments: "{}", tool_call_id: "c9" } }] })]);
    h.open();
    await h.resolveHistory();
    expect(h.c.view.approvals.map((a) => a.toolCallId)).toEqual(["c9"]);
  });

  it("locks the composer on an auth failure until credentials_updated", async () => {
    const h = harness([() => ({ messages: [], live: null, cursor: null, state: "idle", pendingApprovals: [] })]);
    h.open();
    await h.resolveHistory();
    const evs = publish([userText("hi", at()), requestBegin(at()), requestEnd("auth", { error_message: "bad key" }, at())]);
    for (const e of evs) h.message(e);
    expect(h.c.view).toMatchObject({ authLocked: true, authMessage: "bad key" });
    h.server({ type: "credentials_updated", projectId: "p" }, "001:000050");
    expect(h.c.view.authLocked).toBe(false);
  });

  it("refetches the history on resync_required and rebuilds the view", async () => {
    const events = publish(taskScript());
    const h = harness([() => historyAt(events, 10, true), () => historyAt(events, events.length, false)]);
    h.open();
    await h.resolveHistory();
    h.server({ type: "resync_required", lastEventId: "old-1" });
    expect(h.fetches()).toBe(2);
    await h.resolveHistory();
    expect(JSON.stringify(h.c.view.items)).toBe(straightItems(events, true));
  });

  it("retries the history when messages were buffered but the history had no cursor", async () => {
    const events = publish(taskScript());
    const h = harness([() => ({ messages: [], live: null, cursor: null, state: "idle", pendingApprovals: [] }), () => historyAt(events, 3, true)]);
    h.open();
    for (const e of events.slice(0, 5)) h.message(e);
    await h.resolveHistory();
    expect(h.fetches()).toBe(2);
    await h.resolveHistory();
    for (const e of events.slice(5)) h.message(e);
    expect(JSON.stringify(h.c.view.items)).toBe(straightItems(events, false));
  });

  it("loads older history in front of the live view, keeping it exact", async () => {
    const first = publish(taskScript("first"));
    const second = publish(taskScript("second"), "ep1", first.length + 1);
    const all = [...first, ...second];
    const olderMessages = historyAt(first, first.length, false).messages;
    const tail = () => {
      const h = historyAt(all, first.length + 20, true);
      const firstTail = h.messages.length - historyAt(second, 20, true).messages.length;
      return { ...h, messages: h.messages.slice(firstTail), hasMore: true, tracePosition: "1:40" };
    };
    const h = harness([tail], (before) => {
      expect(before).toBe("1:40");
      return { messages: olderMessages, live: null, cursor: null, pendingApprovals: [], hasMore: false, tracePosition: "1:0" };
    });
    h.open();
    await h.resolveHistory();
    expect(h.c.view.hasOlder).toBe(true);
    await h.c.loadOlder();
    for (const e of second.slice(20)) h.message(e);
    expect(h.c.view.hasOlder).toBe(false);
    expect(JSON.stringify(h.c.view.items)).toBe(straightItems(all, false));
  });
});
