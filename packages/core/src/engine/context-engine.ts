/**
 * ContextEngine: the ReAct loop between the three boundaries (Human, LLM, Environment).
 *
 * One `run` is one task: the Human's new messages go to the model; each complete tool call
 * is approved (one at a time, in call order) and, if allowed, executed at once, concurrently,
 * without blocking the stream; when the response ends the engine records `request_end` and
 * `token_usage` without waiting for tools; once every call has its output the outputs go back
 * to the model in call order as the next request's input. A response without tool calls ends
 * the task (unless steering arrived meanwhile: then the steering continues it).
 *
 * Every message is traced and yielded at the same moment (a single emit). Traced but not
 * yielded: the Human's own prompt (the host has it), `subagent` pointers, retry notes and the
 * compaction request. Yielded but not traced: partials and child messages (`origin`), which
 * the trace writer filters out.
 *
 * The engine keeps no session state of its own: the model context each request continues,
 * turns, usage, the last request's size, the tool announcement, the thinking level, the
 * pending summary, the carry-over and the steering queue are read from the session's live fold (session-fold.ts), the trace folded with
 * `evolve` record by record. What the engine decides becomes state only by being recorded,
 * so the running session and a fold of its trace agree by construction. What a run holds in
 * hand (the input it is assembling for the next request) is the run's, not the session's.
 *
 * Failure handling, all as values (nothing from LLM or Environment may throw in here):
 * - Reconnect: `timeout`, `malformed` and `failed` are retried up to 5 times (reconnect.ts),
 *   resending the input plus a `[turn_retried]` note of what the failed attempt produced; its
 *   tools already ran and are not run again. `auth` and `permanent` failures stop at once.
 * - Abort: `abort` is the last message. If the response was cut short, the turn's input plus
 *   a `[turn_aborted]` note become the carry-over; if it had completed, finished outputs are
 *   kept and unfinished calls get `[interrupted: tool aborted by user]`.
 * - `max_turns`: the run stops with an `abort` naming the limit; unsent input is carried over.
 * - Compaction (compaction.ts) runs before a request when a trigger fires; if it fails the
 *   run stops like an abort and the old context is kept.
 *
 * The loop is Effect code: `#drive`, `#turn`, `#attempt` and `#stream` are `Effect.gen`
 * programs over the engine's services (Approvals, ToolRunner, Compaction, Steering and the
 * SessionFold; services.ts has the Layers). A run is one fiber whose program runs uninterruptibly; abort is that fiber's
 * interruption, which cuts in only at the explicit interruptible waits (abort.ts) and is
 * bridged there to the AbortSignal of the model request or the tool. Reconnect waits follow
 * the reconnect Schedule on the Clock. `run` hands the host an AsyncGenerator (the promise
 * facade); `stream` is the same run as an Effect Stream, in the caller's context (its Clock).
 */
import {
  abortEvent,
  addTokens,
  isCompleteModel,
  isPartial,
  PartialAggregator,
  requestBegin,
  requestEnd,
  settingsChanged,
  tokenUsage,
  toolListReady,
  userText,
  zeroTokens,
  type CompactionReason,
  type CompleteModelPayload,
  type OmniMessage,
  type TokenCounts,
  type ToolCallOutputPayload,
  type ToolDefinition,
} from "@penguin/omnimessage";
import type { ThinkingLevel } from "@penguin/models";
import type { ApproveFn, EnvironmentInterface, LLMInterface, LLMOutcome, PolicyCheck } from "../interfaces.js";
import { fiberMessages } from "./fiber-messages.js";
import { DEFAULT_COMPACTION, survivesCompaction, type CompactionSettings } from "./compaction.js";
import { type Clock, Context, Deferred, Duration, Effect, Exit, Fiber, FiberId, Option, Stream } from "effect";
import { carryOverOf, contextSummaryText, INTERRUPTED_BY_USER, turnRetriedText, type SessionState } from "@penguin/trace";
import { LiveFold, SessionFold } from "./session-fold.js";
import { makeSteering, Steering, type SteeringShape } from "./steering.js";
import { awaitEdge, isAborted } from "./abort.js";
import { Approvals, makeApprovals } from "./approvals.js";
import { Compaction, makeCompaction } from "./compaction.js";
import { clockFromSleep, MAX_RETRIES, reconnectSchedule, reconnectWait, retryDecision, type SleepFn } from "./reconnect.js";
import type { TraceSink } from "./trace-sink.js";
import type { CheckpointHook } from "./checkpoint-hook.js";
import { makeToolRunner, ToolRunner, type Emit, type ToolBatch, type ToolBatches } from "./tool-batch.js";

export type { TraceSink } from "./trace-sink.js";

export interface EngineConfig {
  llm: LLMInterface;
  env: EnvironmentInterface;
  trace: TraceSink;
  /** Requests per run; -1 for no limit. */
  maxTurns: number;
  policy?: PolicyCheck;
  compaction?: CompactionSettings;
  sleep?: SleepFn;
  maxRetries?: number;
  /**
   * The session's live fold, following `trace` (resume seeds it from the trace). Default: a
   * new fold of `trace` from an empty session. A SessionFold in the engine's services wins.
   */
  fold?: LiveFold;
  /** Workspace checkpoints after tool calls and at each task's start (checkpoint-hook.ts); none: no checkpoints. */
  checkpoints?: CheckpointHook;
  /**
   * Runs before an automatic compaction (the session's PreCompact hooks, `trigger: "auto"`):
   * the records it returns are written first, then the compaction starts. It cannot block one;
   * an abort aborts its signal and the run waits for what it returns.
   */
  beforeAutoCompaction?: (reason: CompactionReason, signal: AbortSignal) => Promise<readonly OmniMessage<"event_msg">[]>;
}

/**
 * What survives between runs, as the session's live fold holds it: a read-only view computed
 * from the fold (`engine.state`), for hosts that read these few facts.
 */
export interface EngineState {
  /** Input the next request sends before any new input (open tool outputs, interrupted turns). */
  readonly carryOver: readonly OmniMessage[];
  /** A `[context_summary]` body to place before the next input (a closed context). */
  readonly pendingSummary: string | undefined;
  /** Committed requests in the current context. */
  readonly turns: number;
  readonly sessionUsage: TokenCounts;
  readonly lastRequest: TokenCounts | undefined;
  /** The tool list was already announced in the current trace file. */
  readonly toolsAnnounced: boolean;
  /**
   * The session's thinking level as the trace knows it: the last `settings_changed` (a new
   * session records its starting level in its opening one). A task with another level
   * records the change.
   */
  readonly thinkingLevel: string | undefined;
}

/** The EngineState view of a folded state; `at` stamps the placeholders of missing tool outputs. */
export function engineStateOf(state: SessionState, at: string = new Date().toISOString()): EngineState {
  return {
    get carryOver() {
      return carryOverOf(state, at);
    },
    pendingSummary: state.pendingSummary,
    turns: state.turns,
    sessionUsage: state.sessionUsage,
    lastRequest: state.lastRequest,
    toolsAnnounced: state.toolsAnnounced,
    thinkingLevel: state.settings.thinkingLevel,
  };
}

export interface RunOptions {
  /** Asked once per tool call. Without it every call is denied. */
  approve?: ApproveFn;
  signal?: AbortSignal;
  thinkingLevel?: ThinkingLevel;
}

/** Whether `compact()` has anything to do right now. */
export type Compactability = "ok" | "empty" | "just_compacted";

/**
 * A message queued for the next request. `fresh` messages (the Human's input, steering,
 * notices) are recorded when sent; the rest (tool outputs, carry-over) were recorded before
 * or never are, and a compaction consumes them.
 */
interface Outgoing {
  message: OmniMessage;
  fresh: boolean;
  stream: boolean;
}

/** The services a host replaces through EngineLive (services.ts); a SessionFold and a Steering found beside them are used too. */
export type EngineServices = Approvals | ToolRunner | Compaction;

/** The services a run's program uses. */
type RunServices = EngineServices | Steering | SessionFold;

type TurnResult =
  | { kind: "done" }
  | { kind: "tools"; outputs: OmniMessage[] }
  | { kind: "stopped"; reason: string };

export class ContextEngine {
  readonly #config: EngineConfig;
  readonly #maxRetries: number;
  readonly #compaction: CompactionSettings;
  /** The engine's services, built once from its config and provided to every run. */
  readonly #services: Context.Context<RunServices>;
  /** The session's state: every record the engine makes goes through it. */
  readonly #fold: LiveFold;
  readonly #steering: SteeringShape;
  /** The reconnect policy (a Schedule of `maxRetries` recurrences). */
  readonly #retry: (attempt: number, outcome: LLMOutcome) => Effect.Effect<Option.Option<Duration.Duration>>;
  /** The promise facade's time: the default Clock, or one whose sleeps are the host's SleepFn. */
  readonly #clock: Clock.Clock | undefined;
  #connected = false;
  #running = false;
  /** False once the run has recorded its last message: steering then has no task to reach. */
  #acceptingSteering = false;
  /** The running task's fiber, if any: interrupting it aborts the task. */
  #runFiber: Fiber.Fiber<void> | undefined;
  /** Completing it ends the reconnect wait in progress ("Retry now"). */
  #skipWait: Deferred.Deferred<void> | undefined;

  /** `services` replaces the engine's own Approvals, ToolRunner, Compaction, SessionFold and Steering (services.ts, EngineLive). */
  constructor(config: EngineConfig, services?: Context.Context<EngineServices | SessionFold | Steering>) {
    this.#config = config;
    this.#maxRetries = config.maxRetries ?? MAX_RETRIES;
    this.#compaction = config.compaction ?? DEFAULT_COMPACTION;
    this.#clock = config.sleep === undefined ? undefined : clockFromSleep(config.sleep);
    const schedule = reconnectSchedule(this.#maxRetries);
    this.#retry = (attempt, outcome) => retryDecision(attempt, outcome, schedule);
    const approvals = makeApprovals(config.policy);
    const fold = services === undefined ? (config.fold ?? new LiveFold(config.trace)) : Context.get(services, SessionFold);
    if (!fold.follows(config.trace)) {
      throw new Error("the session's fold follows another trace sink than the engine's config.trace: build the fold from the engine's sink");
    }
    this.#fold = fold;
    this.#steering = services === undefined ? makeSteering(fold) : Context.get(services, Steering);
    this.#services =
      services ??
      Context.make(Approvals, approvals).pipe(
        Context.add(ToolRunner, makeToolRunner(config.env, approvals, config.checkpoints)),
        Context.add(Compaction, makeCompaction({ llm: config.llm, trace: config.trace, settings: this.#compaction, retry: this.#retry })),
        Context.add(SessionFold, fold),
        Context.add(Steering, this.#steering),
      );
  }

  /** The session's live fold (its state after the last record). */
  get fold(): LiveFold {
    return this.#fold;
  }

  /** The few facts hosts read between runs, as a view of the fold. */
  get state(): EngineState {
    return engineStateOf(this.#fold.state);
  }

  get running(): boolean {
    return this.#running;
  }

  /**
   * Queue steering text for the running task: delivered at the next input assembly as a
   * `[user_steering]` user text. False (and dropped) when nothing is running.
   */
  steer(text: string): boolean {
    return this.queueSteering(text) !== undefined;
  }

  /** Like `steer`, returning an id that `recallSteering` accepts until the text is delivered. */
  queueSteering(text: string): string | undefined {
    return Option.getOrUndefined(Effect.runSync(this.#steering.offer(text, this.#running && this.#acceptingSteering)));
  }

  /** Take back queued steering before it is delivered. Returns its text, or undefined if already sent or unknown. */
  recallSteering(id: string): string | undefined {
    return Option.getOrUndefined(Effect.runSync(this.#steering.recall(id)));
  }

  /** Steering queued and not yet delivered, oldest first (the fold's queue). */
  pendingSteering(): { id: string; text: string }[] {
    return this.#fold.state.steering.map((s) => ({ id: s.id, text: s.text }));
  }

  /** End a reconnect wait early ("Retry now"). False when no wait is in progress. */
  skipReconnectWait(): boolean {
    const skip = this.#skipWait;
    if (skip === undefined) return false;
    Deferred.unsafeDone(skip, Exit.void);
    return true;
  }

  /**
   * Abort the running task, if any, and wait until it has recorded its end (its tools ended,
   * their processes reaped). The session's Scope runs this first when it closes (dispose).
   */
  readonly abortRunning: Effect.Effect<void> = Effect.suspend(() => {
    const fiber = this.#runFiber;
    return fiber === undefined ? Effect.void : Effect.asVoid(Fiber.interrupt(fiber));
  });

  compactability(): Compactability {
    const state = this.#fold.state;
    if (state.pendingSummary !== undefined && state.history.size === 0) return "just_compacted";
    if (state.history.size === 0 && state.lastCalls.length === 0 && state.pending.size === 0) return "empty";
    return "ok";
  }

  /** Run one task. The generator yields every message of the run and ends after the last. */
  run(newMessages: OmniMessage[], options: RunOptions = {}): AsyncGenerator<OmniMessage, void> {
    return this.#session(options, (emit) => this.#drive(newMessages, options, emit));
  }

  /**
   * The same task as an Effect Stream, run in the caller's context (its Clock: a TestClock
   * drives the reconnect waits). Ending the stream early, or interrupting it, aborts the task.
   */
  stream(newMessages: OmniMessage[], options: Omit<RunOptions, "signal"> = {}): Stream.Stream<OmniMessage> {
    return this.#effectSession((emit) => this.#drive(newMessages, options, emit));
  }

  /**
   * Compact now (`manual`). Yields the compaction's messages. Steering that arrives meanwhile
   * is kept for the next run. Throws (before starting) when there is nothing to compact.
   */
  compact(options: { signal?: AbortSignal } = {}): AsyncGenerator<OmniMessage, void> {
    this.#assertCompactable();
    return this.#session(options, (emit) => this.#manualCompaction(emit));
  }

  /** `compact` as an Effect Stream in the caller's context. */
  compactStream(): Stream.Stream<OmniMessage> {
    return Stream.suspend(() => {
      this.#assertCompactable();
      return this.#effectSession((emit) => this.#manualCompaction(emit));
    });
  }

  #assertCompactable(): void {
    const why = this.compactability();
    if (why !== "ok") throw new Error(why === "empty" ? "nothing to compact: the context is empty" : "the context was just compacted");
  }

  /** A manual compaction consumes the carry-over; steering that arrived meanwhile is kept for the next run (evolve's rule). */
  #manualCompaction(emit: Emit): Effect.Effect<void, never, RunServices> {
    const self = this;
    return Effect.gen(function* () {
      yield* self.#connect(emit);
      const consumed = carryOverOf(self.#fold.state, new Date().toISOString());
      const compaction = yield* Compaction;
      yield* compaction.compact("manual", consumed, { fold: self.#fold, emit, wait: self.#wait });
    });
  }

  /** Mark the session's one active run as started; refuse a second. */
  #begin(): void {
    if (this.#running) {
      throw new Error("a task is already running on this session: wait for it to end, steer it, or abort it first");
    }
    this.#running = true;
    this.#acceptingSteering = true;
  }

  #end(): void {
    this.#runFiber = undefined;
    this.#running = false;
  }

  /** A run's emit: every message traced, streamed ones pushed to the host. */
  #emitter(push: (m: OmniMessage) => void): Emit {
    return (m, stream = true) => {
      // An abort is the run's last message: steering not delivered by then is dropped with it
      // (as the trace's fold reads it), not when the host has finished reading the stream.
      if (m.type === "event_msg" && m.payload.type === "abort") this.#acceptingSteering = false;
      this.#fold.record(m);
      if (stream) push(m);
    };
  }

  /**
   * A run's program: uninterruptible except at its explicit waits (abort.ts), with the
   * engine's services. When it ends everything is recorded (the host may still be reading
   * buffered messages): steering from then on would never be delivered, so it is refused, and
   * steering that reached the queue after the run's last input assembly is dropped (recorded).
   */
  #program(body: Effect.Effect<void, never, RunServices>): Effect.Effect<void> {
    return body.pipe(
      Effect.ensuring(Effect.zipRight(Effect.sync(() => (this.#acceptingSteering = false)), this.#steering.dropUndelivered)),
      Effect.uninterruptible,
      Effect.provide(this.#services),
    );
  }

  /** The promise facade: the run's fiber on the default runtime, its messages through a channel. */
  async *#session(options: { signal?: AbortSignal }, body: (emit: Emit) => Effect.Effect<void, never, RunServices>): AsyncGenerator<OmniMessage, void> {
    this.#begin();
    try {
      yield* fiberMessages((push) => this.#program(body(this.#emitter(push))), {
        signal: options.signal,
        clock: this.#clock,
        onFiber: (fiber) => (this.#runFiber = fiber as Fiber.Fiber<void>),
      });
    } finally {
      this.#end();
    }
  }

  /** The Effect facade: the run's fiber in the stream's scope; closing the scope aborts it. */
  #effectSession(body: (emit: Emit) => Effect.Effect<void, never, RunServices>): Stream.Stream<OmniMessage> {
    return Stream.asyncScoped<OmniMessage>(
      (emitter) =>
        Effect.gen(this, function* () {
          yield* Effect.acquireRelease(
            Effect.sync(() => this.#begin()),
            () => Effect.sync(() => this.#end()),
          );
          const program = this.#program(body(this.#emitter((m) => void emitter.single(m))));
          this.#runFiber = yield* Effect.forkScoped(Effect.ensuring(program, Effect.sync(() => void emitter.end())));
        }),
      "unbounded",
    );
  }

  /** The run's loop; its Scope holds the run's tool fibers (one FiberSet for all its requests). */
  /** The config's `beforeAutoCompaction`: its records written (and yielded to the host) before the compaction's. */
  #beforeAutoCompaction(reason: CompactionReason, emit: Emit): Effect.Effect<void> {
    const before = this.#config.beforeAutoCompaction;
    if (before === undefined) return Effect.void;
    return Effect.gen(function* () {
      const controller = new AbortController();
      const records = yield* Effect.orDie(awaitEdge(before(reason, controller.signal), controller));
      for (const record of records) emit(record);
    });
  }

  #drive(newMessages: OmniMessage[], options: Omit<RunOptions, "signal">, emit: Emit): Effect.Effect<void, never, RunServices> {
    const self = this;
    return Effect.gen(function* () {
      yield* self.#connect(emit);
      const fold = self.#fold;
      // The task's thinking level is decided here: a change is a session fact (traced, not streamed).
      const recordedLevel = fold.state.settings.thinkingLevel;
      if (options.thinkingLevel !== undefined && recordedLevel !== undefined && options.thinkingLevel !== recordedLevel) {
        emit(settingsChanged({ thinking_level: options.thinkingLevel }), false);
      }
      // What changed in the workspace since the last checkpoint (outside the session, or a background process).
      const checkpoints = self.#config.checkpoints;
      if (checkpoints !== undefined) for (const checkpoint of yield* Effect.promise(() => checkpoints.atTaskStart())) emit(checkpoint, false);
      // The carry-over was recorded when it arose: it is sent, not recorded again.
      let input: Outgoing[] = [
        ...carryOverOf(fold.state, new Date().toISOString()).map((message) => ({ message, fresh: false, stream: false })),
        ...newMessages.map((message) => ({ message, fresh: true, stream: false })),
      ];

      const compaction = yield* Compaction;
      const steering = yield* Steering;
      const batches = yield* (yield* ToolRunner).batches(options.approve, emit, () => fold.state);
      const maxTurns = self.#config.maxTurns;
      for (let turnsThisRun = 0; ; turnsThisRun++) {
        input.push(...(yield* self.#drainTurnBoundary(steering, emit)));
        if (yield* isAborted) return self.#stop(emit, "aborted by user", input);
        if (maxTurns >= 0 && turnsThisRun >= maxTurns) return self.#stop(emit, `reached max turns (${maxTurns}); stopping`, input);

        const trigger = compaction.trigger(fold.state);
        if (trigger !== undefined) {
          // What the human wrote is recorded now and survives the compaction; tool outputs and
          // harness notes are consumed by it (they answer calls of the closing context).
          for (const o of input) {
            if (o.fresh && survivesCompaction(o.message)) {
              emit(o.message, o.stream);
              o.fresh = false;
              o.stream = false;
            }
          }
          yield* self.#beforeAutoCompaction(trigger, emit);
          const consumed = input.filter((o) => !o.fresh && !survivesCompaction(o.message)).map((o) => o.message);
          const result = yield* compaction.compact(trigger, consumed, { fold, emit, wait: self.#wait });
          if (!result.ok) return self.#stop(emit, `compaction failed: ${result.error}`, input);
          input = input.filter((o) => o.fresh || survivesCompaction(o.message));
        }
        // A closed context opens with its summary; the request that sends it reopens the
        // context, which clears the pending summary (evolve's rule for request_begin).
        const pendingSummary = fold.state.pendingSummary;
        if (pendingSummary !== undefined) {
          const summary = userText(contextSummaryText(pendingSummary), { sender: "harness" });
          input.unshift({ message: summary, fresh: true, stream: false });
        }

        const result = yield* self.#turn(input, options, emit, batches);
        switch (result.kind) {
          case "stopped":
            // What the stopped turn leaves unsent is in the fold already (its input, a
            // [turn_aborted] note, the outputs of its calls): the next run's carry-over.
            emit(abortEvent(result.reason));
            return;
          case "tools":
            input = result.outputs.map((message) => ({ message, fresh: false, stream: false }));
            break;
          case "done":
            if ((yield* steering.pending).length === 0) return;
            input = [];
            break;
        }
      }
    }).pipe(Effect.scoped);
  }

  /**
   * End the run before sending `input`: input never recorded is recorded now (all of it is
   * then pending in the fold: the next run's carry-over).
   */
  #stop(emit: Emit, reason: string, input: Outgoing[]): void {
    for (const o of input) if (o.fresh) emit(o.message, o.stream);
    emit(abortEvent(reason));
  }

  /**
   * Environment notices and the steering queue, as user texts for the next request. Background
   * work that sent a notice may have changed files: they are checkpointed first.
   */
  #drainTurnBoundary(steering: SteeringShape, emit: Emit): Effect.Effect<Outgoing[]> {
    const notices = this.#config.env.drainNotices?.() ?? [];
    const checkpoints = this.#config.checkpoints;
    const checkpointed =
      notices.length === 0 || checkpoints === undefined
        ? Effect.void
        : Effect.map(Effect.promise(() => checkpoints.atBackgroundDone()), (events) => {
            for (const event of events) emit(event, false);
          });
    return Effect.zipRight(checkpointed, Effect.map(steering.delivery, (delivery) => {
      const out: Outgoing[] = [];
      for (const notice of notices) out.push({ message: userText(notice, { sender: "harness" }), fresh: true, stream: true });
      if (Option.isSome(delivery)) out.push({ message: delivery.value, fresh: true, stream: true });
      return out;
    }));
  }

  #connect(emit: Emit): Effect.Effect<void> {
    const self = this;
    return Effect.gen(function* () {
      if (self.#connected) return;
      self.#connected = true;
      const { env, llm, trace } = self.#config;
      const fold = self.#fold;
      if (env.connect) {
        const controller = new AbortController();
        const messages = env.connect(controller.signal);
        for (;;) {
          const step = yield* Effect.orDie(awaitEdge(messages.next(), controller));
          if (step.done === true) break;
          emit(step.value);
        }
      }
      const tools = env.listTools();
      llm.setTools?.(tools);
      trace.setTools(tools);
      // A closed context continues in a new file, which announces its tools again.
      if (!fold.state.toolsAnnounced || fold.state.contextClosed) emit(toolListReady(tools));
    });
  }

  /** The reconnect wait on the Clock: "Retry now" ends it; an abort cuts it short. */
  readonly #wait = (delay: Duration.Duration): Effect.Effect<void> =>
    Effect.suspend(() => {
      const skip = Deferred.unsafeMake<void>(FiberId.none);
      this.#skipWait = skip;
      return Effect.interruptible(reconnectWait(delay, skip)).pipe(
        Effect.exit,
        Effect.ensuring(Effect.sync(() => (this.#skipWait = undefined))),
        Effect.asVoid,
      );
    });

  /** One turn: a request (with its retries) and the tool calls it made. */
  #turn(input: Outgoing[], options: Omit<RunOptions, "signal">, emit: Emit, batches: ToolBatches): Effect.Effect<TurnResult> {
    const self = this;
    return Effect.gen(function* () {
      let send = input.map((o) => o.message);
      let fresh = input.filter((o) => o.fresh);
      for (let attempt = 1; ; attempt++) {
        emit(requestBegin());
        for (const o of fresh) emit(o.message, o.stream);
        const result = yield* self.#attempt(send, attempt, options, emit, batches);
        if (result.kind !== "retry") return result;
        send = [...send, result.note];
        fresh = [{ message: result.note, fresh: true, stream: false }];
      }
    });
  }

  /** One request of a turn; its tool calls are the attempt's batch, settled or closed before it returns. */
  #attempt(
    send: OmniMessage[],
    attempt: number,
    options: Omit<RunOptions, "signal">,
    emit: Emit,
    batches: ToolBatches,
  ): Effect.Effect<TurnResult | { kind: "retry"; note: OmniMessage }> {
    const self = this;
    return Effect.gen(function* () {
      const batch = yield* batches.next;
      const partials = new PartialAggregator();
      const produced: CompleteModelPayload[] = [];
      const outcome = yield* self.#stream(send, options.thinkingLevel, emit, batch, partials, produced);
      const soFar = () => [...produced, ...partials.flush(outcome.status).flatMap((m) => (isCompleteModel(m) ? [m.payload] : []))];

      if (outcome.status === "completed") {
        emit(requestEnd("completed", attempt > 1 ? { attempt } : undefined));
        self.#recordUsage(emit);
        if (batch.size === 0) return { kind: "done" } as const;
        const settled = yield* batch.settle;
        if (!settled) {
          yield* batch.close;
          return { kind: "stopped", reason: "aborted by user" } as const;
        }
        return { kind: "tools", outputs: batch.outputsInOrder(INTERRUPTED_BY_USER) } as const;
      }

      if (outcome.status === "aborted" || (yield* isAborted)) {
        // The fold keeps the turn's input and notes what it produced ([turn_aborted]).
        emit(requestEnd("aborted", attempt > 1 ? { attempt } : undefined));
        yield* batch.close;
        return { kind: "stopped", reason: "aborted by user" } as const;
      }

      const detail = { error_message: outcome.errorMessage ?? outcome.status, attempt };
      const retry = yield* self.#retry(attempt, outcome);
      if (Option.isNone(retry)) {
        emit(requestEnd(outcome.status, outcome.configuration === true ? { ...detail, configuration: true } : detail));
        yield* batch.close;
        return { kind: "stopped", reason: failureReason(outcome, attempt) } as const;
      }
      // The retry notice every host shows ("retrying in 4 s (attempt 3 of 6): …") is this event.
      emit(requestEnd(outcome.status, { ...detail, retry_in_ms: Duration.toMillis(retry.value), max_attempts: self.#maxRetries + 1 }));
      // Tools of the failed attempt finish first: they are reported, not run again.
      const settled = yield* batch.settle;
      if (settled) yield* self.#wait(retry.value);
      if (!settled || (yield* isAborted)) {
        yield* batch.close;
        return { kind: "stopped", reason: "aborted by user" } as const;
      }
      const note = userText(turnRetriedText(attempt, outcome.errorMessage, soFar(), batch.outputs as Map<string, ToolCallOutputPayload>), { sender: "harness" });
      return { kind: "retry", note } as const;
    });
  }

  /** Stream one request; complete tool calls enter the batch as they arrive. */
  #stream(
    send: OmniMessage[],
    thinkingLevel: ThinkingLevel | undefined,
    emit: Emit,
    batch: ToolBatch,
    partials: PartialAggregator,
    produced: CompleteModelPayload[],
  ): Effect.Effect<LLMOutcome> {
    const self = this;
    return Effect.gen(function* () {
      const controller = new AbortController();
      // The committed context is the fold's (request_begin and this turn's input are in its
      // open window, not in its history): the adapter keeps none of its own.
      const stream = self.#config.llm.streamGenerate({ history: self.#fold.state.history, newMessages: send, signal: controller.signal, thinkingLevel });
      for (;;) {
        const next = yield* Effect.either(awaitEdge(stream.next(), controller));
        if (next._tag === "Left") {
          return { status: controller.signal.aborted ? "aborted" : "failed", errorMessage: `model stream error: ${String(next.left)}` } satisfies LLMOutcome;
        }
        const step = next.right;
        if (step.done === true) return step.value;
        const m = step.value;
        emit(m);
        if (isPartial(m)) partials.push(m);
        else if (isCompleteModel(m)) {
          produced.push(m.payload);
          // A call closed by a broken stream (stop_reason malformed, aborted…) is never run.
          const p = m.payload;
          if (p.type === "tool_call" && (p.stop_reason === undefined || p.stop_reason === "completed")) yield* batch.add(p);
        }
      }
    });
  }

  /** The request's usage, added to the session's (the committed turn itself was counted by its request_end). */
  #recordUsage(emit: Emit): void {
    const request = this.#config.llm.lastUsage ?? zeroTokens();
    emit(tokenUsage(addTokens(this.#fold.state.sessionUsage, request), request));
  }
}

function failureReason(outcome: LLMOutcome, attempt: number): string {
  const what = outcome.errorMessage ?? outcome.status;
  if (outcome.status === "auth") return `auth: ${what}`;
  if (outcome.configuration === true) return `configuration: ${what}`;
  if (outcome.permanent) return `failed: ${what}`;
  return attempt > 1 ? `${outcome.status} after ${attempt} attempts: ${what}` : `${outcome.status}: ${what}`;
}
