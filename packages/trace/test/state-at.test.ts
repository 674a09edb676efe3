// stateAt and positions on real files: given a session written by the TraceWriter (with a
// rotation), when the state is asked at any event count or position, then it equals the
// plain fold of that prefix, whether answered from snapshots or not, and positions the writer
// published are the ones the reader numbers.
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  assistantText,
  compactionBegin,
  compactionEnd,
  requestBegin,
  requestEnd,
  sessionTitle,
  tokenUsage,
  userText,
  type OmniMessage,
  type SessionMetaPayload,
} from "@penguin/omnimessage";
import { comparableFold, foldTimeTravel, foldTrace, formatPosition, parseAt, parsePosition, readTraceFile, SessionFolds, traceFilesIn, TraceWriter, type TracePosition } from "../src/index.js";

const SID = "session-2026-12-01-09-00-00-0123abcd";
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "penguin-trace-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const meta: SessionMetaPayload = { session_id: SID, provider: "p", model_id: "m", model_context_window: 1000, system_prompt: "", agent_state: "/a", workspace: "/w" };
const fileFor = (index: number) => join(dir, "2026-12-01", `${SID}_${String(index).padStart(3, "0")}.jsonl`);
const counts = (n: number) => ({ cache_read: 0, cache_write: n, output: 1, total: n + 1 });

function turn(i: number): OmniMessage[] {
  return [requestBegin(), userText(`q${i}`), assistantText(`a${i}`), requestEnd("completed"), tokenUsage(counts(i), counts(i))];
}

/** Writes a session of `turns` turns, compacted and rotated halfway; returns every record with its published position. */
function writeSession(turns: number): { records: { m: OmniMessage; position: TracePosition }[]; writer: TraceWriter } {
  const writer = new TraceWriter({ fileFor, index: 1, meta, existing: false, fsync: false });
  const records: { m: OmniMessage; position: TracePosition }[] = [];
  writer.onAppend((m, position) => records.push({ m, position }));
  writer.setTools([]);
  for (let i = 0; i < turns; i++) {
    for (const m of turn(i)) writer.append(m);
    if (i === Math.floor(turns / 2)) {
      writer.append(compactionBegin({ reason: "manual", mode: "summarize", context: 10, turns: i }));
      writer.append(requestBegin());
      writer.append(assistantText("[summary]so far[/summary]"));
      writer.append(requestEnd("completed"));
      writer.append(compactionEnd({ reason: "manual", mode: "summarize", status: "completed" }));
      writer.rotate();
    }
  }
  writer.append(sessionTitle("A session"));
  return { records, writer };
}

describe("positions", () => {
  it("given a position, when formatted and parsed, then it round-trips in the NNN:LLLLLL form", () => {
    expect(formatPosition({ file: 2, line: 17 })).toBe("002:000017");
    expect(parsePosition("002:000017")).toEqual({ file: 2, line: 17 });
    expect(parsePosition("2:17")).toBeUndefined();
    expect(parseAt("120")).toEqual({ kind: "count", count: 120 });
    expect(() => parseAt("yesterday")).toThrow(/event count .* or a file:line position/);
  });

  it("given records the writer published, when the files are read back, then each record sits at its published position", () => {
    const { records, writer } = writeSession(6);
    writer.close();
    const byFile = new Map(traceFilesIn(dir, SID).map((r) => [r.index, readTraceFile(r.file)]));
    expect([...byFile.keys()]).toEqual([1, 2]);
    for (const { m, position } of records) {
      const content = byFile.get(position.file)!;
      const i = content.lines.indexOf(position.line);
      expect(i).toBeGreaterThanOrEqual(0);
      expect(content.messages[i]).toEqual(JSON.parse(JSON.stringify(m)));
    }
  });

  it("given a file with a torn tail and NUL padding, when the writer continues it, then the next position follows the damage", () => {
    const { writer } = writeSession(1);
    writer.close();
    appendFileSync(fileFor(2), '{"timestamp":"t","type":"event_m');
    appendFileSync(fileFor(2), "\0\0\0");
    const again = new TraceWriter({ fileFor, index: 2, meta, existing: true, toolsWritten: true, fsync: false });
    const seen: TracePosition[] = [];
    again.onAppend((_m, p) => seen.push(p));
    const expected = again.nextPosition();
    again.append(sessionTitle("after the crash"));
    again.close();
    const content = readTraceFile(fileFor(2));
    expect(content.skipped.map((s) => s.reason)).toEqual(["invalid-json"]);
    expect(seen).toEqual([expected]);
    expect(content.lines.at(-1)).toBe(expected.line);
  });
});

describe("stateAt", () => {
  it("given a rotated session, when asked at every event count, then snapshots answer exactly what a plain fold does", () => {
    const { writer } = writeSession(9);
    writer.close();
    const all = traceFilesIn(dir, SID).flatMap((r) => readTraceFile(r.file).messages);
    const folds = new SessionFolds({ snapshotEvery: 4 });
    // Ask in a shuffled order so later answers start from snapshots made by earlier ones.
    const order = all.map((_, i) => i + 1).sort((a, b) => ((a * 7919) % 101) - ((b * 7919) % 101));
    for (const n of order) {
      const r = folds.stateAt(dir, SID, n);
      const expected = foldTrace(all.slice(0, n));
      expect(r.events).toBe(n);
      expect(r.state.turns).toBe(expected.turns);
      expect(r.state.history.toArray()).toEqual(expected.history.toArray());
      expect(r.state.pending.toArray()).toEqual(expected.pending.toArray());
      expect(r.state.sessionUsage).toEqual(expected.sessionUsage);
      expect(r.state.pendingSummary).toBe(expected.pendingSummary);
    }
    const end = folds.stateAt(dir, SID);
    expect(end.events).toBe(all.length);
    expect(end.state.title).toBe("A session");
  });

  it("given a position in the second file, when asked, then the fold stops at that line", () => {
    const { records, writer } = writeSession(4);
    writer.close();
    const target = records.find((r) => r.position.file === 2 && r.m.type === "event_msg" && r.m.payload.type === "request_end")!;
    const r = new SessionFolds().stateAt(dir, SID, formatPosition(target.position));
    expect(r.position).toEqual(target.position);
    const upTo = records.slice(0, records.indexOf(target) + 1).map((x) => x.m);
    expect(r.events).toBe(upTo.length);
    expect(r.state.turns).toBe(foldTrace(upTo).turns);
  });

  it("given a recording in memory, when its time-travel fold is asked at every event in shuffled order, then the snapshots answer what a plain fold does, and the file path agrees", () => {
    const { writer } = writeSession(9);
    writer.close();
    const all = traceFilesIn(dir, SID).flatMap((r) => readTraceFile(r.file).messages);
    const folds = new SessionFolds({ snapshotEvery: 3 });
    const recording = { messages: all };
    const order = all.map((_, i) => i + 1).sort((a, b) => ((a * 7919) % 101) - ((b * 7919) % 101));
    for (const n of order) {
      const fold = folds.foldRecordingAt(recording, (i) => recording.messages[i]!, n);
      expect(comparableFold(fold), `recording at ${n}`).toEqual(comparableFold(foldTimeTravel(all.slice(0, n))));
      // The same cache over the files answers the same fold (its session is sessionState's state).
      const fromFiles = folds.stateAt(dir, SID, n);
      expect(comparableFold(fromFiles.fold), `files at ${n}`).toEqual(comparableFold(fold));
      expect(fromFiles.state).toBe(fromFiles.fold.session);
    }
  });

  it("given a session that keeps growing, when asked again, then the answer includes the new records", () => {
    const writer = new TraceWriter({ fileFor, index: 1, meta, existing: false, fsync: false });
    const folds = new SessionFolds({ snapshotEvery: 2 });
    for (const m of turn(0)) writer.append(m);
    expect(folds.stateAt(dir, SID).state.turns).toBe(1);
    for (const m of turn(1)) writer.append(m);
    writer.append(sessionTitle("grown"));
    const r = folds.stateAt(dir, SID);
    expect(r.state.turns).toBe(2);
    expect(r.state.title).toBe("grown");
    writer.close();
  });
});
