// The timeline's time-travel snapshots on a real data root: a scripted session (tool calls, a
// denial, steering, an abort, a compaction that rotates the trace) long enough for several
// snapshots, followed in uneven batches as a live runner would. Given the projection, when
// the state is asked at every event by count and by position, then starting from its
// snapshots gives what the plain fold from the start gives; a rebuild writes the same rows as
// the batches did; and snapshots of a stale projection version or another format are never used.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  abortEvent,
  approvalDecision,
  approvalRequested,
  assistantText,
  compactionBegin,
  compactionEnd,
  requestBegin,
  requestEnd,
  steeringQueued,
  tokenUsage,
  toolCall,
  toolCallOutput,
  userText,
  wrapMarker,
  type OmniMessage,
  type SessionMetaPayload,
} from "@penguin/omnimessage";
import { ProjectionStore, rebuildProjections } from "@penguin/projections-runner";
import { comparableFold, foldTimeTravel, readTraceFile, SessionFolds, SNAPSHOT_FORMAT, SnapshotLineMismatch, stepTimeTravel, traceFilesIn, TraceWriter, type TraceFileRef } from "@penguin/trace";
import { SNAPSHOT_EVERY, timelineProjection, timelineSnapshots } from "../src/index.js";
import { cachedFoldSessions } from "../src/snapshots.js";

const SID = "session-2026-12-01-10-00-00-00c0ffee";
let root: string;
let traces: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "penguin-snapshots-"));
  traces = join(root, "default_project", "agents", "default_agent", "traces");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const meta: SessionMetaPayload = { session_id: SID, provider: "p", model_id: "m", model_context_window: 100_000, system_prompt: "be brief", agent_state: "/a", workspace: "/w" };
const usage = (n: number) => ({ cache_read: n, cache_write: 10, output: 5, total: n + 15 });

/** Turn `i` of the script: every turn calls a tool; some are denied, steered, aborted. */
function turn(i: number): OmniMessage[] {
  const id = `call_${i}`;
  const name = i % 3 === 0 ? "read_file" : "exec_command";
  const call = toolCall({ name, arguments: JSON.stringify(name === "read_file" ? { file_path: `f${i % 5}.txt` } : { cmd: `echo ${i}` }), tool_call_id: id });
  const out: OmniMessage[] = [requestBegin(), userText(`task ${i}`), assistantText(`working on ${i}`), call, approvalRequested({ tool_call_id: id, name })];
  if (i % 7 === 3) {
    out.push(approvalDecision("deny", id), requestEnd("completed"), tokenUsage(usage(i), usage(i)), toolCallOutput({ tool_call_id: id, output: "denied by the user", stop_reason: "failed" }));
    return out;
  }
  out.push(approvalDecision("allow", id));
  if (i % 11 === 5) {
    out.push(steeringQueued(`st_${i}`, `hurry ${i}`), requestEnd("completed"), tokenUsage(usage(i), usage(i)), abortEvent("user"), toolCallOutput({ tool_call_id: id, output: "[interrupted]", stop_reason: "aborted" }));
    return out;
  }
  if (i % 11 === 6) out.push(userText(wrapMarker("user_steering", `steer ${i}`)));
  out.push(requestEnd("completed"), tokenUsage(usage(i), usage(i)), toolCallOutput({ tool_call_id: id, output: `output of ${i} `.repeat(20), stop_reason: "completed" }));
  return out;
}

/** Writes the session in `parts` appends (one per call of `between`), compacting and rotating midway. */
async function writeSession(turns: number, between: () => Promise<void>): Promise<void> {
  const fileFor = (index: number) => join(traces, "2026-12-01", `${SID}_${String(index).padStart(3, "0")}.jsonl`);
  const writer = new TraceWriter({ fileFor, index: 1, meta, existing: false, fsync: false });
  writer.setTools([]);
  for (let i = 0; i < turns; i++) {
    for (const m of turn(i)) writer.append(m);
    if (i === Math.floor(turns / 2)) {
      writer.append(compactionBegin({ reason: "context", mode: "summarize", context: 90_000, turns: i }));
      writer.append(requestBegin());
      writer.append(assistantText("[summary]all the work so far[/summary]"));
      writer.append(requestEnd("completed"));
      writer.append(compactionEnd({ reason: "context", mode: "summarize", status: "completed" }));
      writer.rotate();
    }
    if (i % 17 === 16) await between();
  }
  writer.close();
  await between();
}

async function dump(store: ProjectionStore): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of ["timeline_snapshots", "timeline_state_chunks", "timeline_fold_heads"]) {
    out[table] = (store.sqlite.prepare(`select * from "${table}"`).all() as unknown[]).map((r) => JSON.stringify(r)).sort();
  }
  return out;
}

/** Rewrites trace files in place with other lines of the same lengths (every timestamp's year changed): the offsets stay, the lines do not. */
function rewriteInPlace(refs: readonly TraceFileRef[]): void {
  for (const r of refs) {
    const text = readFileSync(r.file, "utf8");
    const rewritten = text.replace(/"timestamp":"\d{4}-/g, '"timestamp":"1999-');
    expect(rewritten.length).toBe(text.length);
    expect(rewritten).not.toBe(text);
    writeFileSync(r.file, rewritten);
  }
}

async function followed(turns: number): Promise<ProjectionStore> {
  const store = await ProjectionStore.open({ file: join(root, "projections.db"), root, projections: [timelineProjection] });
  await writeSession(turns, async () => void (await store.catchUp()));
  return store;
}

describe("timeline snapshots", { timeout: 60_000 }, () => {
  it("at every event, by count and by position, a fold from the stored snapshots equals the plain fold from the start; a rebuild writes the same rows", async () => {
    const store = await followed(110);
    try {
      const refs = traceFilesIn(traces, SID);
      expect(refs.map((r) => r.index)).toEqual([1, 2]);
      const all = refs.flatMap((r) => {
        const content = readTraceFile(r.file);
        return content.messages.map((m, i) => ({ m, position: { file: r.index, line: content.lines[i]! } }));
      });
      const snapshotRows = store.sqlite.prepare("select events from timeline_snapshots where session_id = ? order by events").all(SID) as { events: number }[];
      expect(snapshotRows.map((r) => r.events)).toEqual(Array.from({ length: Math.floor(all.length / SNAPSHOT_EVERY) }, (_, i) => (i + 1) * SNAPSHOT_EVERY));
      expect(snapshotRows.length).toBeGreaterThanOrEqual(2);

      const source = timelineSnapshots(store.db, timelineProjection.version);
      const folds = new SessionFolds();
      // The plain fold, one event further each time (a fold is a pure function of its prefix).
      let plain = foldTimeTravel([]);
      for (let n = 1; n <= all.length; n++) {
        plain = stepTimeTravel(plain, all[n - 1]!.m);
        const byCount = await folds.stateAtWith(source, SID, `count:${n}`, refs, n);
        expect(byCount.events).toBe(n);
        // Compared as canonical JSON: the same check as a deep equal, without its cost per event.
        expect(JSON.stringify(comparableFold(byCount.state)), `at event ${n}`).toBe(JSON.stringify(comparableFold(plain.session)));
        const at = all[n - 1]!.position;
        const byPosition = await folds.stateAtWith(source, SID, `position:${n}`, refs, { kind: "position", position: at });
        expect(byPosition.position).toEqual(at);
        expect(byPosition.events).toBe(n);
        if (n % SNAPSHOT_EVERY === 0 || n % 97 === 0) {
          const lookup = await source.nearest(SID, { kind: "count", count: n }, refs);
          expect(lookup?.snapshot?.events).toBe(Math.floor(n / SNAPSHOT_EVERY) * SNAPSHOT_EVERY || undefined);
          if (lookup?.snapshot !== undefined) expect(comparableFold(lookup.snapshot.fold)).toEqual(comparableFold(foldTimeTravel(all.slice(0, lookup.snapshot.events).map((e) => e.m))));
        }
      }
      const end = await folds.stateAtWith(source, SID, "end", refs);
      expect(end.totalEvents).toBe(all.length);

      const incremental = await dump(store);
      const fresh = join(root, "rebuilt.db");
      await rebuildProjections({ root, file: fresh, projections: [timelineProjection] });
      const rebuilt = await ProjectionStore.open({ file: fresh, root, projections: [timelineProjection] });
      expect(await dump(rebuilt)).toEqual(incremental);
      await rebuilt.close();
    } finally {
      await store.close();
    }
  });

  it("a database holding another version of the timeline, or snapshots of another format, is never used", async () => {
    const store = await followed(60);
    try {
      const refs = traceFilesIn(traces, SID);
      const all = refs.flatMap((r) => readTraceFile(r.file).messages);
      const n = all.length - 3;
      const expected = comparableFold(foldTimeTravel(all.slice(0, n)).session);
      expect((await timelineSnapshots(store.db, timelineProjection.version).nearest(SID, { kind: "count", count: n }, refs))?.snapshot?.events).toBe(SNAPSHOT_EVERY);

      // Snapshots written by another format: left aside, even when they claim to be the nearest.
      store.sqlite.prepare("update timeline_snapshots set format = ?, state = ? where session_id = ?").run(SNAPSHOT_FORMAT + 1, '{"not":"a snapshot"}', SID);
      const otherFormat = await timelineSnapshots(store.db, timelineProjection.version).nearest(SID, { kind: "count", count: n }, refs);
      expect(otherFormat?.snapshot).toBeUndefined();
      const folded = await new SessionFolds().stateAtWith(timelineSnapshots(store.db, timelineProjection.version), SID, SID, refs, n);
      expect(comparableFold(folded.state)).toEqual(expected);

      // A database built by an older version of the projection: the source does not answer.
      store.sqlite.prepare("update projection_meta set version = ? where name = 'timeline'").run(timelineProjection.version - 1);
      expect(await timelineSnapshots(store.db, timelineProjection.version).nearest(SID, { kind: "count", count: n }, refs)).toBeUndefined();
      const fallback = await new SessionFolds().stateAtWith(timelineSnapshots(store.db, timelineProjection.version), SID, SID, refs, n);
      expect(comparableFold(fallback.state)).toEqual(expected);
    } finally {
      await store.close();
    }
  });

  it("snapshots refer to the trace's lines instead of copying them, and one whose lines are not there any more is never used: the state comes from the files", async () => {
    const store = await followed(60);
    try {
      const refs = traceFilesIn(traces, SID);
      const count = refs.flatMap((r) => readTraceFile(r.file).messages).length - 3;
      const target = { kind: "count", count } as const;
      const chunks = store.sqlite.prepare("select items from timeline_state_chunks where session_id = ? and lineage like '%/history'").all(SID) as { items: string }[];
      // The history's messages are [file, start, length, timestamp] references (a copied output adds "output" and its own timestamp).
      expect(chunks.flatMap((c) => JSON.parse(c.items) as unknown[]).every((item) => Array.isArray(item))).toBe(true);
      expect((await timelineSnapshots(store.db, timelineProjection.version).nearest(SID, target, refs))?.snapshot?.events).toBe(SNAPSHOT_EVERY);
      // Without the files a snapshot of references cannot be read: refused, not guessed.
      await expect(timelineSnapshots(store.db, timelineProjection.version).nearest(SID, target)).rejects.toThrow(SnapshotLineMismatch);

      rewriteInPlace(refs);
      const source = timelineSnapshots(store.db, timelineProjection.version);
      await expect(source.nearest(SID, target, refs)).rejects.toThrow(SnapshotLineMismatch);
      const now = refs.flatMap((r) => readTraceFile(r.file).messages);
      const folded = await new SessionFolds().stateAtWith(source, SID, SID, refs, count);
      expect(folded.events).toBe(count);
      expect(comparableFold(folded.state)).toEqual(comparableFold(foldTimeTravel(now.slice(0, count)).session));
    } finally {
      await store.close();
    }
  });

  it("a fold restored from a snapshot whose lines were rewritten under it starts over from the files, and its next snapshots answer as the files do", async () => {
    const long = "session-2026-12-01-09-00-00-00000004";
    const small = ["session-2026-12-01-11-00-00-00000005", "session-2026-12-01-11-00-01-00000006"];
    const write = (sid: string, from: number, turns: number) => {
      const w = new TraceWriter({ fileFor: (index) => join(traces, "2026-12-01", `${sid}_${String(index).padStart(3, "0")}.jsonl`), index: 1, meta: { ...meta, session_id: sid }, existing: true, fsync: false });
      w.setTools([]);
      for (let i = from; i < from + turns; i++) for (const m of turn(i)) w.append(m);
      w.close();
    };
    write(long, 0, 1500);
    for (const sid of small) write(sid, 0, 10);
    const store = await ProjectionStore.open({ file: join(root, "projections.db"), root, projections: [timelineProjection] });
    try {
      await store.catchUp();
      // The long session's fold was dropped: the next batch restores it from its snapshot, which refers to lines now rewritten.
      expect(cachedFoldSessions()).not.toContain(long);
      const refs = traceFilesIn(traces, long);
      rewriteInPlace(refs);
      write(long, 1500, 50);
      await store.catchUp();
      const all = refs.flatMap((r) => readTraceFile(r.file).messages);
      const lookup = await timelineSnapshots(store.db, timelineProjection.version).nearest(long, undefined, refs);
      expect(lookup?.snapshot?.events).toBe(Math.floor(all.length / SNAPSHOT_EVERY) * SNAPSHOT_EVERY);
      expect(comparableFold(lookup!.snapshot!.fold)).toEqual(comparableFold(foldTimeTravel(all.slice(0, lookup!.snapshot!.events))));
    } finally {
      await store.close();
    }
  });

  it("the folds kept between batches are bounded by their messages: a long session read before others is dropped, small ones stay, and one dropped goes on from its snapshot as if kept", async () => {
    const long = "session-2026-12-01-09-00-00-00000001";
    const small = ["session-2026-12-01-11-00-00-00000002", "session-2026-12-01-11-00-01-00000003"];
    const writerOf = (sid: string) =>
      new TraceWriter({ fileFor: (index) => join(traces, "2026-12-01", `${sid}_${String(index).padStart(3, "0")}.jsonl`), index: 1, meta: { ...meta, session_id: sid }, existing: true, fsync: false });
    const write = (sid: string, from: number, turns: number) => {
      const w = writerOf(sid);
      w.setTools([]);
      for (let i = from; i < from + turns; i++) for (const m of turn(i)) w.append(m);
      w.close();
    };
    // Four or five messages of a turn stay in the history: the long one holds more than the bound (4000) alone.
    write(long, 0, 1500);
    for (const sid of small) write(sid, 0, 10);
    const store = await ProjectionStore.open({ file: join(root, "projections.db"), root, projections: [timelineProjection] });
    try {
      await store.catchUp();
      expect(cachedFoldSessions().filter((s) => [long, ...small].includes(s))).toEqual(small);
      // The long session goes on without its cached fold: from its last snapshot and the head's tail.
      write(long, 1500, 30);
      await store.catchUp();
      expect(cachedFoldSessions().at(-1)).toBe(long);
      const incremental = await dump(store);
      const fresh = join(root, "rebuilt.db");
      await rebuildProjections({ root, file: fresh, projections: [timelineProjection] });
      const rebuilt = await ProjectionStore.open({ file: fresh, root, projections: [timelineProjection] });
      expect(await dump(rebuilt)).toEqual(incremental);
      await rebuilt.close();
    } finally {
      await store.close();
    }
  });
});
