/**
 * Replay: rebuild a session's engine state from one trace file. Pure, no I/O, so it can be
 * fuzzed and reused by anything that reads traces (resume, fork, statistics).
 *
 * The rules mirror the engine exactly (see engine/context-engine.ts):
 * - A request window is `request_begin` … `request_end`. Only `status: completed` commits:
 *   its input and its assistant output join the history. User-side messages of windows that
 *   did not commit stay pending and are sent again, as the engine does on retry or abort.
 * - The input of a committed request is: the outputs of the previous committed request's
 *   tool calls in call order, then pending input, then the user-side messages traced in
 *   its own window (or before it, for traces that record input ahead of `request_begin`).
 *   Tool outputs are traced when the tool finishes, wherever that falls.
 * - A call whose output never arrived gets a placeholder: `[interrupted: tool aborted by
 *   user]` when an `abort` was recorded after the request, else `[interrupted: process
 *   exited before the tool finished]`. So every call in the history has its output.
 * - A window cut short (aborted, or open at end of file after a crash) becomes a
 *   `[turn_aborted]` text describing what was produced; its tool calls never enter history.
 * - Windows inside a compaction span are the compaction's own requests, not turns. A span
 *   that completed closes the context (history empties, the summary is kept for the next
 *   input); a failed one leaves everything as it was; one left open is reported so resume
 *   can close it with a `failed` compaction_end.
 */
import {
  zeroTokens,
  type CompactionMode,
  type CompactionReason,
  type CompleteModelPayload,
  type OmniMessage,
  type SessionMetaPayload,
  type TokenCounts,
  type ToolCallOutputPayload,
  type ToolCallPayload,
  isCompleteModel,
  modelMessage,
  startsWithMarker,
  userText,
} from "@penguin/omnimessage";
import { INTERRUPTED_BY_EXIT, INTERRUPTED_BY_USER, turnAbortedText } from "../engine/turn-notes.js";
import { extractSummary } from "../engine/summary.js";
import { summaryWithDigest } from "../engine/activity-digest.js";
import { DISCARDED_NOTE, survivesCompaction } from "../engine/compaction.js";

export interface ReplayResult {
  meta: SessionMetaPayload | undefined;
  /** Committed messages, oldest first, for `LLMInterface.setHistory`. */
  history: OmniMessage[];
  /** What the next request must send before any new input. */
  carryOver: OmniMessage[];
  /** Set when the context was closed by a completed compaction: the summary to carry over. */
  pendingSummary: string | undefined;
  /** The file ends in a completed compaction: the next record goes to a new file. */
  contextClosed: boolean;
  /** A compaction_begin without its end: resume must record it as failed. */
  danglingCompaction: { reason: CompactionReason; mode: CompactionMode } | undefined;
  /** Committed requests in this context. */
  turns: number;
  sessionUsage: TokenCounts;
  lastRequest: TokenCounts | undefined;
  /** A tool_list_ready is already in this file. */
  toolsAnnounced: boolean;
  /** Every tool_call id the file mentions, for the session's id allocator. */
  toolCallIds: string[];
}

interface Window {
  inputs: OmniMessage[];
  produced: CompleteModelPayload[];
  producedMessages: OmniMessage[];
}

function isContextSummary(m: OmniMessage): boolean {
  return m.type === "model_msg" && m.payload.type === "text" && startsWithMarker(m.payload.text, "context_summary");
}

function isUserSide(p: CompleteModelPayload): boolean {
  return p.role === "user" && p.type !== "tool_call_output";
}

export function replayTrace(messages: readonly OmniMessage[]): ReplayResult {
  let meta: SessionMetaPayload | undefined;
  let history: OmniMessage[] = [];
  let pending: OmniMessage[] = [];
  let lastCalls: ToolCallPayload[] = [];
  let abortedSinceCommit = false;
  const outputs = new Map<string, ToolCallOutputPayload>();
  const toolCallIds: string[] = [];
  const seenCalls = new Set<string>();
  let window: Window | undefined;
  let turns = 0;
  let sessionUsage = zeroTokens();
  let lastRequest: TokenCounts | undefined;
  let toolsAnnounced = false;
  let compaction: { reason: CompactionReason; mode: CompactionMode; reply: string; windowText: string; before: OmniMessage[] } | undefined;
  let pendingSummary: string | undefined;
  let contextClosed = false;

  const outputsForCalls = (calls: ToolCallPayload[]): OmniMessage[] =>
    calls.map((c) => {
      const out = outputs.get(c.tool_call_id);
      return out !== undefined
        ? modelMessage(out)
        : modelMessage({
            type: "tool_call_output",
            role: "user",
            tool_call_id: c.tool_call_id,
            output: abortedSinceCommit ? INTERRUPTED_BY_USER : INTERRUPTED_BY_EXIT,
            stop_reason: "aborted",
          });
    });

  const abandonWindow = (w: Window, cause: "user" | "exit") => {
    pending.push(...w.inputs);
    if (w.produced.length > 0 || cause === "exit") {
      pending.push(userText(turnAbortedText(cause, w.produced, outputs), { sender: "harness" }));
    }
  };

  for (const m of messages) {
    if (m.origin !== undefined && m.origin.length > 0) continue;
    if (m.type === "session_meta") {
      meta ??= m.payload;
      continue;
    }
    if (m.type === "model_msg") {
      const p = m.payload;
      if (p.type === "tool_call_output") {
        outputs.set(p.tool_call_id, p);
        continue;
      }
      if (!isCompleteModel(m)) continue;
      const complete = m.payload;
      if (complete.type === "tool_call") {
        // Ids are unique per session; a repeated one is a duplicated line (a copy or sync
        // conflict), and replaying it twice would break the pairing for good.
        if (seenCalls.has(complete.tool_call_id)) continue;
        seenCalls.add(complete.tool_call_id);
        toolCallIds.push(complete.tool_call_id);
      }
      if (compaction !== undefined) {
        if (complete.type === "text" && complete.role === "assistant") compaction.windowText += complete.text;
        continue;
      }
      if (isUserSide(complete)) {
        if (window !== undefined) window.inputs.push(m);
        else pending.push(m);
      } else if (window !== undefined) {
        window.produced.push(complete);
        window.producedMessages.push(m);
      }
      continue;
    }
    const e = m.payload;
    switch (e.type) {
      case "request_begin":
        if (compaction !== undefined) {
          compaction.windowText = "";
          break;
        }
        if (window !== undefined) abandonWindow(window, "exit");
        window = { inputs: [], produced: [], producedMessages: [] };
        break;
      case "request_end": {
        if (compaction !== undefined) {
          if (e.status === "completed") compaction.reply = compaction.windowText;
          break;
        }
        if (window === undefined) break;
        const w = window;
        window = undefined;
        if (e.status === "completed") {
          // A context opens with its [context_summary], even before input kept across the compaction.
          const lead = w.inputs.length > 0 && isContextSummary(w.inputs[0]!) ? w.inputs.slice(0, 1) : [];
          history.push(...lead, ...outputsForCalls(lastCalls), ...pending, ...w.inputs.slice(lead.length), ...w.producedMessages);
          lastCalls = w.produced.filter((p): p is ToolCallPayload => p.type === "tool_call");
          pending = [];
          abortedSinceCommit = false;
          turns += 1;
        } else if (e.status === "aborted") {
          abandonWindow(w, "user");
        } else {
          // A failed attempt: its input is sent again by the retry (or carried over).
          pending.push(...w.inputs);
        }
        break;
      }
      case "abort":
        if (window !== undefined) {
          abandonWindow(window, "user");
          window = undefined;
        }
        abortedSinceCommit = true;
        break;
      case "token_usage":
        sessionUsage = { ...e.session };
        lastRequest = { ...e.request };
        break;
      case "tool_list_ready":
        toolsAnnounced = true;
        break;
      case "compaction_begin":
        if (window !== undefined) {
          abandonWindow(window, "exit");
          window = undefined;
        }
        compaction = { reason: e.reason, mode: e.mode, reply: "", windowText: "", before: [...history, ...outputsForCalls(lastCalls), ...pending] };
        break;
      case "compaction_end":
        if (compaction === undefined) break;
        if (e.status === "completed") {
          // The compaction request consumed the pending tool outputs and input; the
          // context closes and only the summary carries over.
          pendingSummary =
            compaction.mode === "summarize"
              ? summaryWithDigest(extractSummary(compaction.reply), compaction.before)
              : summaryWithDigest(DISCARDED_NOTE, compaction.before);
          history = [];
          lastRequest = undefined;
          pending = pending.filter(survivesCompaction);
          lastCalls = [];
          turns = 0;
          contextClosed = true;
        }
        compaction = undefined;
        break;
      default:
        break;
    }
    // Any record after a closed context belongs to a new context in the same file only if
    // a writer failed to rotate; treat the context as reopened once a request begins.
    if (contextClosed && compaction === undefined && e.type === "request_begin") {
      contextClosed = false;
      pendingSummary = undefined;
    }
  }

  if (window !== undefined) abandonWindow(window, "exit");
  const danglingCompaction = compaction !== undefined ? { reason: compaction.reason, mode: compaction.mode } : undefined;

  return {
    meta,
    history,
    carryOver: [...outputsForCalls(lastCalls), ...pending],
    pendingSummary,
    contextClosed,
    danglingCompaction,
    turns,
    sessionUsage,
    lastRequest,
    toolsAnnounced,
    toolCallIds,
  };
}
