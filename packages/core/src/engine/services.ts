/**
 * The engine as Effect services, composed with Layers, for hosts written in Effect.
 *
 * - `Approvals` (approvals.ts): policy, then the Human's ApproveFn, for each complete call.
 * - `ToolRunner` (tool-batch.ts): approved calls run concurrently in a FiberSet.
 * - `Compaction` (compaction.ts): the triggers and the compaction request.
 * - `Engine` (here): one session's request lifecycle over those three. `engine.stream(...)`
 *   is a task as a Stream in the caller's context (its Clock drives the reconnect waits).
 *
 * `EngineLive` builds an Engine from the three services found in its context, so a host may
 * replace any of them (another Approvals, say) and keep the rest. `EngineLayer` is the whole
 * stack from one EngineConfig, as the SDK facade builds it. The Engine's Layer owns the
 * session's Environment as a resource: its child processes, MCP connections and live
 * subagents are released (`env.dispose`) when the Layer's scope closes.
 */
import { Context, Effect, Layer } from "effect";
import { Approvals, ApprovalsLive } from "./approvals.js";
import { Compaction, CompactionLive } from "./compaction.js";
import { ContextEngine, initialEngineState, type EngineConfig, type EngineServices, type EngineState } from "./context-engine.js";
import { MAX_RETRIES, reconnectSchedule, retryDecision } from "./reconnect.js";
import { ToolRunner, ToolRunnerLive } from "./tool-batch.js";
import { DEFAULT_COMPACTION } from "./compaction.js";

export { Approvals, ApprovalsLive, Compaction, CompactionLive, ToolRunner, ToolRunnerLive };

export class Engine extends Context.Tag("penguin/engine/Engine")<Engine, ContextEngine>() {}

/** The Engine over the Approvals, ToolRunner and Compaction in context; disposes the Environment on release. */
export const EngineLive = (config: EngineConfig, state: EngineState = initialEngineState()): Layer.Layer<Engine, never, EngineServices> =>
  Layer.scoped(
    Engine,
    Effect.gen(function* () {
      const services = yield* Effect.context<EngineServices>();
      yield* Effect.addFinalizer(() => Effect.promise(async () => config.env.dispose?.()));
      return new ContextEngine(config, state, services);
    }),
  );

/** The whole engine stack from one config: Engine, with its Approvals, ToolRunner and Compaction. */
export const EngineLayer = (config: EngineConfig, state?: EngineState): Layer.Layer<Engine | EngineServices> => {
  const schedule = reconnectSchedule(config.maxRetries ?? MAX_RETRIES);
  const approvals = ApprovalsLive(config.policy);
  const services = Layer.mergeAll(
    approvals,
    ToolRunnerLive(config.env).pipe(Layer.provide(approvals)),
    CompactionLive({
      llm: config.llm,
      trace: config.trace,
      settings: config.compaction ?? DEFAULT_COMPACTION,
      retry: (attempt, outcome) => retryDecision(attempt, outcome, schedule),
    }),
  );
  return EngineLive(config, state).pipe(Layer.provideMerge(services));
};
