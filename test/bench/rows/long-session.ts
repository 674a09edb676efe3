// Row 14: what the server reads of one long session, a 100k-line (50 MB) trace written by the
// real TraceWriter with the realistic turns of row 5, through the server's own read paths
// (in this process, each call synchronous, so its time is time the server's event loop is
// held for every user):
// - the newest history page (`GET …/messages?tailLimit=200`) and the page before it;
// - a stream client reconnecting with a Last-Event-ID three records before the end (the
//   replay of what it missed), and the trace's end the stream finds when it first opens;
// - a stream's catch-up with records another writer appended (a subagent's trace, after each
//   of its records);
// - the trace browser's page of 500 records in the middle of the file (`GET …/traces/:sid/1?
//   offset=50000&limit=500`) through the server's record index once it is built, and time
//   travel's load of every record (pages of 5000); beside them, the same page the way it was
//   read before the index (the whole file decoded, then sliced), and the index's first build:
//   its wall time and the longest the event loop went without a turn during it (it is built in
//   slices with a turn between them); and, as a note, the JSON bytes time travel loads as the
//   events' outline (view=outline) beside the whole envelopes it loaded before.
// The baseline is reading the same file (readFileSync), measured in the same run.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { agentPaths, newSessionId, readTraceFile, sessionDate, traceFilePath, TraceRecordIndexes } from "@penguin/core";
import { readHistoryPage } from "../../../apps/server/src/services/history.js";
import { outlineOf } from "../../../apps/server/src/services/trace-view.js";
import { SessionChannel } from "../../../apps/server/src/runtime/session-channel.js";
import { formatStreamId } from "../../../apps/server/src/runtime/stream-ids.js";
import { longestHold } from "../lib/event-loop.js";
import { metric, msSince, type RowResult } from "../lib/stats.js";
import { makeWorld } from "../lib/world.js";
import { writeTrace } from "./trace.js";

function timed(run: () => void): number {
  const start = process.hrtime.bigint();
  run();
  return msSince(start);
}

async function timedAsync(run: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await run();
  return msSince(start);
}

export async function rowLongSession(runs: number, lines = 100_000): Promise<RowResult> {
  const world = await makeWorld("http://127.0.0.1:9/v1");
  const root = mkdtempSync(join(tmpdir(), "penguin-bench-long-"));
  try {
    const written = writeTrace(world.agent, world.workspace, lines);
    const paths = agentPaths(root, "default_project", "default_agent");
    const sessionId = newSessionId(new Date());
    const file = traceFilePath(paths, sessionDate(sessionId), sessionId, 1);
    mkdirSync(dirname(file), { recursive: true });
    copyFileSync(written.file, file);
    const files = () => [{ file, index: 1 }];
    const samples = { read: [] as number[], tail: [] as number[], older: [] as number[], end: [] as number[], reconnect: [] as number[], catchUp: [] as number[], page: [] as number[], wholeDecodePage: [] as number[], allPages: [] as number[], build: [] as number[], buildHeld: [] as number[] };
    const middle = Math.floor(lines / 2);
    const notes: string[] = [];
    for (let i = 0; i <= runs; i++) {
      const read = timed(() => readFileSync(file, "utf8"));
      let tracePosition: { fileIndex: number; line: number } | null = null;
      const tail = timed(() => {
        tracePosition = readHistoryPage(paths, sessionId, undefined, { tailLimit: 200 }).tracePosition;
      });
      if (tracePosition === null) throw new Error("row 14: the history tail has no position");
      const before = tracePosition;
      const older = timed(() => readHistoryPage(paths, sessionId, undefined, { before, limit: 200 }));
      const channel = new SessionChannel(files, "bench");
      let last = { file: 1, line: 0 };
      const end = timed(() => {
        last = channel.lastDurable();
      });
      let frames = 0;
      const sink = { send: () => void frames++, close: () => undefined } as unknown as Parameters<SessionChannel["subscribe"]>[0];
      const reconnect = timed(() => channel.subscribe(sink, formatStreamId({ position: { file: 1, line: last.line - 3 } }))());
      if (frames !== 3) throw new Error(`row 14: a reconnect three records before the end got ${frames} frames`);
      const catchUp = timed(() => channel.catchUp());
      const indexes = new TraceRecordIndexes();
      const held = await longestHold(() => indexes.page(file, middle, 500));
      const page = await timedAsync(() => indexes.page(file, middle, 500));
      let records = 0;
      let wholeBytes = 0;
      let outlineBytes = 0;
      const allPages = await timedAsync(async () => {
        for (let offset: number | null = 0; offset !== null; ) {
          const next = await indexes.page(file, offset, 5000);
          records += next.records.length;
          if (i === 0) {
            wholeBytes += Buffer.byteLength(JSON.stringify(next.records));
            outlineBytes += Buffer.byteLength(JSON.stringify(next.records.map((r) => ({ line: r.line, message: outlineOf(r.message) }))));
          }
          offset = offset + 5000 < next.total ? offset + 5000 : null;
        }
      });
      if (i === 0) notes.push(`time travel loads the session's events as their outline (view=outline): ${(outlineBytes / 1e6).toFixed(1)} MB of JSON where the whole envelopes are ${(wholeBytes / 1e6).toFixed(1)} MB`);
      const whole = timed(() => readTraceFile(file).messages.slice(middle, middle + 500));
      if (records !== readTraceFile(file).messages.length) throw new Error(`row 14: time travel's pages held ${records} records`);
      if (i === 0) continue; // warm-up
      samples.read.push(read);
      samples.tail.push(tail);
      samples.older.push(older);
      samples.end.push(end);
      samples.reconnect.push(reconnect);
      samples.catchUp.push(catchUp);
      samples.page.push(page);
      samples.allPages.push(allPages);
      samples.wholeDecodePage.push(whole);
      samples.build.push(held.ms);
      samples.buildHeld.push(held.longest);
    }
    const baseline = { baseline: { name: "readFileSync", samples: samples.read } };
    return {
      row: 14,
      title: `A long session in the server: ${lines} lines (${(written.bytes / 1e6).toFixed(1)} MB), the server's read paths, event loop held per call`,
      metrics: [
        metric("history: newest 200 messages (tailLimit=200)", "ms", "lower", samples.tail, baseline),
        metric("history: the 200 before them (before=…&limit=200)", "ms", "lower", samples.older, baseline),
        metric("stream: reconnect 3 records before the end (replay)", "ms", "lower", samples.reconnect, baseline),
        metric("stream: the trace's end, when a stream first opens", "ms", "lower", samples.end, baseline),
        metric("stream: catch-up with another writer (nothing new)", "ms", "lower", samples.catchUp, baseline),
        metric(`trace browser: 500 records at offset ${middle}, record index built`, "ms", "lower", samples.page, baseline),
        metric(`trace browser: the same page, the whole file decoded (as before the index)`, "ms", "lower", samples.wholeDecodePage, baseline),
        metric("time travel: every record, pages of 5000, record index built", "ms", "lower", samples.allPages, baseline),
        metric("record index, first build: wall time (not held: built in slices)", "ms", "lower", samples.build, baseline),
        metric("record index, first build: longest the event loop went without a turn", "ms", "lower", samples.buildHeld),
      ],
      note: notes.join(", "),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
    world.cleanup();
  }
}
