// The session's state services, given/when/then, over a real TraceWriter in a temp dir:
// - SessionFold: given a fold following a trace, when records are written (by the engine, by
//   the host straight to the writer, by the writer itself as file headers), then the fold's
//   state is the fold of the file's lines; a sink without `onAppend` is folded as the writer
//   filters (no partials, no child messages, no session_meta).
// - Steering: given the queue in the fold, when text is queued, recalled, delivered or dropped,
//   then the events recorded say so and the queue is the fold's; text built for delivery is
//   no longer recallable, and steering queued after it was built stays queued.
// - Resume: given a trace a crash cut short, when seeded and closed through the fold, then
//   the open window becomes pending input, a dangling compaction and undelivered steering are
//   recorded as closed, and a closed context continues in the next file.
// - EngineLayer: the SessionFold and Steering the engine used are in the Layer's context.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "@effect/vitest";
import { Chunk, Effect, Layer, Option, Stream } from "effect";
import {
  assistantText,
  compactionBegin,
  compactionEnd,
  modelMessage,
  requestBegin,
  requestEnd,
  settingsChanged,
  steeringQueued,
  tokenUsage,
  toolCall,
  toolCallOutput,
  userText,
  withOrigin,
  wrapMarker,
  type OmniMessage,
  type SessionMetaPayload,
} from "@penguin/omnimessage";
import { startTestkit } from "@penguin/testkit";
import { comparableFold, foldTrace, readTraceFile, TraceWriter, type SessionState } from "@penguin/trace";
import { createEnvironment } from "../../src/environment/index.js";
import { ContextEngine, type TraceSink } from "../../src/engine/context-engine.js";
import { LiveFold, SessionFold, SessionFoldLive } from "../../src/engine/session-fold.js";
import { Steering, SteeringLive, steeringText } from "../../src/engine/steering.js";
import { Resume, ResumeLive } from "../../src/engine/resume.js";
import { Engine, EngineLayer } from "../../src/engine/services.js";
import { GatewayLLM } from "../../src/llm/gateway-llm.js";
import { newSessionId } from "../../src/state/ids.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const counts = { cache_read: 0, cache_write: 10, output: 5, total: 15 };

function traceDir(): { dir: string; sessionId: string; meta: SessionMetaPayload; fileFor: (i: number) => string } {
  const dir = mkdtempSync(join(tmpdir(), "penguin-session-services-"));
  dirs.push(dir);
  const sessionId = newSessionId(new Date());
  const meta: SessionMetaPayload = { session_id: sessionId, provider: "testkit", model_id: "scripted-model", model_context_window: 128000, system_prompt: "test", agent_state: dir, workspace: dir };
  return { dir, sessionId, meta, fileFor: (i) => join(dir, "traces", `${sessionId}_${String(i).padStart(3, "0")}.jsonl`) };
}

function newWriter(t: ReturnType<typeof traceDir>, options: { existing?: boolean; index?: number; opening?: OmniMessage[] } = {}): TraceWriter {
  return new TraceWriter({ fileFor: t.fileFor, index: options.index ?? 1, meta: t.meta, existing: options.existing ?? false, ...(options.opening === undefined ? {} : { opening: options.opening }) });
}

/** The fold of what is on disk in file `index`. */
const onDisk = (t: ReturnType<typeof traceDir>, index = 1): SessionState => foldTrace(readTraceFile(t.fileFor(index)).messages);

/** Records an array sink keeps (no onAppend: the fold wraps it). */
function arraySink(): TraceSink & { records: OmniMessage[] } {
  const records: OmniMessage[] = [];
  return { records, append: (m) => void records.push(m), setTools: () => undefined, rotate: () => undefined };
}

describe("SessionFold", () => {
  it("given a fold following a writer, when the engine's records, the host's facts and the writer's headers are written, then the fold is the fold of the file", () => {
    const t = traceDir();
    const writer = newWriter(t, { opening: [settingsChanged({ thinking_level: "high" })] });
    const fold = new LiveFold(writer);
    writer.setTools([{ name: "read_file", description: "read", parameters: { type: "object" } }]);
    fold.record(requestBegin());
    fold.record(userText("hi"));
    fold.record(assistantText("hello"));
    fold.record(requestEnd("completed"));
    fold.record(tokenUsage(counts, counts));
    writer.append(settingsChanged({ approval_mode: "auto" }));
    writer.close();

    expect(comparableFold(fold.state)).toEqual(comparableFold(onDisk(t)));
    expect(fold.state.meta?.session_id).toBe(t.sessionId);
    expect(fold.state.settings).toEqual({ thinkingLevel: "high", approvalMode: "auto" });
    expect(fold.state.toolsAnnounced).toBe(true);
    expect(fold.state.turns).toBe(1);
  });

  it("given a writer whose commit-point sync has not returned, when the engine records a turn's end, then the fold already counts it (it follows writes, not publications)", () => {
    const t = traceDir();
    const held: (() => void)[] = [];
    const writer = new TraceWriter({ fileFor: t.fileFor, index: 1, meta: t.meta, existing: false, backgroundSync: (_fd, done) => held.push(() => done(null)) });
    const published: string[] = [];
    writer.onAppend((m) => published.push(m.type === "event_msg" ? m.payload.type : m.type));
    const fold = new LiveFold(writer);
    fold.record(requestBegin());
    fold.record(userText("hi"));
    fold.record(assistantText("hello"));
    fold.record(requestEnd("completed"));
    fold.record(tokenUsage(counts, counts));

    expect(held.length).toBeGreaterThan(0);
    expect(published).not.toContain("token_usage");
    expect(fold.state.turns).toBe(1);
    expect(fold.state.lastRequest).toEqual(counts);
    for (const done of held.splice(0)) done();
    writer.close();
    expect(comparableFold(fold.state)).toEqual(comparableFold(onDisk(t)));
  });

  it("given a sink without onAppend, when partials, child messages and a session_meta are appended, then only what a writer keeps is folded", () => {
    const sink = arraySink();
    const fold = new LiveFold(sink);
    const kept = [requestBegin(), userText("go"), assistantText("ok"), requestEnd("completed")];
    fold.record(kept[0]!);
    fold.record(kept[1]!);
    fold.record(modelMessage({ type: "partial_text", role: "assistant", event_type: "delta", text: "o" }));
    fold.record(withOrigin(userText("a child's input"), "session-child"));
    fold.record(kept[2]!);
    fold.record(kept[3]!);

    expect(sink.records).toHaveLength(6);
    expect(comparableFold(fold.state)).toEqual(comparableFold(foldTrace(kept)));
    expect(fold.state.segments).toBe(0);
  });

  it("given a fold seeded from a resumed state, when one more record is written, then it continues from the seed", () => {
    const seed = foldTrace([requestBegin(), userText("before"), assistantText("answer"), requestEnd("completed")]);
    const fold = new LiveFold(arraySink(), seed);
    fold.record(userText("queued input"));
    expect(fold.state.turns).toBe(1);
    expect(fold.state.pending.toArray().map((m) => (m.type === "model_msg" && m.payload.type === "text" ? m.payload.text : ""))).toEqual(["queued input"]);
  });

  it("given a fold following another sink, when an engine is built with it, then the engine refuses and says why", async () => {
    const kit = await startTestkit({ script: [] });
    try {
      const t = traceDir();
      const llm = new GatewayLLM({ endpoint: { provider: "testkit", modelId: "m", clientType: "openai-chat", baseUrl: kit.baseUrl("openai-chat"), apiKey: "sk-test", contextWindow: 1000 }, systemPrompt: "", tools: [] });
      const env = createEnvironment({ workspaceDir: t.dir, scratchpadDir: join(t.dir, ".scratch") });
      expect(() => new ContextEngine({ llm, env, trace: arraySink(), maxTurns: -1, fold: new LiveFold(arraySink()) })).toThrow(/fold follows another trace sink/);
      await env.dispose();
    } finally {
      await kit.close();
    }
  });
});

describe("Steering", () => {
  const steeringOver = (sink: TraceSink) => Layer.provideMerge(SteeringLive, SessionFoldLive(sink));

  it.effect("given an empty queue, when text is queued and one item recalled, then the events are recorded and the queue is the fold's", () =>
    Effect.gen(function* () {
      const t = traceDir();
      const writer = newWriter(t);
      const { fold, ids, recalled, unknown, pending } = yield* Effect.gen(function* () {
        const steering = yield* Steering;
        const fold = yield* SessionFold;
        const ids = [yield* steering.queue("use the staging database"), yield* steering.queue("never mind")];
        const recalled = yield* steering.recall(ids[1]!);
        const unknown = yield* steering.recall("steer-404");
        return { fold, ids, recalled, unknown, pending: yield* steering.pending };
      }).pipe(Effect.provide(steeringOver(writer)));
      writer.close();

      expect(new Set(ids).size).toBe(2);
      expect(recalled).toEqual(Option.some("never mind"));
      expect(unknown).toEqual(Option.none());
      expect(pending).toEqual([{ id: ids[0], text: "use the staging database" }]);
      const events = readTraceFile(t.fileFor(1)).messages.flatMap((m) => (m.type === "event_msg" ? [m.payload.type] : []));
      expect(events).toEqual(["steering_queued", "steering_queued", "steering_recalled"]);
      expect(comparableFold(fold.state)).toEqual(comparableFold(onDisk(t)));
    }));

  it.effect("given a delivery built from the queue, when text is queued before it is recorded, then only the carried items are delivered and they can no longer be recalled", () =>
    Effect.gen(function* () {
      const sink = arraySink();
      yield* Effect.gen(function* () {
        const steering = yield* Steering;
        const fold = yield* SessionFold;
        const first = yield* steering.queue("first");
        const delivery = yield* steering.delivery;
        expect(Option.map(delivery, (m) => (m.type === "model_msg" && m.payload.type === "text" ? m.payload.text : ""))).toEqual(Option.some(wrapMarker("user_steering", "first")));
        const late = yield* steering.queue("late");
        // In flight: still queued in the fold, but no longer recallable.
        expect(yield* steering.recall(first)).toEqual(Option.none());
        expect((yield* steering.pending).map((s) => s.text)).toEqual(["first", "late"]);
        fold.record(Option.getOrThrow(delivery));
        expect(yield* steering.pending).toEqual([{ id: late, text: "late" }]);
        const next = yield* steering.delivery;
        expect(Option.map(next, (m) => (m.type === "model_msg" && m.payload.type === "text" ? m.payload.text : ""))).toEqual(Option.some(steeringText([{ id: late, text: "late" }])));
        fold.record(Option.getOrThrow(next));
        expect(yield* steering.pending).toEqual([]);
        expect(yield* steering.delivery).toEqual(Option.none());
      }).pipe(Effect.provide(steeringOver(sink)));
      expect(sink.records.filter((m) => m.type === "event_msg" && m.payload.type === "steering_recalled")).toEqual([]);
    }));

  it.effect("given steering a finished run never delivered, when it is dropped, then each item is recorded as recalled and the queue is empty", () =>
    Effect.gen(function* () {
      const sink = arraySink();
      const pending = yield* Effect.gen(function* () {
        const steering = yield* Steering;
        yield* steering.queue("a");
        yield* steering.queue("b");
        yield* steering.dropUndelivered;
        return yield* steering.pending;
      }).pipe(Effect.provide(steeringOver(sink)));
      expect(pending).toEqual([]);
      expect(sink.records.map((m) => (m.type === "event_msg" ? m.payload.type : m.type))).toEqual(["steering_queued", "steering_queued", "steering_recalled", "steering_recalled"]);
    }));
});

describe("Resume", () => {
  const resume = Effect.provide(Resume, ResumeLive);

  it.effect("given a trace whose last request a crash cut short, when seeded, then the history is what committed and the cut input is pending with a [turn_aborted] note", () =>
    Effect.gen(function* () {
      const r = yield* resume;
      const seed = yield* r.seed([
        requestBegin(),
        userText("read it"),
        toolCall({ name: "read_file", arguments: "{}", tool_call_id: "c1" }),
        requestEnd("completed"),
        toolCallOutput({ tool_call_id: "c1", output: "contents" }),
        requestBegin(),
        userText("and then?"),
        assistantText("half an ans"),
      ]);
      const texts = (ms: readonly OmniMessage[]) => ms.map((m) => (m.type === "model_msg" ? (m.payload.type === "text" ? m.payload.text : m.payload.type === "tool_call_output" ? m.payload.output : m.payload.type) : m.type));
      // The context the first request continues is the seeded fold's history (the adapter keeps none).
      expect(texts(seed.state.history.toArray())).toEqual(["read it", "tool_call"]);
      expect(seed.state.window).toBeUndefined();
      const pending = texts(seed.state.pending.toArray());
      expect(pending.slice(0, 2)).toEqual(["contents", "and then?"]);
      expect(pending[2]).toMatch(/^\[turn_aborted\]/);
      expect(seed.toolCallIds).toEqual(["c1"]);
      expect(seed.state.turns).toBe(1);
    }));

  it.effect("given a trace that ends inside a compaction with steering queued, when closed through the fold, then both are recorded as closed and the fold is the file's", () =>
    Effect.gen(function* () {
      const t = traceDir();
      const first = newWriter(t);
      for (const m of [requestBegin(), userText("hi"), assistantText("hello"), requestEnd("completed"), steeringQueued("steer-1", "also"), compactionBegin({ reason: "context", mode: "summarize", context: 9000, turns: 1 }), requestBegin()]) first.append(m);
      first.close();

      const r = yield* resume;
      const seed = yield* r.seed(readTraceFile(t.fileFor(1)).messages);
      expect(seed.state.compactionSpan).toBeDefined();
      const writer = newWriter(t, { existing: true });
      const fold = new LiveFold(writer, seed.state);
      yield* r.close(fold);
      writer.close();

      const tail = readTraceFile(t.fileFor(1)).messages.slice(-2).map((m) => (m.type === "event_msg" ? m.payload : m.type));
      expect(tail).toEqual([expect.objectContaining({ type: "compaction_end", status: "failed" }), expect.objectContaining({ type: "steering_recalled", steering_id: "steer-1" })]);
      expect(fold.state.compaction).toEqual(expect.objectContaining({ status: "idle" }));
      expect(fold.state.steering).toEqual([]);
      const disk = onDisk(t);
      expect({ turns: fold.state.turns, steering: fold.state.steering, compaction: fold.state.compaction, history: comparableFold(fold.state.history) }).toEqual({
        turns: disk.turns,
        steering: disk.steering,
        compaction: disk.compaction,
        history: comparableFold(disk.history),
      });
    }));

  it.effect("given a trace that ends in a completed compaction, when closed, then the context starts empty and the next record opens the next file with its header", () =>
    Effect.gen(function* () {
      const t = traceDir();
      const first = newWriter(t);
      for (const m of [
        requestBegin(),
        userText("hi"),
        assistantText("hello"),
        requestEnd("completed"),
        compactionBegin({ reason: "manual", mode: "summarize", context: 100, turns: 1 }),
        requestBegin(),
        assistantText("[summary]\nsaid hello\n[/summary]"),
        requestEnd("completed"),
        compactionEnd({ reason: "manual", mode: "summarize", status: "completed" }),
      ]) first.append(m);
      first.close();

      const r = yield* resume;
      const seed = yield* r.seed(readTraceFile(t.fileFor(1)).messages, { settings: { thinkingLevel: "low" } });
      expect(seed.state.history.size).toBe(0);
      expect(seed.state.pendingSummary).toMatch(/said hello/);
      expect(seed.state.settings).toEqual({ thinkingLevel: "low" });
      const writer = newWriter(t, { existing: true });
      const fold = new LiveFold(writer, seed.state);
      yield* r.close(fold);
      fold.record(requestBegin());
      writer.close();

      expect(readTraceFile(t.fileFor(2)).messages.map((m) => (m.type === "event_msg" ? m.payload.type : m.type))).toEqual(["session_meta", "request_begin"]);
      expect(fold.state.segments).toBe(seed.state.segments + 1);
      expect(fold.state.pendingSummary).toBeUndefined();
    }));
});

describe("EngineLayer", () => {
  it.effect("given the whole stack, when a task runs, then the SessionFold in its context is the fold of the trace and Steering reads it", () =>
    Effect.gen(function* () {
      const kit = yield* Effect.promise(() => startTestkit({ script: [{ text: "done", usage: { input: 40, output: 2 } }] }));
      const t = traceDir();
      const llm = new GatewayLLM({ endpoint: { provider: "testkit", modelId: "scripted-model", clientType: "openai-chat", baseUrl: kit.baseUrl("openai-chat"), apiKey: "sk-test-layers", contextWindow: 128000 }, systemPrompt: "test", tools: [] });
      const env = createEnvironment({ workspaceDir: t.dir, scratchpadDir: join(t.dir, ".scratch") });
      const writer = newWriter(t);
      const result = yield* Effect.gen(function* () {
        const engine = yield* Engine;
        yield* Stream.runCollect(engine.stream([userText("go")])).pipe(Effect.map(Chunk.toReadonlyArray));
        const fold = yield* SessionFold;
        const steering = yield* Steering;
        return { fold, engine, pending: yield* steering.pending };
      }).pipe(Effect.provide(EngineLayer({ llm, env, trace: writer, maxTurns: -1 })));
      writer.close();
      yield* Effect.promise(() => kit.close());

      expect(result.fold).toBe(result.engine.fold);
      expect(result.pending).toEqual([]);
      expect(comparableFold(result.fold.state)).toEqual(comparableFold(onDisk(t)));
      expect(result.engine.state.turns).toBe(1);
      expect(result.engine.state.sessionUsage.total).toBe(result.fold.state.sessionUsage.total);
      expect(result.fold.state.sessionUsage.total).toBeGreaterThan(0);
    }));
});
