// History and the live cursor: `GET …/messages` pages the trace (tailLimit, before), and
// while a task runs it returns the live cursor and the open fragments so a reloading client
// can stitch history and stream with no gap and no duplicate.
import { afterEach, describe, expect, it } from "vitest";
import { aggregateAll } from "@penguin/omnimessage";
import { startHarness, type Harness } from "./helpers/harness.js";
import { newSession, openStream, text, untilRunsEnded } from "./helpers/session.js";
import { dataOf, messagesOf, seqOf, type SseEvent } from "./helpers/sse.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

describe("history paging", () => {
  it("returns the tail, then older pages before a position, across the whole trace", async () => {
    h = await startHarness({ script: [{ text: "one" }, { text: "two" }, { text: "three" }] });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace });
    const sse = await openStream(c, sid);
    for (const [i, t] of ["a", "b", "c"].entries()) {
      await c.post(`/api/sessions/${sid}/tasks`, text(t));
      await untilRunsEnded(sse, i + 1);
    }
    await sse.close();
    const all = await c.get(`/api/sessions/${sid}/messages`);
    expect(all.body.hasMore).toBe(false);
    expect(all.body.tracePosition).toEqual({ fileIndex: 1, line: 1 });
    expect(all.body.messages[0].type).toBe("session_meta");
    const texts = (ms: any[]) => ms.filter((m) => m.payload?.type === "text").map((m) => m.payload.text);
    expect(texts(all.body.messages)).toEqual(["a", "one", "b", "two", "c", "three"]);

    const tail = await c.get(`/api/sessions/${sid}/messages?tailLimit=4`);
    expect(tail.body.messages).toEqual(all.body.messages.slice(-4));
    expect(tail.body.hasMore).toBe(true);
    const { fileIndex, line } = tail.body.tracePosition;
    const older = await c.get(`/api/sessions/${sid}/messages?before=${fileIndex}:${line}&limit=5`);
    expect(older.body.messages).toEqual(all.body.messages.slice(-9, -4));
    let before = `${older.body.tracePosition.fileIndex}:${older.body.tracePosition.line}`;
    const collected = [...older.body.messages, ...tail.body.messages];
    for (let page = 0; page < 10; page++) {
      const p = await c.get(`/api/sessions/${sid}/messages?before=${before}&limit=5`);
      collected.unshift(...p.body.messages);
      if (!p.body.hasMore) break;
      before = `${p.body.tracePosition.fileIndex}:${p.body.tracePosition.line}`;
    }
    expect(collected).toEqual(all.body.messages);
    expect((await c.get(`/api/sessions/${sid}/messages?before=nonsense`)).body.error.field).toBe("before");
  });
});

describe("the live cursor", () => {
  it("lets a reloading client stitch history, fragments and buffered events without gaps or duplicates", async () => {
    const answer = "The quick brown fox jumps over the lazy dog";
    h = await startHarness({ script: [{ text: "earlier answer" }, { text: answer, chunkSize: 4, fault: { kind: "hang", afterEvents: 4 } }] });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace });
    const live = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("first"));
    await untilRunsEnded(live, 1);
    await c.post(`/api/sessions/${sid}/tasks`, text("second"));
    // The model hangs after a few chunks: the stream then stays still.
    const deltasAfterSecond = (all: SseEvent[]) => {
      const ms = messagesOf(all);
      const at = ms.findIndex((m) => m.payload?.type === "text" && m.payload.text === "second");
      return at < 0 ? 0 : ms.slice(at).filter((m) => m.payload?.type === "partial_text" && m.payload.event_type === "delta").length;
    };
    await live.until((_e, all) => deltasAfterSecond(all) >= 2);
    await h.kit.waitForRequests(2);

    // A reloading client: stream first (buffer), then the page.
    const reloaded = await openStream(c, sid);
    const page = await c.get(`/api/sessions/${sid}/messages`);
    expect(page.body.state).toBe("running");
    expect(page.body.live.cursor).toBe(page.body.cursor);
    // The cursor is an id the stream delivers (the model hangs, so it is the newest one).
    await live.until((e) => e.id === page.body.cursor);
    const fragments = page.body.live.fragments;
    expect(fragments.length).toBeGreaterThanOrEqual(2);
    expect(fragments.every((f: any) => f.payload.type === "partial_text")).toBe(true);
    const texts = page.body.messages.filter((m: any) => m.payload?.type === "text").map((m: any) => m.payload.text);
    expect(texts).toEqual(["first", "earlier answer", "second"]);

    // The fragments are exactly the open segment's partials streamed up to the cursor.
    const secondAt = live.events.findIndex((e) => e.event === "message" && dataOf(e).payload?.text === "second");
    const streamedPartials = messagesOf(live.events.slice(secondAt).filter((e) => seqOf(e.id) <= seqOf(page.body.cursor))).filter((m) => m.payload?.type === "partial_text");
    expect(fragments).toEqual(streamedPartials);

    // The model resumes (we abort, which ends the segment); events after the cursor complete the picture.
    await c.post(`/api/sessions/${sid}/abort`);
    await untilRunsEnded(reloaded, 1);
    const after = reloaded.events.filter((e) => e.id !== undefined && seqOf(e.id) > seqOf(page.body.cursor));
    const rebuilt = [...page.body.messages, ...aggregateAll([...fragments, ...messagesOf(after).filter((m) => m.payload?.type?.startsWith("partial_"))]), ...messagesOf(after).filter((m) => !m.payload?.type?.startsWith("partial_"))];
    const rebuiltTexts = rebuilt.filter((m: any) => m.payload?.type === "text").map((m: any) => m.payload.text);
    expect(rebuiltTexts.slice(0, 3)).toEqual(["first", "earlier answer", "second"]);
    expect(rebuiltTexts[3]).toBe(streamedPartials.map((m) => m.payload.text).join(""));
    expect(answer.startsWith(rebuiltTexts[3] ?? "?")).toBe(true);
    // No event before the cursor was needed from the buffer, none after it was in the page.
    const pageIds = new Set(page.body.messages.map((m: any) => JSON.stringify(m)));
    expect(messagesOf(after).some((m) => pageIds.has(JSON.stringify(m)))).toBe(false);
    const afterPage = await c.get(`/api/sessions/${sid}/messages`);
    expect(afterPage.body.live).toBeUndefined();
    expect(dataOf(reloaded.events[0]!).type).toBe("task_state");
    await live.close();
    await reloaded.close();
  });
});
