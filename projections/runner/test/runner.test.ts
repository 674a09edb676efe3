// The runner against real files and SQLite: catch-up by checkpoint, tolerant reading (torn
// tail, NUL padding, garbage), two writers on one file, version bumps, rebuild and swap,
// and the live runner following appends and a deleted database.
import { existsSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { abortEvent, userText } from "@penguin/omnimessage";
import { LiveProjectionRunner, ProjectionStore, projectionsFile, rebuildProjections, readTraceChunk } from "../src/index.js";
import { aTurn, appendMessages, appendRaw, at, counterProjection, tempRoot, tracePath } from "./helpers.js";

const S1 = "session-2026-01-02-10-00-00-0000000a";
const S2 = "session-2026-01-02-11-00-00-0000000b";

async function counters(store: ProjectionStore) {
  return store.db.selectFrom("counter").selectAll().orderBy("session_id").execute();
}

describe("catch-up", () => {
  it("given two trace files, when caught up twice with an append between, then each line is applied once", async () => {
    const root = tempRoot();
    appendMessages(tracePath(root, S1), aTurn(S1, 0));
    appendMessages(tracePath(root, S2), aTurn(S2, 10));
    const store = await ProjectionStore.open({ file: projectionsFile(root), root, projections: [counterProjection()] });
    const first = await store.catchUp();
    expect(first).toMatchObject({ files: 2, events: 8, skipped: 0 });
    appendMessages(tracePath(root, S1), [userText("again", { at: at(5) })]);
    const second = await store.catchUp();
    expect(second.events).toBe(1);
    expect(await counters(store)).toEqual([
      { session_id: S1, events: 5, last_line: 5 },
      { session_id: S2, events: 4, last_line: 4 },
    ]);
    const [status] = await store.status();
    expect(status).toMatchObject({ name: "counter", version: 1, files: 2, events: 9, skipped: 0, lagBytes: 0, lagFiles: 0 });
    await store.close();
  });

  it("given a torn last line, NUL padding and garbage, then they are counted as skipped and the rest applies", async () => {
    const root = tempRoot();
    const file = tracePath(root, S1);
    appendMessages(file, aTurn(S1, 0).slice(0, 2));
    appendRaw(file, "this is not json\n");
    appendRaw(file, `{"timestamp":"x","type":"nope","payload":{}}\n`);
    appendRaw(file, "\0\0\0\0\n");
    appendMessages(file, aTurn(S1, 0).slice(2));
    appendRaw(file, `{"timestamp":"${at(9)}","type":"event_msg","payl`);
    const store = await ProjectionStore.open({ file: projectionsFile(root), root, projections: [counterProjection()] });
    const result = await store.catchUp();
    expect(result.events).toBe(4);
    expect(result.skipped).toBe(3);
    // The torn tail is pending (a writer resuming starts a fresh line after it): counted once, not consumed.
    expect((await store.status())[0]).toMatchObject({ skipped: 4, lagBytes: 0, lagFiles: 0 });
    expect(await counters(store)).toEqual([{ session_id: S1, events: 4, last_line: 7 }]);
    // A resumed writer begins on a fresh line: the fragment becomes one complete bad line.
    appendRaw(file, "\n");
    appendMessages(file, [abortEvent(undefined, { at: at(10) })]);
    const after = await store.catchUp();
    expect(after).toMatchObject({ events: 1, skipped: 1 });
    expect((await store.status())[0]).toMatchObject({ skipped: 4, events: 5 });
    expect(await counters(store)).toEqual([{ session_id: S1, events: 5, last_line: 9 }]);
    await store.close();
  });

  it("reads only complete lines: a line still being written is left for the next read", () => {
    const root = tempRoot();
    const file = tracePath(root, S1);
    appendRaw(file, `${JSON.stringify(userText("a", { at: at(1) }))}\n{"timestamp":`);
    const chunk = readTraceChunk(file, 0, 0);
    expect(chunk.lines.map((l) => l.line)).toEqual([1]);
    expect(chunk.tornTail).toBe(true);
    expect(chunk.bytes).toBeLessThan(statSync(file).size);
  });

  it("reads a window of ASCII lines and one with other characters alike: the same texts, byte offsets as written", () => {
    const root = tempRoot();
    const ascii = tracePath(root, S1);
    appendMessages(ascii, [userText("plain text", { at: at(1) }), userText("more of it", { at: at(2) })]);
    const plain = readTraceChunk(ascii, 0, 0);
    expect(plain.lines.map((l) => (l.message.payload as { text: string }).text)).toEqual(["plain text", "more of it"]);
    const other = tracePath(root, "session-2026-01-02-10-00-09-00000009");
    const texts = ["déjà vu, über — 5 €", "a penguin 🐧 and ÿ", "ascii again"];
    appendMessages(other, texts.map((t, i) => userText(t, { at: at(i) })));
    const mixed = readTraceChunk(other, 0, 0);
    expect(mixed.lines.map((l) => (l.message.payload as { text: string }).text)).toEqual(texts);
    // Offsets count bytes: the second line starts where the first line's UTF-8 bytes end.
    const firstLine = `${JSON.stringify(userText(texts[0]!, { at: at(0) }))}\n`;
    expect(mixed.lines[1]!.startByte).toBe(Buffer.byteLength(firstLine));
    expect(mixed.bytes).toBe(statSync(other).size);
  });

  it("given two stores on one file (CLI beside a server), then no line is applied twice", async () => {
    const root = tempRoot();
    for (let i = 0; i < 6; i++) appendMessages(tracePath(root, `session-2026-01-02-10-00-0${i}-0000000${i}`), aTurn(`session-2026-01-02-10-00-0${i}-0000000${i}`, i));
    const file = projectionsFile(root);
    const a = await ProjectionStore.open({ file, root, projections: [counterProjection()] });
    const b = await ProjectionStore.open({ file, root, projections: [counterProjection()] });
    const [ra, rb] = await Promise.all([a.catchUp(), b.catchUp()]);
    expect(ra.events + rb.events).toBe(24);
    const rows = await counters(a);
    expect(rows).toHaveLength(6);
    expect(rows.every((r) => r.events === 4)).toBe(true);
    await a.close();
    await b.close();
  });

  it("given a bumped version, when opened, then that projection is rebuilt from the first line", async () => {
    const root = tempRoot();
    appendMessages(tracePath(root, S1), aTurn(S1, 0));
    const file = projectionsFile(root);
    const v1 = await ProjectionStore.open({ file, root, projections: [counterProjection(1)] });
    await v1.catchUp();
    await v1.db.updateTable("counter").set({ events: 999 }).execute();
    await v1.close();
    const v2 = await ProjectionStore.open({ file, root, projections: [counterProjection(2)] });
    expect(await counters(v2)).toEqual([]);
    await v2.catchUp();
    expect(await counters(v2)).toEqual([{ session_id: S1, events: 4, last_line: 4 }]);
    expect((await v2.status())[0]?.version).toBe(2);
    await v2.close();
  });
});

describe("rebuild", () => {
  it("builds a fresh file, swaps it in, and equals the incrementally kept database", async () => {
    const root = tempRoot();
    appendMessages(tracePath(root, S1), aTurn(S1, 0));
    const file = projectionsFile(root);
    const live = await ProjectionStore.open({ file, root, projections: [counterProjection()] });
    await live.catchUp();
    appendMessages(tracePath(root, S2), aTurn(S2, 10));
    await live.catchUp();
    const incremental = await counters(live);
    await live.close();
    const inodeBefore = statSync(file).ino;
    const summary = await rebuildProjections({ root, file, projections: [counterProjection()] });
    expect(summary).toMatchObject({ files: 2, events: 8, skipped: 0, projections: ["counter"] });
    expect(statSync(file).ino).not.toBe(inodeBefore);
    expect(existsSync(`${file}.rebuild-${process.pid}`)).toBe(false);
    const rebuilt = await ProjectionStore.open({ file, root, projections: [counterProjection()] });
    expect(await counters(rebuilt)).toEqual(incremental);
    await rebuilt.close();
  });

  it("builds with large pages and no journal, and leaves a file that two live stores can share in WAL", async () => {
    const root = tempRoot();
    appendMessages(tracePath(root, S1), aTurn(S1, 0));
    const file = projectionsFile(root);
    await rebuildProjections({ root, file, projections: [counterProjection()] });
    // No journal or exclusive lock survives the build: the swapped-in file is an ordinary database.
    expect(existsSync(`${file}-journal`)).toBe(false);
    const first = await ProjectionStore.open({ file, root, projections: [counterProjection()] });
    const second = await ProjectionStore.open({ file, root, projections: [counterProjection()] });
    expect(first.sqlite.pragma("page_size", { simple: true })).toBe(8192);
    expect(first.sqlite.pragma("journal_mode", { simple: true })).toBe("wal");
    appendMessages(tracePath(root, S2), aTurn(S2, 10));
    expect((await second.catchUp()).events).toBe(4);
    expect(await counters(first)).toEqual([
      { session_id: S1, events: 4, last_line: 4 },
      { session_id: S2, events: 4, last_line: 4 },
    ]);
    await second.close();
    await first.close();
  });

  it("--only rebuilds one projection and keeps the others' rows", async () => {
    const root = tempRoot();
    appendMessages(tracePath(root, S1), aTurn(S1, 0));
    const file = projectionsFile(root);
    const other = counterProjection(1, "other");
    const projections = [counterProjection(), other];
    const store = await ProjectionStore.open({ file, root, projections });
    await store.catchUp();
    await store.db.updateTable("counter").set({ events: 111 }).execute();
    await store.close();
    await expect(rebuildProjections({ root, file, projections, only: "nosuch" })).rejects.toThrow(/no projection named "nosuch": choose one of counter, other/);
    await rebuildProjections({ root, file, projections, only: "counter" });
    const after = await ProjectionStore.open({ file, root, projections });
    expect((await counters(after))[0]?.events).toBe(4);
    expect(await after.db.selectFrom("other").select("events").execute()).toEqual([{ events: 4 }]);
    await after.close();
  });
});

describe("live runner", () => {
  it("follows appends and rebuilds a deleted database", async () => {
    const root = tempRoot();
    appendMessages(tracePath(root, S1), aTurn(S1, 0));
    const file = projectionsFile(root);
    const errors: unknown[] = [];
    const runner = await LiveProjectionRunner.start({ root, file, projections: [counterProjection()], pollIntervalMs: 50, onError: (e) => errors.push(e) });
    const rows = () => runner.read((db) => db.selectFrom("counter").selectAll().orderBy("session_id").execute());
    expect(await rows()).toEqual([{ session_id: S1, events: 4, last_line: 4 }]);
    appendMessages(tracePath(root, S2), aTurn(S2, 10));
    await vi.waitFor(async () => expect(await rows()).toHaveLength(2), { timeout: 10_000, interval: 20 });
    rmSync(file);
    await vi.waitFor(() => expect(existsSync(file)).toBe(true), { timeout: 10_000, interval: 20 });
    await vi.waitFor(async () => expect(await rows()).toEqual([
      { session_id: S1, events: 4, last_line: 4 },
      { session_id: S2, events: 4, last_line: 4 },
    ]), { timeout: 10_000, interval: 20 });
    await runner.stop();
    expect(errors).toEqual([]);
  });

  it("keeps the database and its WAL companions owner-only (titles and prompts are in it)", async () => {
    const root = tempRoot();
    appendMessages(tracePath(root, S1), aTurn(S1, 0));
    const file = projectionsFile(root);
    const store = await ProjectionStore.open({ file, root, projections: [counterProjection()] });
    await store.catchUp();
    for (const f of [file, `${file}-wal`, `${file}-shm`]) expect(statSync(f).mode & 0o777).toBe(0o600);
    await store.close();
  });

  it("ignores what is not a trace file in the data root", async () => {
    const root = tempRoot();
    writeFileSync(join(root, "facts.db"), "");
    appendRaw(join(root, "default_project", "agents", "default_agent", "traces", "2026-01-02", "notes.txt"), "x\n");
    appendMessages(tracePath(root, S1), aTurn(S1, 0));
    const store = await ProjectionStore.open({ file: projectionsFile(root), root, projections: [counterProjection()] });
    expect((await store.catchUp()).files).toBe(1);
    await store.close();
  });
});
