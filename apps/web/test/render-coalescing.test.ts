// The chat view renders once per animation frame, however many events arrive in between:
// given a live session, when a burst of streamed deltas arrives, then one frame is asked for,
// the view does not change until it runs, and that frame shows every delta. The default
// scheduler is requestAnimationFrame itself (no timer stands in for it in a browser).
import { afterEach, describe, expect, it, vi } from "vitest";
import { userText } from "@penguin/omnimessage";
import type { SseOptions } from "../src/api/sse";
import { SessionController, type ControllerDeps } from "../src/lib/stream/session-controller";
import { at, historyAt, publish, resetClock, streamedText, type Published } from "./helpers/stream-script";

afterEach(() => {
  vi.unstubAllGlobals();
  resetClock();
});

/** A controller on a scripted stream; `schedule` decides how frames are requested. */
async function liveController(events: readonly Published[], schedule?: ControllerDeps["schedule"]) {
  let opts: SseOptions | undefined;
  const c = new SessionController("s1", {
    openStream: (o) => {
      opts = o;
      return { close: () => undefined, reconnectNow: () => undefined, lastEventId: undefined, status: "open" };
    },
    fetchHistory: () => Promise.resolve(historyAt(events, 1, true)),
    fetchGoal: () => Promise.resolve(undefined),
    ...(schedule === undefined ? {} : { schedule }),
  });
  c.start();
  opts?.onOpen?.({ reconnect: false, lastEventId: undefined });
  await vi.waitFor(() => expect(c.view.loading).toBe(false));
  const deliver = (e: Published) => opts?.onFrame({ event: "message", id: e.id, data: JSON.stringify(e.message) });
  return { c, deliver };
}

const lastText = (c: SessionController) => {
  const row = c.view.items.findLast((item) => item.kind === "assistant");
  return row?.kind === "assistant" ? row.text : undefined;
};

describe("render coalescing", () => {
  it("given a burst of 400 deltas between two frames, when they arrive, then one frame is asked for and it shows them all", async () => {
    const text = "x".repeat(400);
    const events = publish([userText("go", at()), ...streamedText(text, 1)]);
    const frames: (() => void)[] = [];
    const { c, deliver } = await liveController(events, (fn) => frames.push(fn));
    const before = JSON.stringify(c.view.items);
    const deltas = events.slice(1, 402); // start + 400 deltas, the stream still open
    for (const e of deltas) deliver(e);
    expect(frames).toHaveLength(1);
    expect(JSON.stringify(c.view.items)).toBe(before);
    frames.shift()?.();
    expect(lastText(c)).toBe(text);
    expect(frames).toHaveLength(0);
    for (const e of events.slice(402)) deliver(e);
    expect(frames).toHaveLength(1);
  });

  it("given no scheduler, when deltas arrive, then the controller waits for requestAnimationFrame", async () => {
    const callbacks: FrameRequestCallback[] = [];
    vi.stubGlobal("requestAnimationFrame", (cb: FrameRequestCallback) => callbacks.push(cb));
    const events = publish([userText("go", at()), ...streamedText("hello world", 1)]);
    const { c, deliver } = await liveController(events);
    const pending = callbacks.length;
    for (const e of events.slice(1, 8)) deliver(e);
    expect(callbacks.length).toBe(pending + 1);
    expect(lastText(c)).toBeUndefined();
    callbacks.at(-1)?.(performance.now());
    expect(lastText(c)).toBe("hello ");
  });
});
