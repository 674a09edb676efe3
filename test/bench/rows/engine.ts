// Row 3: engine overhead per turn, over a 1000-turn scripted session with one tool call
// (read_file, in-process) per turn and the trace on (fsync as the durability rule says).
// Three figures, so the engine's own cost can be read apart from the model's:
// - full stack: a real session against an in-process testkit over HTTP (wall per turn);
// - engine only: the same loop through ContextEngine with an instant in-process model (no
//   HTTP, no SSE, no adapter), the real Environment and the real TraceWriter;
// - engine only, trace off: the same with a sink that drops records, to show what the trace
//   (with its fsyncs) costs per turn;
// - live fold: the part of the engine's cost that is the session's live fold, i.e. `evolve`
//   over the records one such run makes, per turn (the engine reads its state from that fold;
//   an earlier fold cost 0.5 ms a turn, so it is watched on its own).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ContextEngine, createEnvironment, evolve, initialSessionState, newSessionId, TraceWriter, type LLMInterface, type LLMOutcome, type StreamGenerateInput, type TraceSink } from "@penguin/core";
import { isTraceable, modelMessage, type OmniMessage, type TokenCounts, type ToolDefinition } from "@penguin/omnimessage";
import { startTestkit, type RecordedRequest, type ScriptedTurn } from "@penguin/testkit";
import { metric, msSince, type RowResult } from "../lib/stats.js";
import { makeWorld } from "../lib/world.js";

const READ = { name: "read_file", arguments: { file_path: "notes.txt" } };

/** A model that answers at once: a tool call per request until `turns`, then a text. */
class InstantModel implements LLMInterface {
  #n = 0;
  readonly contextWindow = 1_000_000;
  lastUsage: TokenCounts | undefined;
  constructor(readonly turns: number) {}
  setTools(_tools: ToolDefinition[]): void {}
  async *streamGenerate(input: StreamGenerateInput): AsyncGenerator<OmniMessage, LLMOutcome> {
    this.#n += 1;
    const id = `call_${this.#n}`;
    const out: OmniMessage<"model_msg">[] =
      this.#n < this.turns
        ? [
            modelMessage({ type: "partial_tool_call", role: "assistant", event_type: "start", name: "read_file", arguments: "", tool_call_id: id }),
            modelMessage({ type: "partial_tool_call", role: "assistant", event_type: "delta", name: "", arguments: JSON.stringify(READ.arguments), tool_call_id: id }),
            modelMessage({ type: "partial_tool_call", role: "assistant", event_type: "stop", name: "", arguments: "", tool_call_id: id, stop_reason: "completed" }),
            modelMessage({ type: "tool_call", role: "assistant", name: "read_file", arguments: JSON.stringify(READ.arguments), tool_call_id: id, stop_reason: "completed" }),
          ]
        : [modelMessage({ type: "text", role: "assistant", text: "done", stop_reason: "completed" })];
    // The context a real adapter would send (the fold's history + the new input), built as it builds it.
    const sent = input.history.mapToArray((m) => m.payload);
    for (const m of input.newMessages) sent.push(m.payload as never);
    for (const m of out) yield m;
    this.lastUsage = { cache_read: 0, cache_write: 500, output: 10, total: 510 };
    return { status: "completed" };
  }
}

const dropSink: TraceSink = { append: () => undefined, setTools: () => undefined, rotate: () => undefined };

async function engineOnly(turns: number, traced: boolean): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "penguin-bench-engine-"));
  try {
    writeFileSync(join(dir, "notes.txt"), "benchmark notes\n");
    const env = createEnvironment({ workspaceDir: dir, scratchpadDir: join(dir, ".scratch") });
    const sessionId = newSessionId(new Date());
    const trace: TraceSink = traced
      ? new TraceWriter({
          fileFor: (i) => join(dir, "traces", `${sessionId}_${String(i).padStart(3, "0")}.jsonl`),
          index: 1,
          existing: false,
          meta: { session_id: sessionId, provider: "bench", model_id: "instant", model_context_window: 1_000_000, system_prompt: "bench", agent_state: dir, workspace: dir },
        })
      : dropSink;
    const engine = new ContextEngine({ llm: new InstantModel(turns), env, trace, maxTurns: -1 });
    const start = process.hrtime.bigint();
    for await (const _ of engine.run([modelMessage({ type: "text", role: "user", text: "go" })], { approve: async () => "allow" })) {
      // drain
    }
    const ms = msSince(start);
    await env.dispose();
    if (trace instanceof TraceWriter) trace.close();
    return ms / turns;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** ms per turn of folding, with evolve, the records of one engine-only run (`reps` timings). */
async function liveFold(turns: number, reps: number): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), "penguin-bench-fold-"));
  try {
    writeFileSync(join(dir, "notes.txt"), "benchmark notes\n");
    const env = createEnvironment({ workspaceDir: dir, scratchpadDir: join(dir, ".scratch") });
    const records: OmniMessage[] = [];
    const sink: TraceSink = { append: (m) => void (isTraceable(m) && records.push(m)), setTools: () => undefined, rotate: () => undefined };
    const engine = new ContextEngine({ llm: new InstantModel(turns), env, trace: sink, maxTurns: -1 });
    for await (const _ of engine.run([modelMessage({ type: "text", role: "user", text: "go" })], { approve: async () => "allow" })) {
      // drain
    }
    await env.dispose();
    const out: number[] = [];
    for (let i = 0; i < reps; i++) {
      const start = process.hrtime.bigint();
      let state = initialSessionState;
      for (const m of records) state = evolve(state, m);
      out.push(msSince(start) / turns);
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function fullStack(turns: number): Promise<number> {
  const kit = await startTestkit();
  const world = await makeWorld(kit.baseUrl("openai-chat"));
  try {
    let n = 0;
    const step = (_r: RecordedRequest): ScriptedTurn => (++n < turns ? { toolCalls: [READ], usage: { input: 500, output: 10 } } : { text: "done", usage: { input: 500, output: 5 } });
    kit.enqueue(...Array.from({ length: turns }, () => step));
    const session = await world.agent.createSession({ workspaceDir: world.workspace });
    const start = process.hrtime.bigint();
    for await (const _ of session.run("go", { approve: async () => "allow" })) {
      // drain
    }
    const ms = msSince(start);
    await session.dispose();
    if (kit.requests.length !== turns) throw new Error(`expected ${turns} requests, saw ${kit.requests.length}`);
    return ms / turns;
  } finally {
    await kit.close();
    world.cleanup();
  }
}

export async function rowEngine(runs: number, turns = 1000): Promise<RowResult> {
  const full: number[] = [];
  const engine: number[] = [];
  const untraced: number[] = [];
  await engineOnly(50, true); // warm-up
  for (let i = 0; i < runs; i++) {
    engine.push(await engineOnly(turns, true));
    untraced.push(await engineOnly(turns, false));
    full.push(await fullStack(turns));
  }
  const fold = await liveFold(turns, 10);
  return {
    row: 3,
    title: `Engine overhead per turn (${turns}-turn session, one tool call per turn, trace on)`,
    metrics: [
      metric("engine only (instant model)", "ms/turn", "lower", engine, { goal: "≤ 1 ms/turn" }),
      metric("engine only, trace off", "ms/turn", "lower", untraced),
      metric("live fold (evolve over the run's records)", "ms/turn", "lower", fold),
      metric("full stack over HTTP (testkit)", "ms/turn", "lower", full),
    ],
  };
}
