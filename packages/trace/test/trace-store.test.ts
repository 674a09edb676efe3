// TraceStore, the write model as an Effect service, on a real temp dir (TraceStore.Test):
// given a session opened in the store, when records are appended (on TestClock), then they
// come back from `read` at the positions `append` answered, stamped by the Clock and never
// going back in time; `tail` sees only durable appends; a rotation starts `_002` with its
// header; damaged lines are skipped and counted, never rewritten; stateAt folds to positions.
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "@effect/vitest";
import { Chunk, Duration, Effect, Fiber, Stream, TestClock } from "effect";
import { assistantText, requestBegin, requestEnd, sessionTitle, tokenUsage, userText, type SessionMetaPayload } from "@penguin/omnimessage";
import { formatPosition } from "../src/index.js";
import { TraceStore, TraceStoreConfig } from "../src/store/trace-store.js";

const SID = "session-2026-12-01-09-00-00-0123abcd";
const meta: SessionMetaPayload = { session_id: SID, provider: "p", model_id: "m", model_context_window: 1000, system_prompt: "", agent_state: "/a", workspace: "/w" };
const usage = { cache_read: 0, cache_write: 1, output: 1, total: 2 };
const fileOf = (tracesDir: string, index: number) => join(tracesDir, "2026-12-01", `${SID}_${String(index).padStart(3, "0")}.jsonl`);

describe("TraceStore", () => {
  it.effect("given an open session, when records are appended on TestClock, then read returns them at their positions with Clock stamps", () =>
    Effect.gen(function* () {
      const store = yield* TraceStore;
      yield* store.open(meta, { tools: [] });
      yield* TestClock.adjust(Duration.seconds(10));
      const first = yield* store.append(SID, requestBegin({ at: "2030-01-01T00:00:00.000Z" }));
      yield* TestClock.adjust(Duration.millis(250));
      const second = yield* store.append(SID, userText("hi"));
      expect(first.envelope.timestamp).toBe("1970-01-01T00:00:10.000Z");
      expect(second.envelope.timestamp).toBe("1970-01-01T00:00:10.250Z");
      // session_meta and tool_list_ready went first, lazily, right before the first record.
      expect(first.position).toEqual({ file: 1, line: 3 });
      expect(second.position).toEqual({ file: 1, line: 4 });
      const read = Chunk.toReadonlyArray(yield* Stream.runCollect(store.read(SID)));
      expect(read.map((r) => formatPosition(r.position))).toEqual(["001:000001", "001:000002", "001:000003", "001:000004"]);
      expect(read.map((r) => r.envelope.type)).toEqual(["session_meta", "event_msg", "event_msg", "model_msg"]);
    }).pipe(Effect.provide(TraceStore.Test)),
  );

  it.effect("given the clock goes back, when more records are appended, then their timestamps never decrease", () =>
    Effect.gen(function* () {
      const store = yield* TraceStore;
      yield* store.open(meta);
      yield* TestClock.setTime(5_000);
      const a = yield* store.append(SID, requestBegin());
      yield* TestClock.setTime(1_000);
      const b = yield* store.append(SID, requestEnd("completed"));
      expect(b.envelope.timestamp >= a.envelope.timestamp).toBe(true);
      expect(b.envelope.timestamp).toBe(a.envelope.timestamp);
    }).pipe(Effect.provide(TraceStore.Test)),
  );

  it.scoped("given a tail subscriber, when records are appended, then it receives each after it is on disk, with the same position", () =>
    Effect.gen(function* () {
      const store = yield* TraceStore;
      const { tracesDir } = yield* TraceStoreConfig;
      yield* store.open(meta);
      const tail = yield* store.tail(SID);
      const seen = yield* tail.pipe(
        Stream.tap((e) => Effect.sync(() => expect(readFileSync(fileOf(tracesDir, e.position.file), "utf8").split("\n")[e.position.line - 1]).toContain(e.envelope.type))),
        Stream.take(3),
        Stream.runCollect,
        Effect.fork,
      );
      yield* store.append(SID, requestBegin());
      const answered = yield* store.append(SID, assistantText("hello"));
      const all = Chunk.toReadonlyArray(yield* Fiber.join(seen));
      expect(all.map((e) => e.envelope.type)).toEqual(["session_meta", "event_msg", "model_msg"]);
      expect(all[2]!.position).toEqual(answered.position);
    }).pipe(Effect.provide(TraceStore.Test)),
  );

  it.effect("given a rotation, when the next record is appended, then it starts file _002 with its own header and stateAt spans both", () =>
    Effect.gen(function* () {
      const store = yield* TraceStore;
      yield* store.open(meta, { tools: [] });
      for (const m of [requestBegin(), userText("q"), assistantText("a"), requestEnd("completed"), tokenUsage(usage, usage)]) yield* store.append(SID, m);
      yield* store.rotate(SID);
      const next = yield* store.append(SID, sessionTitle("second file"));
      expect(next.position).toEqual({ file: 2, line: 3 });
      const end = yield* store.stateAt(SID);
      expect(end.totalEvents).toBe(10);
      expect(end.state.segments).toBe(2);
      expect(end.state.title).toBe("second file");
      const before = yield* store.stateAt(SID, "001:000006");
      expect(before.state.turns).toBe(1);
      expect(before.state.title).toBeUndefined();
      const bad = yield* Effect.flip(store.stateAt(SID, "the middle"));
      expect(bad._tag).toBe("InvalidPosition");
    }).pipe(Effect.provide(TraceStore.Test)),
  );

  it.effect("given a torn tail, NUL padding and a malformed middle line, when scanned and read, then they are counted and skipped and the file is unchanged", () =>
    Effect.gen(function* () {
      const store = yield* TraceStore;
      const { tracesDir } = yield* TraceStoreConfig;
      yield* store.open(meta);
      yield* store.append(SID, requestBegin());
      yield* store.close(SID);
      const file = fileOf(tracesDir, 1);
      appendFileSync(file, '{"timestamp":"t","type":"model_msg","payload":{"type":"text","role":"user"}}\n\0\0\0\n{"timestamp":"t","type":"event_msg","payload":{"type":"request_end","status":"completed"}}\n{"timestamp":"t","type":"ev');
      const before = readFileSync(file, "utf8");
      const scan = yield* store.scan(SID);
      expect(scan.events).toBe(3);
      expect(scan.skipped.map((s) => [s.line, s.reason])).toEqual([[3, "not-an-envelope"], [6, "torn"]]);
      expect(scan.skipped[0]!.error).toContain('["payload"]["text"]');
      const read = Chunk.toReadonlyArray(yield* Stream.runCollect(store.read(SID)));
      expect(read.map((r) => r.position.line)).toEqual([1, 2, 5]);
      expect(readFileSync(file, "utf8")).toBe(before);
      const missing = yield* Effect.flip(store.scan("session-2026-12-01-09-00-00-ffffffff"));
      expect(missing._tag).toBe("SessionNotFound");
    }).pipe(Effect.provide(TraceStore.Test)),
  );
});
