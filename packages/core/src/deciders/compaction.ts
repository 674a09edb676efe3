/**
 * The compaction decider: when a compaction starts, and how it ends, as events.
 *
 * - `check` (before a request): the automatic trigger, `context` when the last request's total
 *   reaches min(max_context_length, window − 2048) (an unknown window counts as 128000), else
 *   `turns` when the context's committed requests reach `max_session_turns`; then what `start`
 *   appends. No trigger: nothing.
 * - `start` (a trigger fired, or `manual`): `compaction_begin` with the context's size and
 *   turns; in `discard` mode the compaction is complete at once (`compaction_end`), since
 *   there is nothing to ask the model.
 * - `summary_reply` (the compaction request completed): the summary is read from the span's
 *   reply as the fold holds it; a usable one ends the compaction `completed`; an unusable one
 *   (a tool call, an empty summary) is nothing while another attempt may follow, and ends it
 *   `failed` once the content attempts are spent or the retry budget is.
 * - `give_up` (the request failed for good or was aborted): `compaction_end` with that status.
 * Outside a span, `summary_reply` and `give_up` are nothing.
 *
 * A completed `compaction_end` is what closes the context in the fold; the service then
 * starts the trace's next file.
 */
import { compactionBegin, compactionEnd, type CompactionMode, type CompactionReason, type OmniMessage, type StopReason } from "@penguin/omnimessage";
import { extractSummary, type SessionState } from "@penguin/trace";
import type { Decider } from "./decider.js";

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
/** Unusable summary replies before the compaction fails. */
export const MAX_CONTENT_ATTEMPTS = 3;

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

export type CompactionCommand =
  | { readonly type: "check"; readonly settings: CompactionSettings; readonly window: number | "unknown"; readonly at: string }
  | { readonly type: "start"; readonly reason: CompactionReason; readonly mode: CompactionMode; readonly at: string }
  | {
      readonly type: "summary_reply";
      /** The reply called a tool (it is no summary then, whatever its text). */
      readonly calledTool: boolean;
      /** The request attempt that replied (1 for the first). */
      readonly attempt: number;
      /** Unusable replies before this one. */
      readonly unusableBefore: number;
      /** The retry budget allows another attempt. */
      readonly canRetry: boolean;
      readonly at: string;
    }
  | { readonly type: "give_up"; readonly status: StopReason; readonly error: string; readonly attempt: number; readonly at: string };

export type CompactionFacts = TriggerFacts & { readonly compactionSpan?: SessionState["compactionSpan"] };

export const decideCompaction: Decider<CompactionCommand, CompactionFacts> = (state, command) => {
  const at = command.at;
  switch (command.type) {
    case "check": {
      const reason = compactionTrigger(command.settings, state, command.window);
      return reason === undefined ? [] : decideCompaction(state, { type: "start", reason, mode: command.settings.mode, at });
    }
    case "start": {
      const { reason, mode } = command;
      const begin = compactionBegin({ reason, mode, context: state.lastRequest?.total ?? 0, turns: state.turns }, { at });
      return mode === "discard" ? [begin, compactionEnd({ reason, mode, status: "completed" }, { at })] : [begin];
    }
    case "summary_reply": {
      const span = state.compactionSpan;
      if (span === undefined) return [];
      const { attempt } = command;
      const summary = command.calledTool ? "" : extractSummary(span.reply);
      if (summary !== "") return [compactionEnd({ reason: span.reason, mode: span.mode, status: "completed", ...(attempt > 1 ? { attempt } : {}) }, { at })];
      if (command.unusableBefore + 1 < MAX_CONTENT_ATTEMPTS && command.canRetry) return [];
      return [ending(span.reason, span.mode, "failed", unusableReason(command.calledTool), attempt, at)];
    }
    case "give_up": {
      const span = state.compactionSpan;
      return span === undefined ? [] : [ending(span.reason, span.mode, command.status, command.error, command.attempt, at)];
    }
  }
};

/** Why a summary reply was unusable, as the failed compaction reports it. */
export function unusableReason(calledTool: boolean): string {
  return calledTool ? "the summary reply called a tool" : "the summary reply was empty";
}

function ending(reason: CompactionReason, mode: CompactionMode, status: StopReason, error: string, attempt: number, at: string): OmniMessage {
  return compactionEnd({ reason, mode, status, error_message: error, attempt }, { at });
}

/** The reason of the compaction a decision starts, if it starts one. */
export function startedReason(events: readonly OmniMessage[]): CompactionReason | undefined {
  for (const m of events) if (m.type === "event_msg" && m.payload.type === "compaction_begin") return m.payload.reason;
  return undefined;
}
