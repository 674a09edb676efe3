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
import type { LLMInterface } from "../interfaces.js";
import type { EngineState, TraceSink } from "./context-engine.js";
import { isRetryable, retryWaitMs } from "./reconnect.js";
import { DISCARDED_NOTE, extractSummary, summaryWithDigest, survivesCompaction } from "@penguin/trace";

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

/** The automatic trigger that applies now, if any. */
export function compactionTrigger(settings: CompactionSettings, state: EngineState, window: number | "unknown"): CompactionReason | undefined {
  if (state.lastRequest !== undefined && state.lastRequest.total >= compactionThreshold(settings, window)) return "context";
  if (settings.maxSessionTurns >= 1 && state.turns >= settings.maxSessionTurns) return "turns";
  return undefined;
}


export interface CompactionDeps {
  llm: LLMInterface;
  trace: TraceSink;
  state: EngineState;
  settings: CompactionSettings;
  signal: AbortSignal;
  maxRetries: number;
  emit: (m: OmniMessage, stream?: boolean) => void;
  wait: (ms: number, signal: AbortSignal) => Promise<void>;
}

export type CompactionResult = { ok: true } | { ok: false; status: StopReason; error: string };

const CORRECTIVE_NOTE =
  "Your previous reply was not a usable summary (it called a tool or was empty). Do not call any tool. Reply with the summary only, inside [summary]…[/summary].";

/**
 * Compact the context. `consumed` is input that must reach the model before the context
 * closes (tool outputs answering committed calls, carried-over notes): the compaction
 * request carries it, so nothing is orphaned and the summary covers it.
 */
export async function compact(reason: CompactionReason, consumed: OmniMessage[], deps: CompactionDeps): Promise<CompactionResult> {
  const { llm, state, settings, emit } = deps;
  const mode = settings.mode;
  emit(compactionBegin({ reason, mode, context: state.lastRequest?.total ?? 0, turns: state.turns }));
  const history = [...llm.history(), ...consumed];

  if (mode === "discard") {
    emit(compactionEnd({ reason, mode, status: "completed" }));
    closeContext(deps, summaryWithDigest(DISCARDED_NOTE, history));
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
    const stream = llm.streamGenerate({ newMessages: send, signal: deps.signal, commit: false });
    let outcome;
    for (;;) {
      const step = await stream.next();
      if (step.done) {
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
      state.sessionUsage = addTokens(state.sessionUsage, usage);
      emit(tokenUsage(state.sessionUsage, usage));
      const summary = calledTool ? "" : extractSummary(reply);
      if (summary !== "") {
        emit(compactionEnd({ reason, mode, status: "completed", ...(attempt > 1 ? { attempt } : {}) }));
        closeContext(deps, summaryWithDigest(summary, history));
        return { ok: true };
      }
      contentAttempts += 1;
      lastError = calledTool ? "the summary reply called a tool" : "the summary reply was empty";
      if (contentAttempts >= MAX_CONTENT_ATTEMPTS || attempt > deps.maxRetries) return fail(deps, reason, "failed", lastError, attempt);
      const note = userText(CORRECTIVE_NOTE, { sender: "harness" });
      send = [...send, note];
      fresh = [note];
      continue;
    }
    lastError = outcome.errorMessage ?? outcome.status;
    if (outcome.status === "aborted" || deps.signal.aborted) {
      emit(requestEnd("aborted", { attempt }), false);
      return fail(deps, reason, "aborted", "compaction aborted by user", attempt);
    }
    if (!isRetryable(outcome) || attempt > deps.maxRetries) {
      emit(requestEnd(outcome.status, { error_message: lastError, attempt }), false);
      return fail(deps, reason, "failed", lastError, attempt);
    }
    const wait = retryWaitMs(attempt, outcome);
    emit(requestEnd(outcome.status, { error_message: lastError, attempt, retry_in_ms: wait }), false);
    await deps.wait(wait, deps.signal);
    if (deps.signal.aborted) return fail(deps, reason, "aborted", "compaction aborted by user", attempt);
    fresh = [];
  }
}

function fail(deps: CompactionDeps, reason: CompactionReason, status: StopReason, error: string, attempt: number): CompactionResult {
  deps.emit(compactionEnd({ reason, mode: deps.settings.mode, status, error_message: error, attempt }));
  return { ok: false, status, error };
}

/** A fresh context: empty history, the summary waiting, the trace on its next file. */
function closeContext(deps: CompactionDeps, summary: string): void {
  deps.llm.setHistory([]);
  deps.trace.rotate();
  deps.state.pendingSummary = summary;
  deps.state.turns = 0;
  deps.state.lastRequest = undefined;
  deps.state.carryOver = [];
}
