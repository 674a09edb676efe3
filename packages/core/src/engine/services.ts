/**
 * The engine as Effect services, composed with Layers, for hosts written in Effect.
 *
 * - `Approvals` (approvals.ts): policy, then the Human's ApproveFn, for each complete call.
 * - `ToolRunner` (tool-batch.ts): approved calls run concurrently in a FiberSet.
 * - `Compaction` (compaction.ts): the triggers and the compaction request.
 * - `SessionFold` (session-fold.ts): the session's state, folded live from its trace; every
 *   service reads the session's state there.
 * - `Steering` (steering.ts): the steering queue, over the fold.
 * - `Resume` (resume.ts): a trace folded into the fold's seed, and what a crash left dangling
 *   closed.
 * - `Engine` (here): one session's request lifecycle over those three. `engine.stream(...)`
 *   is a task as a Stream in the caller's context (its Clock drives the reconnect waits).
 *
 * `EngineLive` builds an Engine from the three services found in its context, so a host may
 * replace any of them (another Approvals, say) and keep the rest; a SessionFold and a
 * Steering in the context are used too (else the engine makes its own, from `seed`). `EngineLayer` is the whole
 * stack from one EngineConfig, as the SDK facade builds it. The Engine's Layer owns the
 * session's Environment as a resource: its child processes, MCP connections and live
 * subagents are released (`env.dispose`) when the Layer's scope closes.
 */
import { Approvals, ApprovalsLive } from "./approvals.js";
import { Compaction, CompactionLive } from "./compaction.js";
import { Context, Effect, Layer, Option } from "effect";
import type { SessionState } from "@penguin/trace";
import { ContextEngine, type EngineConfig, type EngineServices } from "./context-engine.js";
import { MAX_RETRIES, reconnectSchedule, retryDecision } from "./reconnect.js";
import { ToolRunner, ToolRunnerLive } from "./tool-batch.js";
import { DEFAULT_COMPACTION } from "./compaction.js";
import { LiveFold, SessionFold, SessionFoldLive } from "./session-fold.js";
import { makeSteering, Steering, SteeringLive } from "./steering.js";
import { Resume, ResumeLive } from "./resume.js";

export { Approvals, ApprovalsLive, Compaction, CompactionLive, ToolRunner, ToolRunnerLive, SessionFold, SessionFoldLive, LiveFold, Steering, SteeringLive, Resume, ResumeLive };

export class Engine extends Context.Tag("penguin/engine/Engine")<Engine, ContextEngine>() {}

/**
 * The Engine over the Approvals, ToolRunner and Compaction in context (and the SessionFold and
 * Steering, when there); disposes the Environment on release. Without a SessionFold in
 * context the engine folds `config.trace` from `seed` (default: an empty session).
 */
export const EngineLive = (config: EngineConfig, seed?: SessionState): Layer.Layer<Engine, never, EngineServices> =>
  Layer.scoped(
    Engine,
    Effect.gen(function* () {
      const given = yield* Effect.context<EngineServices>();
      const fold = Option.getOrElse(yield* Effect.serviceOption(SessionFold), () => config.fold ?? new LiveFold(config.trace, seed));
      const steering = Option.getOrElse(yield* Effect.serviceOption(Steering), () => makeSteering(fold));
      const services = given.pipe(Context.add(SessionFold, fold), Context.add(Steering, steering));
      yield* Effect.addFinalizer(() => Effect.promise(async () => config.env.dispose?.()));
      return new ContextEngine(config, services);
    }),
  );

/**
 * The whole engine stack from one config: Engine, with its Approvals, ToolRunner, Compaction,
 * and the SessionFold (following `config.trace` from `seed`) with the Steering over it.
 */
export const EngineLayer = (config: EngineConfig, seed?: SessionState): Layer.Layer<Engine | EngineServices | SessionFold | Steering> => {
  const schedule = reconnectSchedule(config.maxRetries ?? MAX_RETRIES);
  const approvals = ApprovalsLive(config.policy);
  const fold = config.fold !== undefined ? Layer.succeed(SessionFold, config.fold) : SessionFoldLive(config.trace, seed);
  const session = Layer.provideMerge(SteeringLive, fold);
  const services = Layer.mergeAll(
    session,
    approvals,
    ToolRunnerLive(config.env, config.checkpoints).pipe(Layer.provide(approvals)),
    CompactionLive({
      llm: config.llm,
      trace: config.trace,
      settings: config.compaction ?? DEFAULT_COMPACTION,
      retry: (attempt, outcome) => retryDecision(attempt, outcome, schedule),
    }),
  );
  return EngineLive(config).pipe(Layer.provideMerge(services));
};
