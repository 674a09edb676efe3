// SessionChannel as a unit, over a real trace file written by the TraceWriter: records go out
// with their positions as ids; a replay after Last-Event-ID reads the records from the file
// and puts the volatile events this process kept at their places among them; a channel of
// another process (a restart) replays the records alone; ids that name no position of the
// trace get resync_required; the volatile ring is bounded.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { TraceWriter, type TracePosition } from "@penguin/core";
import { requestBegin, requestEnd, sessionTitle, userText, type OmniMessage } from "@penguin/omnimessage";
import type { SseSink } from "../src/http/sse.js";
import { PARTIALS_KEPT_FOR_LEAVERS_MS, readRecords, SessionChannel, traceEnd } from "../src/runtime/session-channel.js";
import { parseStreamId, formatStreamId } from "../src/runtime/stream-ids.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function sink(): SseSink & { frames: string[] } {
  const frames: string[] = [];
  let closed = false;
  return {
    frames,
    send: (f) => void frames.push(f),
    close: () => void (closed = true),
    get closed() {
      return closed;
    },
  };
}

const ids = (frames: string[]) => frames.map((f) => /^id: (.*)$/m.exec(f)?.[1]);
const datas = (frames: string[]) => frames.map((f) => /^data: (.*)$/m.exec(f)?.[1]);

const SID = "session-2026-07-18-03-00-00-0123abcd";

/** A trace on disk and a channel following it the way a hub does (records from the writer's listener). */
function world(epoch = "ep1") {
  const dir = mkdtempSync(join(tmpdir(), "penguin-channel-"));
  dirs.push(dir);
  const file = (index: number) => join(dir, `${SID}_${String(index).padStart(3, "0")}.jsonl`);
  const writer = new TraceWriter({ fileFor: file, index: 1, meta: { session_id: SID, provider: "p", model_id: "m", workspace: dir, agent_state: dir, system_prompt: "" } as never, existing: false, fsync: false });
  const files = () => [1, 2, 3].map((index) => ({ index, file: file(index) })).filter((f) => existsSync(f.file));
  const channel = (e = epoch) => new SessionChannel(files, e);
  const ch = channel();
  // As a hub does when it starts following a writer: know where the trace stands first.
  ch.catchUp();
  writer.onAppend((m, p) => ch.durable(m, p));
  return { writer, ch, channel };
}

const note = (text: string): OmniMessage => userText(text);

describe("SessionChannel", () => {
  it("sends records with their positions and replays from the trace with the volatile events at their places", () => {
    const { writer, ch } = world();
    const live = sink();
    ch.subscribe(live);
    writer.append(note("a"));
    const v1 = ch.volatile('"partial 1"');
    const v2 = ch.volatile('"partial 2"');
    writer.append(note("b"));
    const v3 = ch.volatile('"partial 3"', "server_event");
    writer.append(note("c"));
    // The header (session_meta) is line 1, then a, b, c.
    expect(ids(live.frames)).toEqual(["001:000001", "001:000002", v1, v2, "001:000003", v3, "001:000004"]);
    expect(v1).toBe("001:000002.ep1.1");
    expect(v3).toBe("001:000003.ep1.1");
    expect(ch.lastId).toBe("001:000004");

    for (const [i, from] of ids(live.frames).entries()) {
      const back = sink();
      ch.subscribe(back, from);
      expect(ids(back.frames)).toEqual(ids(live.frames).slice(i + 1));
      expect(datas(back.frames)).toEqual(datas(live.frames).slice(i + 1));
    }
    const fromStart = sink();
    ch.subscribe(fromStart, "000:000000");
    expect(ids(fromStart.frames)).toEqual(ids(live.frames));
  });

  it("after a restart (another epoch, nothing in memory) replays the records alone, and only resyncs ids that cannot exist", () => {
    const { writer, ch, channel } = world();
    writer.append(note("a"));
    const partial = ch.volatile('"p"');
    writer.append(note("b"));
    const restarted = channel("ep2");
    const back = sink();
    restarted.subscribe(back, partial);
    expect(ids(back.frames)).toEqual(["001:000003"]);
    expect(JSON.parse(datas(back.frames)[0]!).payload.text).toBe("b");
    // Its own volatile events are numbered after the trace's end, with its epoch.
    expect(restarted.volatile('"x"')).toBe("001:000003.ep2.1");

    for (const stale of ["001:000009", "002:000001", "ep1-3", "nonsense", "001:000000"]) {
      const s = sink();
      restarted.subscribe(s, stale);
      expect(s.frames).toHaveLength(1);
      expect(s.frames[0]).toContain("event: server_event");
      expect(s.frames[0]).toContain('"resync_required"');
      expect(ids(s.frames)).toEqual([restarted.lastId]);
    }
  });

  it("follows rotated files and catches up on records someone else wrote", () => {
    const { writer, ch, channel } = world();
    writer.append(note("a"));
    writer.rotate();
    writer.append(note("b"));
    expect(ch.lastDurable()).toEqual({ file: 2, line: 2 } satisfies TracePosition);
    const reader = channel("ep3");
    expect(reader.lastDurable()).toEqual({ file: 2, line: 2 });
    const seen = sink();
    reader.subscribe(seen, "001:000002");
    expect(ids(seen.frames)).toEqual(["002:000001", "002:000002"]);
    writer.append(sessionTitle("T"));
    reader.catchUp();
    expect(ids(seen.frames).at(-1)).toBe("002:000003");
    reader.catchUp();
    expect(ids(seen.frames)).toHaveLength(3);
  });

  it("drops a finished run's partials when every client that saw them is still connected; a reconnect still gets every record and server event", () => {
    const { writer, ch } = world();
    writer.append(note("before the run"));
    const live = sink();
    ch.subscribe(live);
    const start = ch.volatile('{"type":"task_state","state":"running"}', "server_event");
    const partials = [1, 2, 3].map((i) => ch.volatile(`"delta ${i}"`, undefined, { streaming: true }));
    writer.append(note("abc"));
    const subagent = ch.volatile('"a subagent message"');
    const end = ch.volatile('{"type":"task_state","state":"idle"}', "server_event");
    const withPartials = ch.volatileSize;
    expect(withPartials.events).toBe(6);

    expect(ch.runEnded()).toBe(3);
    expect(ch.volatileSize.events).toBe(3);
    expect(ch.volatileSize.bytes).toBeLessThan(withPartials.bytes);
    // The connected client had everything already; one coming back from before the run (or
    // from inside it) gets the records and the server events, the partials' text being in the record.
    for (const from of ["001:000002", partials[1]!]) {
      const back = sink();
      ch.subscribe(back, from);
      const expected = from === "001:000002" ? [start, "001:000003", subagent, end] : ["001:000003", subagent, end];
      expect(ids(back.frames)).toEqual(expected);
      expect(JSON.parse(datas(back.frames)[expected.indexOf("001:000003")]!).payload.text).toBe("abc");
    }
    expect(ids(live.frames)).toEqual([start, ...partials, "001:000003", subagent, end]);
  });

  it("keeps a finished run's partials for a client that left during it, until it has had time to come back", () => {
    let now = 1_000;
    const ch = new SessionChannel(() => [], "ep5", { maxEvents: 100, maxBytes: 1e6 }, () => now);
    const stays = sink();
    ch.subscribe(stays);
    const leaves = sink();
    const leave = ch.subscribe(leaves);
    const first = ch.volatile('"delta 1"', undefined, { streaming: true });
    leave();
    const missed = [ch.volatile('"delta 2"', undefined, { streaming: true }), ch.volatile('"idle"', "server_event")];
    expect(ch.runEnded()).toBe(0);
    // It comes back with its last id and gets exactly what it missed, the partial included.
    const back = sink();
    ch.subscribe(back, first);
    expect(ids(back.frames)).toEqual(missed);
    // Later, once a leaver has had PARTIALS_KEPT_FOR_LEAVERS_MS to come back, the next run's end drops them.
    now += PARTIALS_KEPT_FOR_LEAVERS_MS;
    ch.volatile('"delta 3"', undefined, { streaming: true });
    expect(ch.runEnded()).toBe(3);
    expect(ch.volatileSize.events).toBe(1);
  });

  // Issue 28: a stream opened on an idle session lost the first records of the next task when
  // the channel read the trace's end after the writer had written them and before their sync
  // published them. The boundary is now each client's own position.
  it("a record written before its sync publishes it reaches clients whose position is before it, however the trace's end was read meanwhile", async () => {
    const dir = mkdtempSync(join(tmpdir(), "penguin-channel-"));
    dirs.push(dir);
    const file = (index: number) => join(dir, `${SID}_${String(index).padStart(3, "0")}.jsonl`);
    const meta = { session_id: SID, provider: "p", model_id: "m", workspace: dir, agent_state: dir, system_prompt: "" } as never;
    const first = new TraceWriter({ fileFor: file, index: 1, meta, existing: false, fsync: false });
    first.append(note("an earlier task"));
    first.close();
    const files = () => [{ index: 1, file: file(1) }].filter((f) => existsSync(f.file));
    // Where a history read of the idle session leaves a client (read from the files, no hub yet).
    const cursor = formatStreamId({ position: traceEnd(files()) });
    // The idle session's hub: its channel, and a client connected without an id.
    const ch = new SessionChannel(files, "ep1");
    const fresh = sink();
    ch.subscribe(fresh);
    // The next task: the writer (syncing commit points) writes; a commit point's sync is in
    // flight, so the records after it are on disk but not yet published.
    const writer = new TraceWriter({ fileFor: file, index: 1, meta, existing: true, fsync: true });
    writer.onAppend((m, p) => ch.durable(m, p));
    writer.append(requestEnd("completed"));
    writer.append(requestBegin());
    writer.append(note("the next task"));
    // Meanwhile a server event and a history read ask where the stream stands, and clients connect.
    ch.volatile(JSON.stringify({ type: "task_state", state: "running" }), "server_event");
    const midway = ch.lastId;
    const resumed = sink();
    ch.subscribe(resumed, cursor);
    const late = sink();
    ch.subscribe(late, midway);
    await writer.published();
    writer.close();
    const written = readRecords(files(), parseStreamId(cursor)!.position, undefined).map((r) => formatStreamId({ position: r.position }));
    expect(written).toHaveLength(3);
    const records = (frames: string[]) => ids(frames).filter((id) => id !== undefined && !id.includes("."));
    expect(records(fresh.frames)).toEqual(written);
    expect(records(resumed.frames)).toEqual(written);
    expect(records(late.frames)).toEqual(written.filter((id) => id > midway.split(".")[0]!));
    // A catch-up after the writer published (a fact noticed late) sends nothing twice.
    ch.catchUp();
    expect(records(fresh.frames)).toEqual(written);
  });

  it("bounds the volatile ring and parses only well-formed ids", () => {
    const { writer, channel } = world();
    writer.append(note("a"));
    const ch = new SessionChannel(() => [], "ep4", { maxEvents: 3, maxBytes: 1e6 });
    for (let i = 0; i < 10; i++) ch.volatile(String(i));
    const s = sink();
    ch.subscribe(s, "000:000000");
    expect(datas(s.frames)).toEqual(["7", "8", "9"]);
    expect(channel().lastDurable()).toEqual({ file: 1, line: 2 });
    expect(parseStreamId("001:000042")).toEqual({ position: { file: 1, line: 42 } });
    expect(parseStreamId("001:000042.ab1.7")).toEqual({ position: { file: 1, line: 42 }, volatile: { epoch: "ab1", k: 7 } });
    for (const bad of ["1:42", "001:000042.ab1.0", "001:000042.AB.1", "000:000001", "abc-1"]) expect(parseStreamId(bad)).toBeUndefined();
    expect(formatStreamId({ position: { file: 12, line: 3 } })).toBe("012:000003");
  });
});
