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
 * the trace writer filters out. Carry-over is neither: in-memory input for the next run.
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
 * Trace resume folds the trace with `evolve` (@penguin/trace), whose rules mirror these.
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
  steeringQueued,
  steeringRecalled,
  tokenUsage,
  toolListReady,
  userText,
  wrapMarker,
  zeroTokens,
  type CompactionReason,
  type CompleteModelPayload,
  type OmniMessage,
  type TokenCounts,
  type ToolDefinition,
} from "@penguin/omnimessage";
import type { ThinkingLevel } from "@penguin/models";
import type { ApproveFn, EnvironmentInterface, LLMInterface, LLMOutcome, PolicyCheck } from "../interfaces.js";
import { Channel } from "./channel.js";
import { compact, compactionTrigger, DEFAULT_COMPACTION, survivesCompaction, type CompactionSettings } from "./compaction.js";
import { Clock, Deferred, Duration, Effect, Fiber, FiberId } from "effect";
import { clockFromSleep, isRetryable, MAX_RETRIES, reconnectWait, retryWaitMs, type SleepFn } from "./reconnect.js";
import { ToolBatch } from "./tool-batch.js";
import { contextSummaryText, INTERRUPTED_BY_USER, turnAbortedText, turnRetriedText } from "@penguin/trace";

/** Where the engine records messages. The trace writer is the production sink. */
export interface TraceSink {
  append(m: OmniMessage): void;
  setTools(tools: ToolDefinition[]): void;
  /** Continue in a new file (after a completed compaction). */
  rotate(): void;
}

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
}

/** What survives between runs; restored from the trace on resume. */
export interface EngineState {
  carryOver: OmniMessage[];
  /** A `[context_summary]` body to place before the next input (a closed context). */
  pendingSummary: string | undefined;
  /** Committed requests in the current context. */
  turns: number;
  sessionUsage: TokenCounts;
  lastRequest: TokenCounts | undefined;
  /** The tool list was already announced in the current trace file. */
  toolsAnnounced: boolean;
  /**
   * The session's thinking level as the trace knows it: the last `settings_changed`, else the
   * level the session was opened with (a baseline, not recorded). A task with another level
   * records the change.
   */
  thinkingLevel?: string;
}

export function initialEngineState(): EngineState {
  return { carryOver: [], pendingSummary: undefined, turns: 0, sessionUsage: zeroTokens(), lastRequest: undefined, toolsAnnounced: false };
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

type Emit = (m: OmniMessage, stream?: boolean) => void;

type TurnResult =
  | { kind: "done" }
  | { kind: "tools"; outputs: OmniMessage[] }
  | { kind: "stopped"; reason: string; carryOver: OmniMessage[] };

export class ContextEngine {
  readonly #config: EngineConfig;
  /** The engine's time: the default Clock, or one whose sleeps are the host's SleepFn. */
  readonly #clock: Clock.Clock | undefined;
  readonly #maxRetries: number;
  readonly #compaction: CompactionSettings;
  readonly state: EngineState;
  #connected = false;
  #running = false;
  #steering: { id: string; text: string }[] = [];
  /** False once the run has recorded its last message: steering then has no task to reach. */
  #acceptingSteering = false;
  #steeringSeq = 0;
  #skipWait: (() => void) | undefined;

  constructor(config: EngineConfig, state: EngineState = initialEngineState()) {
    this.#config = config;
    this.#clock = config.sleep === undefined ? undefined : clockFromSleep(config.sleep);
    this.#maxRetries = config.maxRetries ?? MAX_RETRIES;
    this.#compaction = config.compaction ?? DEFAULT_COMPACTION;
    this.state = state;
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
    if (!this.#running || !this.#acceptingSteering) return undefined;
    const id = `steer-${++this.#steeringSeq}`;
    this.#steering.push({ id, text });
    this.#config.trace.append(steeringQueued(id, text));
    return id;
  }

  /** Take back queued steering before it is delivered. Returns its text, or undefined if already sent or unknown. */
  recallSteering(id: string): string | undefined {
    const i = this.#steering.findIndex((s) => s.id === id);
    if (i < 0) return undefined;
    const [item] = this.#steering.splice(i, 1);
    this.#config.trace.append(steeringRecalled(id));
    return item?.text;
  }

  /** Steering queued and not yet delivered, oldest first. */
  pendingSteering(): { id: string; text: string }[] {
    return this.#steering.map((s) => ({ ...s }));
  }

  /** End a reconnect wait early ("Retry now"). False when no wait is in progress. */
  skipReconnectWait(): boolean {
    const skip = this.#skipWait;
    if (skip === undefined) return false;
    skip();
    return true;
  }

  compactability(): Compactability {
    if (this.state.pendingSummary !== undefined && this.#config.llm.history().length === 0) return "just_compacted";
    if (this.#config.llm.history().length === 0 && this.state.carryOver.length === 0) return "empty";
    return "ok";
  }

  /** Run one task. The generator yields every message of the run and ends after the last. */
  run(newMessages: OmniMessage[], options: RunOptions = {}): AsyncGenerator<OmniMessage, void> {
    return this.#session(options, (signal, emit) => this.#drive(newMessages, options, signal, emit));
  }

  /**
   * Compact now (`manual`). Yields the compaction's messages. Steering that arrives meanwhile
   * is kept for the next run. Throws (before starting) when there is nothing to compact.
   */
  compact(options: { signal?: AbortSignal } = {}): AsyncGenerator<OmniMessage, void> {
    const why = this.compactability();
    if (why !== "ok") throw new Error(why === "empty" ? "nothing to compact: the context is empty" : "the context was just compacted");
    return this.#session(options, async (signal, emit) => {
      await this.#connect(signal, emit);
      const consumed = this.state.carryOver;
      const result = await this.#runCompaction("manual", consumed, signal, emit);
      if (result.ok) this.state.carryOver = [];
      this.#keepSteering();
    });
  }

  /** Runs `body` as the session's one active run: a channel to the host, abort wiring, cleanup. */
  async *#session(options: { signal?: AbortSignal }, body: (signal: AbortSignal, emit: Emit) => Promise<void>): AsyncGenerator<OmniMessage, void> {
    if (this.#running) {
      throw new Error("a task is already running on this session: wait for it to end, steer it, or abort it first");
    }
    this.#running = true;
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    if (options.signal?.aborted) controller.abort();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const out = new Channel<OmniMessage>();
    const emit: Emit = (m, stream = true) => {
      // An abort is the run's last message: steering not delivered by then is dropped with it
      // (as the trace's fold reads it), not when the host has finished reading the stream.
      if (m.type === "event_msg" && m.payload.type === "abort") {
        this.#steering = [];
        this.#acceptingSteering = false;
      }
      this.#config.trace.append(m);
      if (stream) out.push(m);
    };
    let finished = false;
    this.#acceptingSteering = true;
    // When the body ends, everything is recorded (the host may still be reading buffered
    // messages): steering from then on would be accepted and never delivered, so it is refused.
    const driver = body(controller.signal, emit).then(
      () => {
        this.#acceptingSteering = false;
        out.close();
      },
      (error: unknown) => {
        this.#acceptingSteering = false;
        out.fail(error);
      },
    );
    try {
      for await (const m of out) yield m;
      finished = true;
    } finally {
      if (!finished) controller.abort();
      await driver;
      options.signal?.removeEventListener("abort", onAbort);
      this.#steering = [];
      this.#running = false;
    }
  }

  async #drive(newMessages: OmniMessage[], options: RunOptions, signal: AbortSignal, emit: Emit): Promise<void> {
    await this.#connect(signal, emit);
    const state = this.state;
    // The task's thinking level is decided here: a change is a session fact (traced, not streamed).
    if (options.thinkingLevel !== undefined && state.thinkingLevel !== undefined && options.thinkingLevel !== state.thinkingLevel) {
      state.thinkingLevel = options.thinkingLevel;
      emit(settingsChanged({ thinking_level: options.thinkingLevel }), false);
    }
    let input: Outgoing[] = [
      ...state.carryOver.map((message) => ({ message, fresh: false, stream: false })),
      ...newMessages.map((message) => ({ message, fresh: true, stream: false })),
    ];
    state.carryOver = [];

    const maxTurns = this.#config.maxTurns;
    for (let turnsThisRun = 0; ; turnsThisRun++) {
      input.push(...this.#drainTurnBoundary());
      if (signal.aborted) return this.#stop(emit, "aborted by user", input);
      if (maxTurns >= 0 && turnsThisRun >= maxTurns) return this.#stop(emit, `reached max turns (${maxTurns}); stopping`, input);

      const trigger = compactionTrigger(this.#compaction, state, this.#config.llm.contextWindow);
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
        const consumed = input.filter((o) => !o.fresh && !survivesCompaction(o.message)).map((o) => o.message);
        const result = await this.#runCompaction(trigger, consumed, signal, emit);
        if (!result.ok) return this.#stop(emit, `compaction failed: ${result.error}`, input);
        input = input.filter((o) => o.fresh || survivesCompaction(o.message));
      }
      if (state.pendingSummary !== undefined) {
        const summary = userText(contextSummaryText(state.pendingSummary), { sender: "harness" });
        input.unshift({ message: summary, fresh: true, stream: false });
        state.pendingSummary = undefined;
      }

      const result = await this.#turn(input, options, signal, emit);
      switch (result.kind) {
        case "stopped":
          state.carryOver = result.carryOver;
          emit(abortEvent(result.reason));
          return;
        case "tools":
          input = result.outputs.map((message) => ({ message, fresh: false, stream: false }));
          break;
        case "done":
          if (this.#steering.length === 0) return;
          input = [];
          break;
      }
    }
  }

  /** End the run before sending `input`: input never recorded is recorded now, then carried over. */
  #stop(emit: Emit, reason: string, input: Outgoing[]): void {
    for (const o of input) if (o.fresh) emit(o.message, o.stream);
    this.state.carryOver = input.map((o) => o.message);
    emit(abortEvent(reason));
  }

  /** Steering left over when a compaction-only run ends goes to the next run. */
  #keepSteering(): void {
    if (this.#steering.length === 0) return;
    this.state.carryOver.push(userText(wrapMarker("user_steering", this.#steering.map((s) => s.text).join("\n\n"))));
    this.#steering = [];
  }

  /** Steering and environment notices, as user texts for the next request. */
  #drainTurnBoundary(): Outgoing[] {
    const out: Outgoing[] = [];
    for (const notice of this.#config.env.drainNotices?.() ?? []) {
      out.push({ message: userText(notice, { sender: "harness" }), fresh: true, stream: true });
    }
    if (this.#steering.length > 0) {
      const text = wrapMarker("user_steering", this.#steering.map((s) => s.text).join("\n\n"));
      this.#steering = [];
      out.push({ message: userText(text), fresh: true, stream: true });
    }
    return out;
  }

  async #connect(signal: AbortSignal, emit: Emit): Promise<void> {
    if (this.#connected) return;
    this.#connected = true;
    const { env, llm, trace } = this.#config;
    if (env.connect) {
      for await (const m of env.connect(signal)) emit(m);
    }
    const tools = env.listTools();
    llm.setTools?.(tools);
    trace.setTools(tools);
    if (!this.state.toolsAnnounced) {
      this.state.toolsAnnounced = true;
      emit(toolListReady(tools));
    }
  }

  #runCompaction(reason: CompactionReason, consumed: OmniMessage[], signal: AbortSignal, emit: Emit) {
    return compact(reason, consumed, {
      llm: this.#config.llm,
      trace: this.#config.trace,
      state: this.state,
      settings: this.#compaction,
      signal,
      maxRetries: this.#maxRetries,
      emit,
      wait: (ms, s) => this.#wait(ms, s),
    });
  }

  /** One turn: a request (with its retries) and the tool calls it made. */
  async #turn(input: Outgoing[], options: RunOptions, signal: AbortSignal, emit: Emit): Promise<TurnResult> {
    let send = input.map((o) => o.message);
    let fresh = input.filter((o) => o.fresh);
    for (let attempt = 1; ; attempt++) {
      emit(requestBegin());
      for (const o of fresh) emit(o.message, o.stream);
      const result = await this.#attempt(send, attempt, options, signal, emit);
      if (result.kind !== "retry") return result;
      send = [...send, result.note];
      fresh = [{ message: result.note, fresh: true, stream: false }];
    }
  }

  /** One request of a turn. Tools get their own signal: a terminal failure stops them without aborting the run. */
  async #attempt(
    send: OmniMessage[],
    attempt: number,
    options: RunOptions,
    signal: AbortSignal,
    emit: Emit,
  ): Promise<TurnResult | { kind: "retry"; note: OmniMessage }> {
    const tools = new AbortController();
    const onAbort = () => tools.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      const batch = new ToolBatch({ env: this.#config.env, approve: options.approve, policy: this.#config.policy, signal: tools.signal, emit });
      const partials = new PartialAggregator();
      const produced: CompleteModelPayload[] = [];
      const outcome = await this.#stream(send, options.thinkingLevel, signal, emit, batch, partials, produced);
      const soFar = () => [...produced, ...partials.flush(outcome.status).flatMap((m) => (isCompleteModel(m) ? [m.payload] : []))];

      if (outcome.status === "completed") {
        emit(requestEnd("completed", attempt > 1 ? { attempt } : undefined));
        this.#recordUsage(emit);
        if (batch.size === 0) return { kind: "done" };
        const settled = await batch.settle();
        if (!settled) {
          await batch.close();
          return { kind: "stopped", reason: "aborted by user", carryOver: batch.outputsInOrder(INTERRUPTED_BY_USER) };
        }
        return { kind: "tools", outputs: batch.outputsInOrder(INTERRUPTED_BY_USER) };
      }

      if (outcome.status === "aborted" || signal.aborted) {
        emit(requestEnd("aborted", attempt > 1 ? { attempt } : undefined));
        await batch.close();
        const note = userText(turnAbortedText("user", soFar(), batch.outputs), { sender: "harness" });
        return { kind: "stopped", reason: "aborted by user", carryOver: [...send, note] };
      }

      const detail = { error_message: outcome.errorMessage ?? outcome.status, attempt };
      if (!isRetryable(outcome) || attempt > this.#maxRetries) {
        emit(requestEnd(outcome.status, outcome.configuration === true ? { ...detail, configuration: true } : detail));
        tools.abort();
        await batch.close();
        return { kind: "stopped", reason: failureReason(outcome, attempt), carryOver: send };
      }
      const wait = retryWaitMs(attempt, outcome);
      // The retry notice every host shows ("retrying in 4 s (attempt 3 of 6): …") is this event.
      emit(requestEnd(outcome.status, { ...detail, retry_in_ms: wait, max_attempts: this.#maxRetries + 1 }));
      // Tools of the failed attempt finish first: they are reported, not run again.
      const settled = await batch.settle();
      if (settled) await this.#wait(wait, signal);
      if (!settled || signal.aborted) {
        await batch.close();
        return { kind: "stopped", reason: "aborted by user", carryOver: send };
      }
      const note = userText(turnRetriedText(attempt, outcome.errorMessage, soFar(), batch.outputs), { sender: "harness" });
      return { kind: "retry", note };
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  /** Stream one request; complete tool calls enter the batch as they arrive. */
  async #stream(
    send: OmniMessage[],
    thinkingLevel: ThinkingLevel | undefined,
    signal: AbortSignal,
    emit: Emit,
    batch: ToolBatch,
    partials: PartialAggregator,
    produced: CompleteModelPayload[],
  ): Promise<LLMOutcome> {
    const stream = this.#config.llm.streamGenerate({ newMessages: send, signal, thinkingLevel });
    try {
      for (;;) {
        const step = await stream.next();
        if (step.done) return step.value;
        const m = step.value;
        emit(m);
        if (isPartial(m)) partials.push(m);
        else if (isCompleteModel(m)) {
          produced.push(m.payload);
          // A call closed by a broken stream (stop_reason malformed, aborted…) is never run.
          const p = m.payload;
          if (p.type === "tool_call" && (p.stop_reason === undefined || p.stop_reason === "completed")) batch.add(p);
        }
      }
    } catch (error) {
      return { status: signal.aborted ? "aborted" : "failed", errorMessage: `model stream error: ${String(error)}` };
    }
  }

  #recordUsage(emit: Emit): void {
    const request = this.#config.llm.lastUsage ?? zeroTokens();
    this.state.turns += 1;
    this.state.sessionUsage = addTokens(this.state.sessionUsage, request);
    this.state.lastRequest = request;
    emit(tokenUsage(this.state.sessionUsage, request));
  }

  /** The reconnect wait on the engine's Clock; "Retry now" ends it, abort interrupts it. */
  async #wait(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    const skip = Deferred.unsafeMake<void>(FiberId.none);
    const wait = reconnectWait(Duration.millis(ms), skip);
    const fiber = Effect.runFork(this.#clock === undefined ? wait : Effect.withClock(wait, this.#clock));
    const onAbort = () => fiber.unsafeInterruptAsFork(FiberId.none);
    signal.addEventListener("abort", onAbort, { once: true });
    this.#skipWait = () => Deferred.unsafeDone(skip, Effect.void);
    try {
      await Effect.runPromise(Fiber.await(fiber));
    } finally {
      this.#skipWait = undefined;
      signal.removeEventListener("abort", onAbort);
    }
  }
}

function failureReason(outcome: LLMOutcome, attempt: number): string {
  const what = outcome.errorMessage ?? outcome.status;
  if (outcome.status === "auth") return `auth: ${what}`;
  if (outcome.configuration === true) return `configuration: ${what}`;
  if (outcome.permanent) return `failed: ${what}`;
  return attempt > 1 ? `${outcome.status} after ${attempt} attempts: ${what}` : `${outcome.status}: ${what}`;
}
