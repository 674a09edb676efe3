/**
 * Compaction: replacing a long model context with a summary, without losing the task.
 *
 * Triggers (checked before each request, so a mid-task compaction always waits for the
 * running tools): `context` when the last request's total reaches
 * min(max_context_length, window − 2048) (an unknown window counts as 128000); `turns` when
 * the context's committed requests reach `max_session_turns`; `manual` from
 * `session.compact()`.
 *
 * `summarize` appends our compaction prompt to the same context (same prefix, so the provider
 * cache is reused) without committing it, and reads the summary out of the reply. A reply
 * that calls a tool or gives an empty summary is a failed attempt, retried with a corrective
 * note (up to 3 such attempts); provider failures use the usual reconnect budget. `discard`
 * drops the context. Either way the next context opens with a `[context_summary]` text: the
 * summary plus the mechanically extracted activity digest.
 *
 * Only `token_usage` and the summary text stream to the host inside the span; the compaction
 * request itself is recorded in the trace between `compaction_begin` and `compaction_end`.
 * On success the trace rotates to the next file; on failure the old context is kept.
 *
 * The compaction reads the session's state (the last request's size, the turns, the usage)
 * from the live fold and changes it only by recording: `compaction_end` completed is what
 * closes the context in the fold (history emptied, pending summary kept, turns and last request
 * reset, carry-over consumed), which the next request reads. It rotates the trace itself. When it
 * starts, and how each reply ends it, is the compaction decider's (deciders/compaction.ts): this
 * program sends the requests, waits, and records what the decider returns.
 *
 * An Effect program (`Compaction` service, `CompactionLive`): the request is awaited through
 * `awaitEdge` (abort = the run fiber's interruption, bridged to the request's AbortSignal)
 * and retries follow the reconnect Schedule, waiting on the Clock.
 */
import {
  isCompleteModel,
  requestBegin,
  requestEnd,
  tokenUsage,
  addTokens,
  userText,
  zeroTokens,
  type CompactionMode,
  type CompactionReason,
  type OmniMessage,
  type StopReason,
} from "@penguin/omnimessage";
import { Context, Duration, Effect, Layer, Option } from "effect";
import type { LLMInterface, LLMOutcome } from "../interfaces.js";
import type { SessionState } from "@penguin/trace";
import type { TraceSink } from "./trace-sink.js";
import type { LiveFold } from "./session-fold.js";
import { awaitEdge, isAborted } from "./abort.js";
import { retryDecision } from "./reconnect.js";
import { DISCARDED_NOTE, survivesCompaction } from "@penguin/trace";
import {
  compactionThreshold,
  compactionTrigger,
  decideCompaction,
  DEFAULT_COMPACTION,
  startedReason,
  type CompactionCommand,
  type CompactionSettings,
  type TriggerFacts,
} from "../deciders/compaction.js";

// The rules the reducer shares with this module live in @penguin/trace (one copy of each).
export { DISCARDED_NOTE, survivesCompaction };

// The rules (triggers, the events a compaction starts and ends with) are the compaction
// decider's, deciders/compaction.ts: re-exported here for the hosts that import them from the engine.
export { compactionThreshold, compactionTrigger, DEFAULT_COMPACTION, type CompactionSettings, type TriggerFacts };

export interface CompactionDeps {
  llm: LLMInterface;
  trace: TraceSink;
  /** The session's live fold: the state read, and where the records go through `emit`. */
  fold: LiveFold;
  settings: CompactionSettings;
  /** The reconnect policy: the wait before the next attempt, or none. */
  retry: (attempt: number, outcome: LLMOutcome) => Effect.Effect<Option.Option<Duration.Duration>>;
  emit: (m: OmniMessage, stream?: boolean) => void;
  /** The reconnect wait (Clock; "Retry now" ends it; interruptible). */
  wait: (delay: Duration.Duration) => Effect.Effect<void>;
}

export type CompactionResult = { ok: true } | { ok: false; status: StopReason; error: string };

const CORRECTIVE_NOTE =
  "Your previous reply was not a usable summary (it called a tool or was empty). Do not call any tool. Reply with the summary only, inside [summary]…[/summary].";

/**
 * Compact the context. `consumed` is input that must reach the model before the context
 * closes (tool outputs answering committed calls, carried-over notes): the compaction
 * request carries it, so nothing is orphaned and the summary covers it.
 */
export function compact(reason: CompactionReason, consumed: OmniMessage[], deps: CompactionDeps): Effect.Effect<CompactionResult> {
  return Effect.gen(function* () {
  const { llm, fold, settings, emit } = deps;
  const decide = (command: DistributiveOmit<CompactionCommand, "at">) => decideCompaction(fold.state, { ...command, at: new Date().toISOString() } as CompactionCommand);
  const started = decide({ type: "start", reason, mode: settings.mode });
  for (const m of started) emit(m);
  // Discard mode: the decider completed it at once.
  if (fold.state.compactionSpan === undefined) return ended(deps, started);

  const prompt = userText(settings.prompt, { sender: "harness" });
  let send: OmniMessage[] = [...consumed, prompt];
  let fresh: OmniMessage[] = [prompt];
  let unusable = 0;
  for (let attempt = 1; ; attempt++) {
    emit(requestBegin(), false);
    for (const m of fresh) emit(m, false);
    let calledTool = false;
    const controller = new AbortController();
    // On top of the context being compacted (the fold keeps its history until compaction_end).
    const stream = llm.streamGenerate({ history: fold.state.history, newMessages: send, signal: controller.signal, commit: false });
    let outcome: LLMOutcome;
    for (;;) {
      const next = yield* Effect.either(awaitEdge(stream.next(), controller));
      if (next._tag === "Left") {
        outcome = { status: controller.signal.aborted ? "aborted" : "failed", errorMessage: `model stream error: ${String(next.left)}` };
        break;
      }
      const step = next.right;
      if (step.done === true) {
        outcome = step.value;
        break;
      }
      const m = step.value;
      if (m.type === "model_msg" && m.payload.type === "partial_text") emit(m);
      else if (isCompleteModel(m)) {
        // The reply's text is recorded: the fold's span reads the summary out of it.
        if (m.payload.type === "text" && m.payload.role === "assistant") emit(m);
        else {
          if (m.payload.type === "tool_call") calledTool = true;
          emit(m, false);
        }
      }
    }

    if (outcome.status === "completed") {
      emit(requestEnd("completed", attempt > 1 ? { attempt } : undefined), false);
      const usage = llm.lastUsage ?? zeroTokens();
      emit(tokenUsage(addTokens(fold.state.sessionUsage, usage), usage));
      const canRetry = Option.isSome(yield* deps.retry(attempt, { status: "failed" }));
      const end = decide({ type: "summary_reply", calledTool, attempt, unusableBefore: unusable, canRetry });
      if (end.length > 0) {
        for (const m of end) emit(m);
        return ended(deps, end);
      }
      unusable += 1;
      const note = userText(CORRECTIVE_NOTE, { sender: "harness" });
      send = [...send, note];
      fresh = [note];
      continue;
    }
    const error = outcome.errorMessage ?? outcome.status;
    if (outcome.status === "aborted" || (yield* isAborted)) {
      emit(requestEnd("aborted", { attempt }), false);
      return giveUp(deps, decide, "aborted", ABORTED, attempt);
    }
    const retry = yield* deps.retry(attempt, outcome);
    if (Option.isNone(retry)) {
      emit(requestEnd(outcome.status, { error_message: error, attempt }), false);
      return giveUp(deps, decide, "failed", error, attempt);
    }
    emit(requestEnd(outcome.status, { error_message: error, attempt, retry_in_ms: Duration.toMillis(retry.value) }), false);
    yield* deps.wait(retry.value);
    if (yield* isAborted) return giveUp(deps, decide, "aborted", ABORTED, attempt);
    fresh = [];
  }
  });
}

const ABORTED = "compaction aborted by user";

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

function giveUp(deps: CompactionDeps, decide: (c: DistributiveOmit<CompactionCommand, "at">) => readonly OmniMessage[], status: StopReason, error: string, attempt: number): CompactionResult {
  for (const m of decide({ type: "give_up", status, error, attempt })) deps.emit(m);
  return { ok: false, status, error };
}

/** What the recorded `compaction_end` among `events` says: completed (the context closes), or how it failed. */
function ended(deps: CompactionDeps, events: readonly OmniMessage[]): CompactionResult {
  const end = events.findLast((m) => m.type === "event_msg" && m.payload.type === "compaction_end");
  const payload = end?.type === "event_msg" && end.payload.type === "compaction_end" ? end.payload : undefined;
  if (payload?.status === "completed") {
    closeContext(deps);
    return { ok: true };
  }
  return { ok: false, status: payload?.status ?? "failed", error: payload?.error_message ?? "the compaction did not end" };
}

/**
 * The trace on its next file. The recorded `compaction_end` already closed the context in the
 * fold (history emptied, its summary waiting there for the next input).
 */
function closeContext(deps: CompactionDeps): void {
  deps.trace.rotate();
}

/** What one run hands a compaction: the session's fold, where messages go, the reconnect wait. */
export type CompactionRun = Pick<CompactionDeps, "fold" | "emit" | "wait">;

export interface CompactionShape {
  readonly settings: CompactionSettings;
  /** The automatic trigger that applies now (before a request), if any. */
  trigger(state: TriggerFacts): CompactionReason | undefined;
  compact(reason: CompactionReason, consumed: OmniMessage[], run: CompactionRun): Effect.Effect<CompactionResult>;
}

export class Compaction extends Context.Tag("penguin/engine/Compaction")<Compaction, CompactionShape>() {}

export interface CompactionConfig {
  llm: LLMInterface;
  trace: TraceSink;
  settings: CompactionSettings;
  retry: CompactionDeps["retry"];
}

export function makeCompaction(config: CompactionConfig): CompactionShape {
  return {
    settings: config.settings,
    // The check's decision names the trigger; the events themselves are appended by `compact`,
    // after the engine has recorded the input that survives the compaction.
    trigger: (state) => startedReason(decideCompaction(state, { type: "check", settings: config.settings, window: config.llm.contextWindow, at: new Date().toISOString() })),
    compact: (reason, consumed, run) => compact(reason, consumed, { ...config, ...run }),
  };
}

/** The Compaction service of one session's model context. */
export const CompactionLive = (config: CompactionConfig): Layer.Layer<Compaction> => Layer.succeed(Compaction, makeCompaction(config));
