// Trace notices between cluster nodes (runtime/trace-notices.ts, runtime/followed-streams.ts):
// the payload format (positions only, several sessions per notice, under PostgreSQL's 8000-byte
// limit); SessionChannel.follow reading what another node's writer appended (up to the position
// announced, or to the end) without announcing it again, while records of this node's own
// writer are announced; and, on a real PostgreSQL, two nodes' listeners: a notice reaches the
// other node and not its sender, and when the connections are cut (pg_terminate_backend) both
// reconnect, the receiver is told it listens again (to catch up from the files), and a notice
// announced while the sender was cut off goes out once it is back.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { TraceWriter, type TracePosition } from "@penguin/core";
import { userText } from "@penguin/omnimessage";
import type { SseSink } from "../src/http/sse.js";
import { SessionChannel } from "../src/runtime/session-channel.js";
import { decodeNotices, encodeNotices, PostgresTraceNotices, TRACE_NOTICE_APPLICATION, type TraceNotice } from "../src/runtime/trace-notices.js";
import { startPostgres, type PostgresServer } from "./helpers/postgres.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const SID = "session-2026-12-03-19-00-00-0123abcd";

function sink(): SseSink & { frames: string[] } {
  const frames: string[] = [];
  return { frames, send: (f) => void frames.push(f), close: () => undefined, closed: false };
}
const ids = (frames: string[]) => frames.map((f) => /^id: (.*)$/m.exec(f)?.[1]);

describe("trace notice payloads", () => {
  it("carry session ids and positions only, and split into payloads under PostgreSQL's 8000 bytes", () => {
    const notices: TraceNotice[] = [
      { sessionId: SID, position: { file: 1, line: 42 } },
      { sessionId: "other-session", position: undefined },
    ];
    expect(encodeNotices(notices)).toEqual([`${SID} 001:000042\nother-session`]);
    expect(decodeNotices(encodeNotices(notices)[0]!)).toEqual(notices);
    const many = Array.from({ length: 1000 }, (_, i) => ({ sessionId: `${SID}-${i}`, position: { file: 2, line: i + 1 } }));
    const payloads = encodeNotices(many);
    expect(payloads.length).toBeGreaterThan(1);
    for (const p of payloads) expect(Buffer.byteLength(p)).toBeLessThan(8000);
    expect(payloads.flatMap(decodeNotices)).toEqual(many);
    // Lines that are not notices (another writer on the channel) are passed over.
    expect(decodeNotices("a b c\n\nx 001:00004\ny 001:000004")).toEqual([{ sessionId: "y", position: { file: 1, line: 4 } }]);
  });
});

describe("SessionChannel.follow", () => {
  it("sends what another node's writer appended, up to the announced position or to the end, and announces only this node's own records", () => {
    const dir = mkdtempSync(join(tmpdir(), "penguin-follow-"));
    dirs.push(dir);
    const file = (index: number) => join(dir, `${SID}_${String(index).padStart(3, "0")}.jsonl`);
    const files = () => [1, 2].map((index) => ({ index, file: file(index) })).filter((f) => existsSync(f.file));
    // Node A writes; its channel hears the writer (as a hub does) and announces what it sends.
    const writer = new TraceWriter({ fileFor: file, index: 1, meta: { session_id: SID, provider: "p", model_id: "m", workspace: dir, agent_state: dir, system_prompt: "" } as never, existing: false, fsync: false });
    const onA = new SessionChannel(files, "nodea");
    const announced: TracePosition[] = [];
    onA.onAdvance = (p) => void announced.push(p);
    writer.onAppend((m, p) => onA.durable(m, p));
    // Node C's channel of the same session: made now, at the trace's end; it never announces.
    const onC = new SessionChannel(files, "nodec");
    const heardOnC: TracePosition[] = [];
    onC.onAdvance = (p) => void heardOnC.push(p);
    const client = sink();
    onC.subscribe(client, onC.lastId);

    const positions: TracePosition[] = [];
    writer.onAppend((_m, p) => void positions.push(p));
    // The header the writer puts first, then three records.
    for (const t of ["one", "two", "three"]) writer.append(userText(t));
    expect(announced).toEqual(positions);

    // A notice names the second record: C reads exactly through it.
    onC.follow(positions[1]);
    expect(ids(client.frames)).toEqual(positions.slice(0, 2).map((p) => `001:${String(p.line).padStart(6, "0")}`));
    // A notice for what C has already sent reads nothing.
    onC.follow(positions[0]);
    expect(client.frames).toHaveLength(2);
    // Listening restarted (notices may be lost): C reads to the end.
    writer.append(userText("four"));
    onC.follow();
    expect(ids(client.frames)).toEqual(positions.map((p) => `001:${String(p.line).padStart(6, "0")}`));
    expect(announced).toEqual(positions);
    expect(heardOnC).toEqual([]);
    writer.close();
  });
});

let postgres: PostgresServer | undefined;
beforeAll(async () => {
  postgres = await startPostgres();
});
afterAll(async () => {
  await postgres?.stop();
});

/** The notice connections PostgreSQL sees. */
async function admin(url: string): Promise<{ application_name: string }[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query("select application_name from pg_stat_activity where application_name = $1", [TRACE_NOTICE_APPLICATION])).rows;
  } finally {
    await client.end();
  }
}

/** A receiver whose calls can be awaited: `next()` resolves with the next batch; `listened(n)` once listening started n times. */
function receiver() {
  const batches: TraceNotice[][] = [];
  let listens = 0;
  const waiters: (() => void)[] = [];
  const wake = () => waiters.splice(0).forEach((w) => w());
  const until = async (ok: () => boolean) => {
    while (!ok()) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return {
    batches,
    receiver: { notices: (b: readonly TraceNotice[]) => (batches.push([...b]), wake()), listening: () => (listens++, wake()) },
    batch: async (n: number) => (await until(() => batches.length >= n), batches[n - 1]!),
    listened: (n: number) => until(() => listens >= n),
  };
}

describe("PostgresTraceNotices on a real PostgreSQL", { timeout: 60_000 }, () => {
  it("delivers a node's notices to the other nodes, not back to itself, and survives its connections being cut", async () => {
    const url = await postgres!.createDatabase("trace_notices");
    const nodeA = await PostgresTraceNotices.start(url, () => undefined);
    const nodeC = await PostgresTraceNotices.start(url, () => undefined);
    const onA = receiver();
    const onC = receiver();
    nodeA.deliverTo(onA.receiver);
    nodeC.deliverTo(onC.receiver);
    try {
      await Promise.all([onA.listened(1), onC.listened(1)]);
      // Announcements of one turn go out together, the newest position per session.
      nodeA.announce(SID, { file: 1, line: 3 });
      nodeA.announce(SID, { file: 1, line: 7 });
      nodeA.announce("another-session");
      expect(await onC.batch(1)).toEqual([
        { sessionId: SID, position: { file: 1, line: 7 } },
        { sessionId: "another-session", position: undefined },
      ]);

      // A's connection is cut: announced while it is down, the notice goes out once A is back.
      const terminate = async (pid: number | undefined) => {
        const admin = new pg.Client({ connectionString: url });
        await admin.connect();
        try {
          expect((await admin.query("select pg_terminate_backend($1) as ok", [pid])).rows[0].ok).toBe(true);
        } finally {
          await admin.end();
        }
      };
      expect((await admin(url)).map((r) => r.application_name)).toEqual([TRACE_NOTICE_APPLICATION, TRACE_NOTICE_APPLICATION]);
      await terminate(nodeA.backendPid);
      while (nodeA.connected) await new Promise((resolve) => setImmediate(resolve));
      nodeA.announce(SID, { file: 1, line: 9 });
      await onA.listened(2);
      expect(await onC.batch(2)).toEqual([{ sessionId: SID, position: { file: 1, line: 9 } }]);
      // C's connection is cut: C listens again and is told so (its streams then read the files).
      await terminate(nodeC.backendPid);
      await onC.listened(2);
      nodeA.announce(SID, { file: 1, line: 11 });
      expect(await onC.batch(3)).toEqual([{ sessionId: SID, position: { file: 1, line: 11 } }]);
      // Its own notices never came back to A.
      expect(onA.batches).toEqual([]);
    } finally {
      await nodeA.close();
      await nodeC.close();
    }
  });
});
