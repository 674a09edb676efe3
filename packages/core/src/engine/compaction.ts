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
 * reset, carry-over consumed), which the next request reads. It rotates the trace itself.
 *
 * An Effect program (`Compaction` service, `CompactionLive`): the request is awaited through
 * `awaitEdge` (abort = the run fiber's interruption, bridged to the request's AbortSignal)
 * and retries follow the reconnect Schedule, waiting on the Clock.
 */
import {
  compactionBegin,
  compactionEnd,
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
import type { TraceSink } from "./context-engine.js";
import type { LiveFold } from "./session-fold.js";
import { awaitEdge, isAborted } from "./abort.js";
import { retryDecision } from "./reconnect.js";
import { DISCARDED_NOTE, extractSummary, survivesCompaction } from "@penguin/trace";

// The rules the reducer shares with this module live in @penguin/trace (one copy of each).
export { DISCARDED_NOTE, survivesCompaction };

export interface CompactionSettings {
  maxContextLength: number;
  /** -1 disables the turns trigger. */
  maxSessionTurns: number;
  mode: CompactionMode;
  prompt: string;
}

export const DEFAULT_COMPACTION: CompactionSettings = {
  maxContextLength: 256000,
  maxSessionTurns: -1,
  mode: "summarize",
  prompt: "Summarize the conversation so far for a fresh context. Answer inside [summary]…[/summary].",
};

const UNKNOWN_WINDOW = 128000;
const WINDOW_MARGIN = 2048;
const MAX_CONTENT_ATTEMPTS = 3;

export function compactionThreshold(settings: CompactionSettings, window: number | "unknown"): number {
  const w = window === "unknown" ? UNKNOWN_WINDOW : window;
  return Math.min(settings.maxContextLength, w - WINDOW_MARGIN);
}

/** The facts the automatic triggers look at (a SessionState, or the engine's EngineState view). */
export type TriggerFacts = Pick<SessionState, "lastRequest" | "turns">;

/** The automatic trigger that applies now, if any. */
export function compactionTrigger(settings: CompactionSettings, state: TriggerFacts, window: number | "unknown"): CompactionReason | undefined {
  if (state.lastRequest !== undefined && state.lastRequest.total >= compactionThreshold(settings, window)) return "context";
  if (settings.maxSessionTurns >= 1 && state.turns >= settings.maxSessionTurns) return "turns";
  return undefined;
}

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
  const mode = settings.mode;
  emit(compactionBegin({ reason, mode, context: fold.state.lastRequest?.total ?? 0, turns: fold.state.turns }));
  if (mode === "discard") {
    emit(compactionEnd({ reason, mode, status: "completed" }));
    closeContext(deps);
    return { ok: true };
  }

  const prompt = userText(settings.prompt, { sender: "harness" });
  let send: OmniMessage[] = [...consumed, prompt];
  let fresh: OmniMessage[] = [prompt];
  let contentAttempts = 0;
  let lastError = "";
  for (let attempt = 1; ; attempt++) {
    emit(requestBegin(), false);
    for (const m of fresh) emit(m, false);
    let reply = "";
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
        if (m.payload.type === "text" && m.payload.role === "assistant") {
          reply += m.payload.text;
          emit(m);
        } else {
          if (m.payload.type === "tool_call") calledTool = true;
          emit(m, false);
        }
      }
    }

    if (outcome.status === "completed") {
      emit(requestEnd("completed", attempt > 1 ? { attempt } : undefined), false);
      const usage = llm.lastUsage ?? zeroTokens();
      emit(tokenUsage(addTokens(fold.state.sessionUsage, usage), usage));
      const summary = calledTool ? "" : extractSummary(reply);
      if (summary !== "") {
        emit(compactionEnd({ reason, mode, status: "completed", ...(attempt > 1 ? { attempt } : {}) }));
        closeContext(deps);
        return { ok: true };
      }
      contentAttempts += 1;
      lastError = calledTool ? "the summary reply called a tool" : "the summary reply was empty";
      const retry = yield* deps.retry(attempt, { status: "failed" });
      if (contentAttempts >= MAX_CONTENT_ATTEMPTS || Option.isNone(retry)) return fail(deps, reason, "failed", lastError, attempt);
      const note = userText(CORRECTIVE_NOTE, { sender: "harness" });
      send = [...send, note];
      fresh = [note];
      continue;
    }
    lastError = outcome.errorMessage ?? outcome.status;
    if (outcome.status === "aborted" || (yield* isAborted)) {
      emit(requestEnd("aborted", { attempt }), false);
      return fail(deps, reason, "aborted", "compaction aborted by user", attempt);
    }
    const retry = yield* deps.retry(attempt, outcome);
    if (Option.isNone(retry)) {
      emit(requestEnd(outcome.status, { error_message: lastError, attempt }), false);
      return fail(deps, reason, "failed", lastError, attempt);
    }
    emit(requestEnd(outcome.status, { error_message: lastError, attempt, retry_in_ms: Duration.toMillis(retry.value) }), false);
    yield* deps.wait(retry.value);
    if (yield* isAborted) return fail(deps, reason, "aborted", "compaction aborted by user", attempt);
    fresh = [];
  }
  });
}

function fail(deps: CompactionDeps, reason: CompactionReason, status: StopReason, error: string, attempt: number): CompactionResult {
  deps.emit(compactionEnd({ reason, mode: deps.settings.mode, status, error_message: error, attempt }));
  return { ok: false, status, error };
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
    trigger: (state) => compactionTrigger(config.settings, state, config.llm.contextWindow),
    compact: (reason, consumed, run) => compact(reason, consumed, { ...config, ...run }),
  };
}

/** The Compaction service of one session's model context. */
export const CompactionLive = (config: CompactionConfig): Layer.Layer<Compaction> => Layer.succeed(Compaction, makeCompaction(config));
