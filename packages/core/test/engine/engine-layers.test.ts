// The engine's Layers, as an Effect host composes them: the real GatewayLLM against the
// testkit, the real Environment and TraceWriter in a temp dir. Given the whole stack
// (`EngineLayer`), when a task with a tool call runs as a Stream, then the call is approved by
// the Approvals service and run by the ToolRunner, and its output goes back to the model;
// given `EngineLive` over a replaced Approvals service, then that service decides instead; and
// when the Layer's scope closes, the Environment is disposed (a background command is gone).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "@effect/vitest";
import { Chunk, Effect, Layer, Stream } from "effect";
import { approvalDecision, userText, type OmniMessage, type ToolCallOutputPayload } from "@penguin/omnimessage";
import { startTestkit, type ScriptStep, type Testkit } from "@penguin/testkit";
import { TraceWriter } from "@penguin/trace";
import { createEnvironment } from "../../src/environment/index.js";
import { GatewayLLM } from "../../src/llm/gateway-llm.js";
import { newSessionId } from "../../src/state/ids.js";
import { Approvals, CompactionLive, Engine, EngineLayer, EngineLive, ToolRunnerLive } from "../../src/engine/services.js";
import { DEFAULT_COMPACTION } from "../../src/engine/compaction.js";
import { retryDecision } from "../../src/engine/reconnect.js";
import type { EngineConfig } from "../../src/engine/context-engine.js";

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

async function world(script: ScriptStep[]): Promise<{ config: EngineConfig; kit: Testkit; dir: string }> {
  const kit = await startTestkit({ script });
  const dir = mkdtempSync(join(tmpdir(), "penguin-layers-"));
  const sessionId = newSessionId(new Date());
  const llm = new GatewayLLM({
    endpoint: { provider: "testkit", modelId: "scripted-model", clientType: "openai-chat", baseUrl: kit.baseUrl("openai-chat"), apiKey: "sk-test-layers", contextWindow: 128000 },
    systemPrompt: "test",
    tools: [],
  });
  const env = createEnvironment({ workspaceDir: dir, scratchpadDir: join(dir, ".scratch") });
  const trace = new TraceWriter({
    fileFor: (i) => join(dir, "traces", `${sessionId}_${String(i).padStart(3, "0")}.jsonl`),
    index: 1,
    existing: false,
    meta: { session_id: sessionId, provider: "testkit", model_id: "scripted-model", model_context_window: 128000, system_prompt: "test", agent_state: dir, workspace: dir },
  });
  cleanup = async () => {
    await env.dispose();
    trace.close();
    await kit.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { config: { llm, env, trace, maxTurns: -1 }, kit, dir };
}

const outputsOf = (ms: readonly OmniMessage[]): ToolCallOutputPayload[] =>
  ms.flatMap((m) => (m.type === "model_msg" && m.payload.type === "tool_call_output" ? [m.payload] : []));

const runTask = (text: string) =>
  Effect.gen(function* () {
    const engine = yield* Engine;
    return Chunk.toReadonlyArray(yield* Stream.runCollect(engine.stream([userText(text)], { approve: async () => "allow" })));
  });

describe("engine Layers", () => {
  it.effect("given the whole stack, when a task calls a tool, then it is approved, run and answered", () =>
    Effect.gen(function* () {
      const w = yield* Effect.promise(() => world([{ toolCalls: [{ name: "exec_command", arguments: { cmd: "echo layered", description: "echo" } }] }, { text: "done" }]));
      const messages = yield* runTask("go").pipe(Effect.provide(EngineLayer(w.config)));
      expect(outputsOf(messages)).toEqual([expect.objectContaining({ output: expect.stringContaining("layered") })]);
      expect(w.kit.requests).toHaveLength(2);
      expect(w.kit.requests[1]!.messages.filter((m) => m.kind === "tool_result")).toHaveLength(1);
    }));

  it.effect("given EngineLive over a replaced Approvals, when a task calls a tool, then that service's decision holds", () =>
    Effect.gen(function* () {
      const w = yield* Effect.promise(() => world([{ toolCalls: [{ name: "exec_command", arguments: { cmd: "echo never", description: "echo" } }] }, { text: "ok" }]));
      const refuseAll = Layer.succeed(Approvals, {
        decide: (call, _approve, report) =>
          Effect.sync(() => {
            report.emit(approvalDecision("deny", call.tool_call_id));
            report.record({ type: "tool_call_output", role: "user", tool_call_id: call.tool_call_id, output: "refused by the host's service", stop_reason: "aborted" });
            return false;
          }),
      });
      const compaction = CompactionLive({ llm: w.config.llm, trace: w.config.trace, settings: DEFAULT_COMPACTION, retry: (a, o) => retryDecision(a, o) });
      const stack = EngineLive(w.config).pipe(Layer.provide(Layer.mergeAll(refuseAll, ToolRunnerLive(w.config.env).pipe(Layer.provide(refuseAll)), compaction)));
      const messages = yield* runTask("go").pipe(Effect.provide(stack));
      expect(outputsOf(messages).map((o) => o.output)).toEqual(["refused by the host's service"]);
    }));

  it.effect("given a background command started through the Engine, when the Layer's scope closes, then the command is gone", () =>
    Effect.gen(function* () {
      const marker = `penguin-layer-bg-${process.pid}-${Date.now()}`;
      const w = yield* Effect.promise(() =>
        world([{ toolCalls: [{ name: "exec_command", arguments: { cmd: `sleep 300; : ${marker}`, run_in_background: true, description: "bg" } }] }, { text: "started" }]),
      );
      const running = () => execFileSync("ps", ["-eo", "args"], { encoding: "utf8" }).split("\n").filter((l) => l.includes(marker) && !l.includes("ps -eo")).length;
      yield* Effect.scoped(
        Effect.gen(function* () {
          const context = yield* Layer.build(EngineLayer(w.config));
          yield* runTask("start it").pipe(Effect.provide(context));
          expect(running()).toBeGreaterThan(0);
        }),
      );
      expect(running()).toBe(0);
    }));
});
