// Resume snapshots (resume-snapshot.ts): given a trace file folded for resume, when a snapshot
// of it was left and the file then grew, was damaged, replaced or cut, then the fold from the
// snapshot equals the fold of the whole file — or the snapshot is ignored — never a state the
// file does not hold. Real files in a temp dir; the sessions are scripted with a seeded PRNG so
// every kind of record the fold keeps (tool outputs copied into the next request, placeholders,
// [turn_aborted] notes, pending input, an open window, a compaction) is in some snapshot.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assistantText, tokenUsage, type OmniMessage } from "@penguin/omnimessage";
import { comparableFold, foldForResume, foldTrace, readForResume, readResumeSnapshot, readTraceFile, readTraceFileWithExtent, resumeSnapshotFile, writeResumeSnapshot, type ResumeFold } from "../src/index.js";
import { meta, prng, scriptedSession } from "./helpers/scripted-session.js";

const jsonl = (records: readonly OmniMessage[]): string => records.map((r) => `${JSON.stringify(r)}\n`).join("");

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "penguin-resume-snapshot-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Fold `file` for resume as resume does (snapshots from any size on), and the fold of the whole file beside it. */
function resumeFold(file: string): { fold: ResumeFold; whole: unknown } {
  const { content, extent } = readTraceFileWithExtent(file);
  return { fold: foldForResume(file, content, extent, { minLines: 1, refreshLines: 1 }), whole: comparableFold(foldTrace(content.messages)) };
}

describe("resume snapshots", () => {
  it.each([1, 2, 3, 4, 5, 6])("given a scripted session (seed %i) resumed at a cut, when the file grows and is resumed again, then the fold from the snapshot equals the whole file's", (seed) => {
    const records = scriptedSession(seed, 120);
    const file = join(dir, "session_001.jsonl");
    const cut = 40 + Math.floor(prng(seed * 7)() * (records.length - 80));
    writeFileSync(file, jsonl(records.slice(0, cut)));
    // Every scripted record is a valid envelope: none is folded as skipped.
    expect(readTraceFileWithExtent(file).content.skipped).toEqual([]);
    const first = resumeFold(file);
    expect(first.fold.fromSnapshot).toBe(0);
    expect(first.fold.wroteSnapshot).toBe(true);
    expect(comparableFold(first.fold.state)).toEqual(first.whole);

    appendFileSync(file, jsonl(records.slice(cut)));
    expect(readTraceFileWithExtent(file).content.skipped).toEqual([]);
    const again = resumeFold(file);
    expect(again.fold.fromSnapshot).toBe(cut);
    expect(comparableFold(again.fold.state)).toEqual(again.whole);
  });

  it("given the scripted sessions, then between them they hold completed and failed compactions, aborts, failures and missing outputs", () => {
    const all = [1, 2, 3, 4, 5, 6].flatMap((seed) => scriptedSession(seed, 120));
    const kinds = new Set(all.flatMap((m) => (m.type === "event_msg" ? [m.payload.type === "compaction_end" || m.payload.type === "request_end" ? `${m.payload.type}:${m.payload.status}` : m.payload.type] : [])));
    for (const kind of ["compaction_end:completed", "compaction_end:failed", "request_end:failed", "request_end:aborted", "abort", "steering_queued", "approval_requested"]) expect(kinds).toContain(kind);
  });

  it("given a snapshot, then it stores line references, not the context: it is far smaller than the file, and readable by its owner only", () => {
    const file = join(dir, "session_001.jsonl");
    const records = scriptedSession(9, 400).map((m) => (m.type === "model_msg" && m.payload.type === "tool_call_output" ? { ...m, payload: { ...m.payload, output: m.payload.output.repeat(40) } } : m));
    writeFileSync(file, jsonl(records));
    expect(resumeFold(file).fold.wroteSnapshot).toBe(true);
    const snapshotBytes = readFileSync(resumeSnapshotFile(file)).length;
    expect(snapshotBytes * 10).toBeLessThan(readFileSync(file).length);
    // Owner-only, as trace files are.
    expect(statSync(resumeSnapshotFile(file)).mode & 0o777).toBe(0o600);
  });

  it("given a torn tail, then the snapshot covers only whole lines, and the writer's next line after the tear folds on top of it", () => {
    const records = scriptedSession(11, 60);
    const file = join(dir, "session_001.jsonl");
    const torn = JSON.stringify(assistantText("never finished")).slice(0, 30);
    writeFileSync(file, jsonl(records.slice(0, 200)) + torn);
    const first = resumeFold(file);
    const { extent } = readTraceFileWithExtent(file);
    expect(extent.lines).toBe(200);
    expect(comparableFold(first.fold.state)).toEqual(first.whole);
    // A writer reopening a torn file starts a fresh line: the torn bytes stay a skipped line.
    appendFileSync(file, `\n${jsonl(records.slice(200))}`);
    const again = resumeFold(file);
    expect(again.fold.fromSnapshot).toBe(200);
    expect(comparableFold(again.fold.state)).toEqual(again.whole);
  });

  it("given a snapshot of another file (the trace replaced, same size or larger), then it is ignored and the file is folded from its start", () => {
    const file = join(dir, "session_001.jsonl");
    writeFileSync(file, jsonl(scriptedSession(21, 80)));
    expect(resumeFold(file).fold.wroteSnapshot).toBe(true);
    const stale = readFileSync(resumeSnapshotFile(file));
    writeFileSync(file, jsonl(scriptedSession(22, 120)));
    writeFileSync(resumeSnapshotFile(file), stale);
    const { content, extent } = readTraceFileWithExtent(file);
    expect(readResumeSnapshot(file, content, extent)).toBeUndefined();
    const replaced = resumeFold(file);
    expect(replaced.fold.fromSnapshot).toBe(0);
    expect(comparableFold(replaced.fold.state)).toEqual(replaced.whole);
  });

  it("given the file rewritten with the same kinds of lines but other values near its end (its references all resolve), then the key's hash rejects the snapshot", () => {
    const file = join(dir, "session_001.jsonl");
    const records = scriptedSession(23, 80);
    const lastUsage = records.findLastIndex((m) => m.type === "event_msg" && m.payload.type === "token_usage");
    writeFileSync(file, jsonl(records));
    expect(resumeFold(file).fold.wroteSnapshot).toBe(true);
    const stale = readFileSync(resumeSnapshotFile(file));
    const rewritten = [...records];
    rewritten[lastUsage] = tokenUsage({ cache_read: 999_999, cache_write: 0, output: 10, total: 999_999 }, { cache_read: 999_999, cache_write: 0, output: 10, total: 999_999 });
    writeFileSync(file, jsonl(rewritten));
    writeFileSync(resumeSnapshotFile(file), stale);
    const again = resumeFold(file);
    expect(again.fold.fromSnapshot).toBe(0);
    expect(comparableFold(again.fold.state)).toEqual(again.whole);
    expect(again.fold.state.sessionUsage.total).toBe(999_999);
  });

  it("given a file cut shorter than its snapshot, then the snapshot is ignored", () => {
    const file = join(dir, "session_001.jsonl");
    const text = jsonl(scriptedSession(31, 80));
    writeFileSync(file, text);
    expect(resumeFold(file).fold.wroteSnapshot).toBe(true);
    truncateSync(file, text.lastIndexOf("\n", text.length - 2) + 1);
    const cut = resumeFold(file);
    expect(cut.fold.fromSnapshot).toBe(0);
    expect(comparableFold(cut.fold.state)).toEqual(cut.whole);
  });

  it("given a snapshot whose bytes are damaged, of another format, or referring to a line that is not a model message, then it is ignored", () => {
    const file = join(dir, "session_001.jsonl");
    writeFileSync(file, jsonl(scriptedSession(41, 80)));
    expect(resumeFold(file).fold.wroteSnapshot).toBe(true);
    const good = JSON.parse(readFileSync(resumeSnapshotFile(file), "utf8")) as { format: number; state: { history: unknown[] } };
    const { content, extent } = readTraceFileWithExtent(file);
    expect(readResumeSnapshot(file, content, extent)).toBeDefined();
    const variants = [
      "{ not json",
      JSON.stringify({ ...good, format: good.format + 1 }),
      // Line 2 is the settings_changed event, not a message of the context.
      JSON.stringify({ ...good, state: { ...good.state, history: [2, ...good.state.history] } }),
      JSON.stringify({ ...good, state: { ...good.state, history: "everything" } }),
    ];
    for (const text of variants) {
      writeFileSync(resumeSnapshotFile(file), text);
      expect(readResumeSnapshot(file, content, extent)).toBeUndefined();
    }
  });

  it("given a short file, then no snapshot is written by default, and a snapshot only slightly behind the file is kept as it is", () => {
    const file = join(dir, "session_001.jsonl");
    const records = scriptedSession(51, 80);
    writeFileSync(file, jsonl(records.slice(0, 300)));
    let read = readTraceFileWithExtent(file);
    expect(foldForResume(file, read.content, read.extent).wroteSnapshot).toBe(false);
    expect(writeResumeSnapshot(file, read.content, read.extent, foldTrace(read.content.messages))).toBe(true);
    appendFileSync(file, jsonl(records.slice(300)));
    read = readTraceFileWithExtent(file);
    const fold = foldForResume(file, read.content, read.extent, { minLines: 1, refreshLines: read.extent.lines });
    expect(fold.fromSnapshot).toBe(300);
    expect(fold.wroteSnapshot).toBe(false);
    expect(comparableFold(fold.state)).toEqual(comparableFold(foldTrace(read.content.messages)));
  });

  it("given a matching snapshot, when the file is read for resume, then the covered lines its state does not refer to are not decoded, and the fold is the whole file's", () => {
    const file = join(dir, "session_001.jsonl");
    const records = scriptedSession(61, 200);
    writeFileSync(file, jsonl(records.slice(0, 600)));
    expect(readForResume(file, { minLines: 1, refreshLines: 1 }).wroteSnapshot).toBe(true);
    appendFileSync(file, jsonl(records.slice(600)));
    const read = readForResume(file, { minLines: 1, refreshLines: 1_000_000 });
    const full = readTraceFile(file);
    expect(read.fromSnapshot).toBe(600);
    expect(comparableFold(read.state)).toEqual(comparableFold(foldTrace(full.messages)));
    // Line 1 and every line after the snapshot are decoded; of the lines it covers, only some.
    expect(read.content.lines[0]).toBe(1);
    expect(read.content.lines.filter((l) => l > 600)).toEqual(full.lines.filter((l) => l > 600));
    const coveredRead = read.content.lines.filter((l) => l <= 600).length;
    expect(coveredRead).toBeLessThan(600 * 0.8);
    expect(read.content.messages.filter((m) => m.type === "event_msg" && m.payload.type === "request_end" && full.lines[full.messages.indexOf(m)]! <= 600)).toEqual([]);
  });

  it("given a snapshot that claims more lines than its bytes could hold, when the file is read for resume, then it is ignored and the file is folded from its start", () => {
    const file = join(dir, "session_001.jsonl");
    writeFileSync(file, jsonl(scriptedSession(67, 80)));
    expect(readForResume(file, { minLines: 1, refreshLines: 1 }).wroteSnapshot).toBe(true);
    const good = JSON.parse(readFileSync(resumeSnapshotFile(file), "utf8")) as { bytes: number; lines: number };
    writeFileSync(resumeSnapshotFile(file), JSON.stringify({ ...good, lines: 2 ** 40 }));
    const read = readForResume(file, { minLines: 1_000_000 });
    expect(read.fromSnapshot).toBe(0);
    expect(comparableFold(read.state)).toEqual(comparableFold(foldTrace(readTraceFile(file).messages)));
  });

  it("given a matching key but a line the snapshot refers to damaged in place (same size, the hashed tail intact), then the file is read and folded from its start", () => {
    const file = join(dir, "session_001.jsonl");
    const records = scriptedSession(71, 200);
    writeFileSync(file, jsonl(records));
    expect(readForResume(file, { minLines: 1, refreshLines: 1 }).wroteSnapshot).toBe(true);
    // Overwrite the first line of the context the snapshot refers to with garbage of the same length.
    const stored = JSON.parse(readFileSync(resumeSnapshotFile(file), "utf8")) as { state: { history: unknown[] } };
    const target = stored.state.history[0] as number;
    expect(typeof target).toBe("number");
    const lines = readFileSync(file, "utf8").split("\n");
    lines[target - 1] = "#".repeat(Buffer.byteLength(lines[target - 1]!));
    writeFileSync(file, lines.join("\n"));
    const read = readForResume(file, { minLines: 1, refreshLines: 1_000_000 });
    expect(read.fromSnapshot).toBe(0);
    expect(read.content.skipped).toEqual([{ line: target, reason: "invalid-json" }]);
    expect(comparableFold(read.state)).toEqual(comparableFold(foldTrace(readTraceFile(file).messages)));
  });
});
