// FileLines (file-lines.ts): a session's writer followed so the file's resume snapshot can be
// written when a task ends (checkpoint, the writer still open) and when the session ends. Given a session written through the real TraceWriter (new,
// or resumed from what readForResume read), when it ends, then its snapshot covers every line
// and the next resume folds nothing from the file's start, with the whole file's fold; given a
// file it did not see whole, or one that no longer ends where the writer left it, then no
// snapshot is written. Real files in a temp dir, sessions scripted by seed.
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { OmniMessage } from "@penguin/omnimessage";
import { comparableFold, evolve, FileLines, foldTrace, initialSessionState, readForResume, readTraceFile, resumeSnapshotFile, TraceWriter, type SessionState } from "../src/index.js";
import { meta, scriptedSession } from "./helpers/scripted-session.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "penguin-file-lines-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A writer on `file` and the live fold of what it writes, from `seed`, as a session keeps them. */
function session(file: string, options: { existing: boolean; seed?: SessionState }): { writer: TraceWriter; state: () => SessionState } {
  const writer = new TraceWriter({ fileFor: () => file, index: 1, meta: meta.payload, existing: options.existing, toolsWritten: true, fsync: false });
  let state = options.seed ?? initialSessionState;
  writer.onWrite((m) => {
    state = evolve(state, m);
  });
  return { writer, state: () => state };
}

const lineCount = (file: string): number => readFileSync(file, "utf8").split("\n").length - 1;

/** A resume of `file` now (as a crash leaves it) takes `lines` from its snapshot and folds to the whole file's fold; returns `lines`. */
function expectResumeFromSnapshotAt(file: string, lines: number): number {
  const read = readForResume(file, { minLines: 1_000_000 });
  expect(read.fromSnapshot).toBe(lines);
  expect(comparableFold(read.state)).toEqual(comparableFold(foldTrace(readTraceFile(file).messages)));
  return lines;
}

/** The records after the session_meta line (the writer writes the header itself). */
function body(records: OmniMessage[]): OmniMessage[] {
  return records.filter((m) => m.type !== "session_meta");
}

describe("FileLines", () => {
  it("given a new session's file, when the session ends, then its snapshot covers every line and the next resume folds from it to the whole file's fold", () => {
    const file = join(dir, "session_001.jsonl");
    const live = session(file, { existing: false });
    const lines = new FileLines(live.writer, "new-file");
    for (const m of body(scriptedSession(11, 150))) live.writer.append(m);
    live.writer.close();
    expect(lines.writeSnapshot(live.state(), 1)).toBe(true);

    expectResumeFromSnapshotAt(file, lineCount(file));
    // References to the file's lines, not a copy of the context.
    expect(statSync(resumeSnapshotFile(file)).size).toBeLessThan(statSync(file).size / 3);
  });

  it("given a resumed session, when it ends, then the snapshot covers the lines it read and the ones it wrote", () => {
    const file = join(dir, "session_001.jsonl");
    const records = body(scriptedSession(12, 200));
    const first = session(file, { existing: false });
    for (const m of records.slice(0, 400)) first.writer.append(m);
    first.writer.close();

    const read = readForResume(file, { minLines: 1_000_000 });
    const resumed = session(file, { existing: true, seed: read.state });
    const lines = new FileLines(resumed.writer, { index: 1, messages: read.content.messages, lines: read.content.lines });
    for (const m of records.slice(400)) resumed.writer.append(m);
    resumed.writer.close();
    expect(lines.writeSnapshot(resumed.state(), 1)).toBe(true);

    expectResumeFromSnapshotAt(file, lineCount(file));
  });

  it("given a resumed file it did not see whole, a file shorter than the minimum, or a file a torn line was added to, then no snapshot is written", () => {
    const file = join(dir, "session_001.jsonl");
    const records = body(scriptedSession(13, 120));
    const first = session(file, { existing: false });
    const short = new FileLines(first.writer, "new-file");
    for (const m of records.slice(0, 300)) first.writer.append(m);
    first.writer.close();
    expect(short.writeSnapshot(first.state(), 1_000_000)).toBe(false);
    expect(existsSync(resumeSnapshotFile(file))).toBe(false);

    const unknown = session(file, { existing: true, seed: foldTrace(readTraceFile(file).messages) });
    const notWhole = new FileLines(unknown.writer, undefined);
    for (const m of records.slice(300)) unknown.writer.append(m);
    unknown.writer.close();
    expect(notWhole.writeSnapshot(unknown.state(), 1)).toBe(false);
    expect(existsSync(resumeSnapshotFile(file))).toBe(false);

    const read = readForResume(file, { minLines: 1_000_000 });
    const last = session(file, { existing: true, seed: read.state });
    const torn = new FileLines(last.writer, { index: 1, messages: read.content.messages, lines: read.content.lines });
    last.writer.append(records[0]!);
    last.writer.close();
    appendFileSync(file, '{"type":"model_msg","timest');
    expect(torn.writeSnapshot(last.state(), 1)).toBe(false);
    expect(existsSync(resumeSnapshotFile(file))).toBe(false);
  });

  it("given a session still writing, when a task ends past the refresh distance, then the snapshot covers every line so far and a resume of the file as a crash leaves it folds from there", () => {
    const file = join(dir, "session_001.jsonl");
    const records = body(scriptedSession(14, 200));
    const live = session(file, { existing: false });
    const lines = new FileLines(live.writer, "new-file");
    for (const m of records.slice(0, 300)) live.writer.append(m);
    expect(lines.checkpoint(live.state(), { minLines: 1, refreshLines: 200 })).toBe(true);
    // Never closed: the file and the snapshot are what a killed process leaves.
    const first = expectResumeFromSnapshotAt(file, lineCount(file));

    // Fewer new lines than the refresh distance: the snapshot stays; past it: a newer one.
    for (const m of records.slice(300, 400)) live.writer.append(m);
    expect(lines.checkpoint(live.state(), { minLines: 1, refreshLines: 200 })).toBe(false);
    expect(readForResume(file, { minLines: 1_000_000 }).fromSnapshot).toBe(first);
    for (const m of records.slice(400)) live.writer.append(m);
    expect(lines.checkpoint(live.state(), { minLines: 1, refreshLines: 200 })).toBe(true);
    const total = expectResumeFromSnapshotAt(file, lineCount(file));
    // Nothing written since: the session's end leaves that snapshot as it is.
    live.writer.close();
    expect(lines.writeSnapshot(live.state(), 1)).toBe(false);
    expect(readForResume(file, { minLines: 1_000_000 }).fromSnapshot).toBe(total);
  });

  it("given a resumed session whose read left a snapshot, when its task adds fewer lines than the refresh distance, then no newer one is written until the session ends", () => {
    const file = join(dir, "session_001.jsonl");
    const records = body(scriptedSession(15, 200));
    const first = session(file, { existing: false });
    for (const m of records.slice(0, 400)) first.writer.append(m);
    first.writer.close();
    const read = readForResume(file, { minLines: 1, refreshLines: 1 });
    expect(read.wroteSnapshot).toBe(true);

    const resumed = session(file, { existing: true, seed: read.state });
    const lines = new FileLines(resumed.writer, { index: 1, messages: read.content.messages, lines: read.content.lines, snapshotLines: read.extent.lines });
    for (const m of records.slice(400, 420)) resumed.writer.append(m);
    expect(lines.checkpoint(resumed.state(), { minLines: 1, refreshLines: 200 })).toBe(false);
    expect(readForResume(file, { minLines: 1_000_000 }).fromSnapshot).toBe(read.extent.lines);
    resumed.writer.close();
    expect(lines.writeSnapshot(resumed.state(), 1)).toBe(true);
    expectResumeFromSnapshotAt(file, lineCount(file));
  });

  it("given a resume read that left its newer snapshot due, when the resumed session's commit points come, then only the first writes it, with every line written by then, and a session that wrote nothing leaves it when it ends", () => {
    const file = join(dir, "session_001.jsonl");
    const records = body(scriptedSession(16, 200));
    const first = session(file, { existing: false });
    for (const m of records.slice(0, 400)) first.writer.append(m);
    first.writer.close();
    const read = readForResume(file, { minLines: 1, refreshLines: 1, writeSnapshot: false });
    expect(read.wroteSnapshot).toBe(false);
    expect(existsSync(resumeSnapshotFile(file))).toBe(false);
    const start = { index: 1, messages: read.content.messages, lines: read.content.lines, snapshotLines: read.fromSnapshot, lastLine: read.extent.lines };

    const resumed = session(file, { existing: true, seed: read.state });
    const lines = new FileLines(resumed.writer, start, { minLines: 1, refreshLines: 1 });
    for (const m of records.slice(400, 410)) resumed.writer.append(m);
    expect(lines.afterCommit(resumed.state())).toBe(true);
    const covered = expectResumeFromSnapshotAt(file, lineCount(file));
    for (const m of records.slice(410, 420)) resumed.writer.append(m);
    expect(lines.afterCommit(resumed.state())).toBe(false);
    expect(readForResume(file, { minLines: 1_000_000 }).fromSnapshot).toBe(covered);
    resumed.writer.close();

    // Resumed again, the same way, and ended without writing a line: the end writes the snapshot due.
    rmSync(resumeSnapshotFile(file));
    const again = readForResume(file, { minLines: 1, refreshLines: 1, writeSnapshot: false });
    const idle = session(file, { existing: true, seed: again.state });
    const idleLines = new FileLines(idle.writer, { index: 1, messages: again.content.messages, lines: again.content.lines, snapshotLines: again.fromSnapshot, lastLine: again.extent.lines }, { minLines: 1, refreshLines: 1 });
    idle.writer.close();
    expect(idleLines.writeSnapshot(idle.state(), 1)).toBe(true);
    expectResumeFromSnapshotAt(file, lineCount(file));
  });
});
