// The write model without a service around it: the TraceWriter appends, the reader reads and
// SessionFolds (the one fold cache) folds, on a real temp dir. These are the behaviours the
// deleted TraceStore Effect service was tested for, one test each, now asked of the parts that
// have them: given a session's writer, when records are appended, then they are read back at
// the positions `append` answered, stamped by the writer's clock and never going back in time;
// listeners see a record only once it is on disk; a rotation starts `_002` with its header and
// the fold spans both files; damaged lines are skipped and counted, never rewritten.
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assistantText, requestBegin, requestEnd, sessionTitle, tokenUsage, userText, type OmniMessage, type SessionMetaPayload } from "@penguin/omnimessage";
import { formatPosition, readTraceFile, SessionFolds, traceFilesIn, TraceWriter, type TracePosition } from "../src/index.js";

const SID = "session-2026-12-01-09-00-00-0123abcd";
const meta: SessionMetaPayload = { session_id: SID, provider: "p", model_id: "m", model_context_window: 1000, system_prompt: "", agent_state: "/a", workspace: "/w" };
const usage = { cache_read: 0, cache_write: 1, output: 1, total: 2 };
let dir: string;
const fileFor = (index: number) => join(dir, "2026-12-01", `${SID}_${String(index).padStart(3, "0")}.jsonl`);
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "penguin-write-read-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const readAll = () => traceFilesIn(dir, SID).flatMap((ref) => {
  const content = readTraceFile(ref.file);
  return content.messages.map((m, i) => ({ m, position: { file: ref.index, line: content.lines[i]! } }));
});

describe("write, read and fold a session (what TraceStore offered)", () => {
  it("given a writer on a clock, when records are appended, then they are read back at the positions append answered, with the clock's stamps", () => {
    const clock = { ms: 10_000 };
    const writer = new TraceWriter({ fileFor, index: 1, meta, existing: false, fsync: false, now: () => clock.ms });
    writer.setTools([]);
    const first = writer.append(requestBegin({ at: "2030-01-01T00:00:00.000Z" }));
    clock.ms += 250;
    const second = writer.append(userText("hi"));
    writer.close();
    // session_meta and tool_list_ready went first, lazily, right before the first record.
    expect(first).toEqual({ file: 1, line: 3 });
    expect(second).toEqual({ file: 1, line: 4 });
    const read = readAll();
    expect(read.map((r) => formatPosition(r.position))).toEqual(["001:000001", "001:000002", "001:000003", "001:000004"]);
    expect(read.map((r) => r.m.type)).toEqual(["session_meta", "event_msg", "event_msg", "model_msg"]);
    expect(read[2]!.m.timestamp).toBe("1970-01-01T00:00:10.000Z");
    expect(read[3]!.m.timestamp).toBe("1970-01-01T00:00:10.250Z");
  });

  it("given the clock goes back, when more records are appended, then their timestamps never decrease", () => {
    const clock = { ms: 5_000 };
    const writer = new TraceWriter({ fileFor, index: 1, meta, existing: false, fsync: false, now: () => clock.ms });
    writer.append(requestBegin());
    clock.ms = 1_000;
    writer.append(requestEnd("completed"));
    writer.close();
    const [begin, end] = readAll().slice(-2).map((r) => r.m.timestamp);
    expect(end! >= begin!).toBe(true);
    expect(end).toBe(begin);
  });

  it("given a listener, when records are appended, then it receives each after it is on disk, with the position append answered", async () => {
    const writer = new TraceWriter({ fileFor, index: 1, meta, existing: false, fsync: true });
    const seen: { m: OmniMessage; position: TracePosition; onDisk: string }[] = [];
    writer.onAppend((m, position) => seen.push({ m, position, onDisk: readFileSync(fileFor(position.file), "utf8").split("\n")[position.line - 1] ?? "" }));
    writer.append(requestBegin());
    const answered = writer.append(assistantText("hello"));
    const ended = writer.append(requestEnd("completed"));
    await writer.published();
    writer.close();
    expect(seen.map((e) => e.m.type)).toEqual(["session_meta", "event_msg", "model_msg", "event_msg"]);
    for (const e of seen) expect(JSON.parse(e.onDisk).type).toBe(e.m.type);
    expect(seen[2]!.position).toEqual(answered);
    expect(seen[3]!.position).toEqual(ended);
  });

  it("given a rotation, when the next record is appended, then it starts file _002 with its own header and the fold spans both", () => {
    const writer = new TraceWriter({ fileFor, index: 1, meta, existing: false, fsync: false });
    writer.setTools([]);
    for (const m of [requestBegin(), userText("q"), assistantText("a"), requestEnd("completed"), tokenUsage(usage, usage)]) writer.append(m);
    writer.rotate();
    const next = writer.append(sessionTitle("second file"));
    writer.close();
    expect(next).toEqual({ file: 2, line: 3 });
    const folds = new SessionFolds({ snapshotEvery: 4 });
    const end = folds.stateAt(dir, SID);
    expect(end.totalEvents).toBe(10);
    expect(end.state.segments).toBe(2);
    expect(end.state.title).toBe("second file");
    const before = folds.stateAt(dir, SID, "001:000006");
    expect(before.state.turns).toBe(1);
    expect(before.state.title).toBeUndefined();
    expect(() => folds.stateAt(dir, SID, "the middle")).toThrow(/invalid position "the middle"/);
  });

  it("given a torn tail, NUL padding and a malformed middle line, when read, then they are counted and skipped and the file is unchanged", () => {
    const writer = new TraceWriter({ fileFor, index: 1, meta, existing: false, fsync: false });
    writer.append(requestBegin());
    writer.close();
    const file = fileFor(1);
    appendFileSync(file, '{"timestamp":"t","type":"model_msg","payload":{"type":"text","role":"user"}}\n\0\0\0\n{"timestamp":"t","type":"event_msg","payload":{"type":"request_end","status":"completed"}}\n{"timestamp":"t","type":"ev');
    const before = readFileSync(file, "utf8");
    const content = readTraceFile(file);
    expect(content.messages).toHaveLength(3);
    expect(content.skipped.map((s) => [s.line, s.reason])).toEqual([[3, "not-an-envelope"], [6, "torn"]]);
    expect(content.skipped[0]!.error).toContain('["payload"]["text"]');
    expect(content.lines).toEqual([1, 2, 5]);
    expect(new SessionFolds().stateAt(dir, SID).totalEvents).toBe(3);
    expect(readFileSync(file, "utf8")).toBe(before);
    expect(traceFilesIn(dir, "session-2026-12-01-09-00-00-ffffffff")).toEqual([]);
  });
});
