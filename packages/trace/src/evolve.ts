/**
 * evolve(state, envelope) → state: the one reducer of session state. Live sessions, resume
 * and time travel all fold a trace with it, so there is one set of rules.
 *
 * Pure and total: it never changes its input, reads no clock (messages it creates take the
 * timestamp of the envelope that caused them), and an envelope it has no rule for (a newer
 * event type, a forwarded child message) leaves the state as it is.
 *
 * The context rules follow the engine (packages/core/src/engine/context-engine.ts):
 * - A request window is `request_begin` … `request_end`. Only `status: completed` commits:
 *   its input and its assistant output join the history. User-side messages of windows that
 *   did not commit stay pending and are sent again, as the engine does on retry or abort.
 * - The input of a committed request is: the outputs of the previous committed request's
 *   tool calls in call order, then pending input, then the user-side messages traced in its
 *   own window (a leading `[context_summary]` first). Tool outputs are traced when the tool
 *   finishes, wherever that falls.
 * - A call whose output never arrived gets a placeholder: `[interrupted: tool aborted by
 *   user]` when an `abort` was recorded after the request, else `[interrupted: process
 *   exited before the tool finished]`. So every call in the history has its output.
 * - A window cut short (aborted, superseded by a new `request_begin` after a crash) becomes a
 *   `[turn_aborted]` text describing what was produced; its tool calls never enter history.
 * - Windows inside a compaction span are the compaction's own requests, not turns. A span
 *   that completed closes the context (history empties, the summary is kept for the next
 *   input); a failed one leaves everything as it was.
 *
 * Session facts: approvals requested and decided, steering queued / recalled / delivered (a
 * `[user_steering]` text delivers the queued items it carries; an abort drops the queue; a manual compaction
 * keeps it as input for the next run), settings, title, archive, goal, fork origin, subagents,
 * and the files the tools read and wrote.
 */
import * as HashSet from "effect/HashSet";
import {
  extractMarker,
  isCompleteModel,
  modelMessage,
  modelMessageSharing,
  startsWithMarker,
  userText,
  wrapMarker,
  type CompleteModelPayload,
  type EventPayload,
  type OmniMessage,
  type ToolCallOutputPayload,
  type ToolCallPayload,
} from "@penguin/omnimessage";
import { extractSummary } from "./context-notes/summary.js";
import { summaryWithDigest } from "./context-notes/activity-digest.js";
import { DISCARDED_NOTE, survivesCompaction } from "./context-notes/compaction-rules.js";
import { INTERRUPTED_BY_EXIT, INTERRUPTED_BY_USER, turnAbortedText } from "./context-notes/turn-notes.js";
import { Sequence } from "./sequence.js";
import { legacyThinkingLevel } from "./upcast.js";
import { initialSessionState, type OpenWindow, type SessionState } from "./state.js";

const EMPTY_WINDOW: OpenWindow = { inputs: Sequence.empty(), produced: Sequence.empty(), producedMessages: Sequence.empty() };

/** A SessionState whose fields may still be set: what `revise` fills in before it hands the state out. */
type StateDraft = { -readonly [K in keyof SessionState]-?: SessionState[K] };

/**
 * A copy of `state` whose fields may be set before it is handed out: what `{ ...state }`
 * gives, at a fraction of its cost. A fold makes one new state per event, and on Node 20 an
 * object spread of a state this wide costs about 0.3-0.5 µs where a literal naming each field
 * costs tens of ns: for a rebuild of a million events that was a good part of the
 * time-travel fold. Listing the fields keeps them in one order; the type makes a field added
 * to SessionState fail to compile here until it is listed too. The rules an event of a
 * common kind takes set fields of a draft directly; the others use `revise`.
 */
function draft(state: SessionState): StateDraft {
  return {
    meta: state.meta,
    segments: state.segments,
    history: state.history,
    pending: state.pending,
    lastCalls: state.lastCalls,
    outputs: state.outputs,
    abortedSinceCommit: state.abortedSinceCommit,
    window: state.window,
    compactionSpan: state.compactionSpan,
    pendingSummary: state.pendingSummary,
    contextClosed: state.contextClosed,
    turns: state.turns,
    sessionUsage: state.sessionUsage,
    lastRequest: state.lastRequest,
    toolsAnnounced: state.toolsAnnounced,
    tools: state.tools,
    toolCallIds: state.toolCallIds,
    seenToolCallIds: state.seenToolCallIds,
    pendingApprovals: state.pendingApprovals,
    approvalRules: state.approvalRules,
    steering: state.steering,
    settings: state.settings,
    title: state.title,
    archived: state.archived,
    goal: state.goal,
    forkedFrom: state.forkedFrom,
    subagents: state.subagents,
    compaction: state.compaction,
    filesRead: state.filesRead,
    filesWritten: state.filesWritten,
  };
}

/** `state` with `changes` (the fields they name, undefined values included): `{ ...state, ...changes }`, for the rarer rules. */
function revise(state: SessionState, changes: Partial<SessionState>): SessionState {
  const next = draft(state);
  for (const key in changes) (next as Record<string, unknown>)[key] = (changes as Record<string, unknown>)[key];
  return next;
}

/** `w` with one more produced message (its payload and its envelope). */
function producedInto(w: OpenWindow, payload: CompleteModelPayload, m: OmniMessage): OpenWindow {
  return { inputs: w.inputs, produced: w.produced.append(payload), producedMessages: w.producedMessages.append(m) };
}

export function evolve(state: SessionState, m: OmniMessage): SessionState {
  // Messages forwarded from a child belong to the child's own trace.
  if (m.origin !== undefined && m.origin.length > 0) return state;
  switch (m.type) {
    case "session_meta":
    {
      // Each file opens with the session's meta: a new segment, whose tool list comes again.
      const next = revise(state, { meta: state.meta ?? m.payload, segments: state.segments + 1, toolsAnnounced: false });
      const legacyLevel = legacyThinkingLevel(m.payload);
      if (legacyLevel === undefined || state.settings.thinkingLevel !== undefined) return next;
      return revise(next, { settings: { ...state.settings, thinkingLevel: legacyLevel } });
    }
    case "model_msg":
      return onModelMessage(state, m);
    case "event_msg":
      return onEvent(state, m.payload, m.timestamp);
    default:
      return state;
  }
}

/** Fold a whole list from the initial state (or from `from`). */
export function foldTrace(messages: Iterable<OmniMessage>, from: SessionState = initialSessionState): SessionState {
  let state = from;
  for (const m of messages) state = evolve(state, m);
  return state;
}

function onModelMessage(state: SessionState, m: OmniMessage<"model_msg">): SessionState {
  const p = m.payload;
  if (p.type === "tool_call_output") {
    const outputs = new Map(state.outputs);
    outputs.set(p.tool_call_id, p);
    const next = draft(state);
    next.outputs = outputs;
    next.pendingApprovals = withoutApproval(state, p.tool_call_id);
    return next;
  }
  if (!isCompleteModel(m)) return state;
  const complete = m.payload;
  if (complete.type === "tool_call") {
    // Ids are unique per session; a repeated one is a duplicated line (a copy or a sync
    // conflict), and folding it twice would break the pairing for good.
    if (HashSet.has(state.seenToolCallIds, complete.tool_call_id)) return state;
    // One copy of the state for the ids and the call's place (a fold makes one per event).
    const next = draft(state);
    next.seenToolCallIds = HashSet.add(state.seenToolCallIds, complete.tool_call_id);
    next.toolCallIds = state.toolCallIds.append(complete.tool_call_id);
    touchFiles(next, complete);
    const w = state.window;
    if (state.compactionSpan === undefined && w !== undefined) next.window = producedInto(w, complete, m);
    return next;
  }
  const span = state.compactionSpan;
  if (span !== undefined) {
    if (complete.type === "text" && complete.role === "assistant") return revise(state, { compactionSpan: { ...span, windowText: span.windowText + complete.text } });
    return state;
  }
  if (isUserSide(complete)) {
    const delivered = complete.type === "text" && complete.sender === undefined && startsWithMarker(complete.text, "user_steering");
    const changes: Partial<StateDraft> = delivered && state.steering.length > 0 ? { steering: afterDelivery(state.steering, complete.text) } : {};
    const w = state.window;
    if (w !== undefined) changes.window = { inputs: w.inputs.append(m), produced: w.produced, producedMessages: w.producedMessages };
    else changes.pending = state.pending.append(m);
    return revise(state, changes);
  }
  if (state.window === undefined) return state;
  const next = draft(state);
  next.window = producedInto(state.window, complete, m);
  return next;
}

function onEvent(state: SessionState, e: EventPayload, at: string): SessionState {
  switch (e.type) {
    case "request_begin": {
      if (state.compactionSpan !== undefined) return revise(state, { compactionSpan: { ...state.compactionSpan, windowText: "" } });
      const base = state.window !== undefined ? abandonWindow(state, state.window, "exit", at) : state;
      // A record after a closed context belongs to a new context (a writer that failed to
      // rotate): the context reopens once a request begins.
      const next = draft(base);
      if (base.contextClosed) {
        next.contextClosed = false;
        next.pendingSummary = undefined;
      }
      next.window = EMPTY_WINDOW;
      return next;
    }
    case "request_end": {
      const span = state.compactionSpan;
      if (span !== undefined) return e.status === "completed" ? revise(state, { compactionSpan: { ...span, reply: span.windowText } }) : state;
      const w = state.window;
      if (w === undefined) return state;
      if (e.status === "completed") return commitWindow(state, w, at);
      const closed = revise(state, { window: undefined });
      // The engine notes every aborted request as a [turn_aborted] text, even an empty one.
      if (e.status === "aborted") return abandonWindow(closed, w, "user", at, { alwaysNote: true });
      // A failed attempt: its input is sent again by the retry (or carried over).
      return revise(closed, { pending: pendingWithInputs(closed, w) });
    }
    case "abort": {
      const base = state.window !== undefined ? abandonWindow(revise(state, { window: undefined }), state.window, "user", at) : state;
      return revise(base, { abortedSinceCommit: true, pendingApprovals: [], steering: [] });
    }
    case "token_usage":
      // A compaction's own request counts toward the session, but it is not the context's
      // last request (whose size decides the next compaction; the engine keeps it as is).
      if (state.compactionSpan !== undefined) return revise(state, { sessionUsage: { ...e.session } });
      const next = draft(state);
      next.sessionUsage = { ...e.session };
      next.lastRequest = { ...e.request };
      return next;
    case "tool_list_ready":
      return revise(state, { toolsAnnounced: true, tools: e.tools });
    case "compaction_begin": {
      const base = state.window !== undefined ? abandonWindow(revise(state, { window: undefined }), state.window, "exit", at) : state;
      const before = [...base.history.toArray(), ...outputsForCalls(base, at), ...base.pending.toArray()];
      return revise(base, {
        compactionSpan: { reason: e.reason, mode: e.mode, reply: "", windowText: "", before },
        compaction: { status: "running", reason: e.reason, mode: e.mode },
      });
    }
    case "compaction_end": {
      const span = state.compactionSpan;
      if (span === undefined) return state;
      let next: SessionState = revise(state, { compactionSpan: undefined, compaction: { status: "idle", last: { reason: e.reason, mode: e.mode, status: e.status } } });
      if (e.status === "completed") {
        // The compaction request consumed the pending tool outputs and input; the context
        // closes and only the summary (and what the Human wrote) carries over.
        const summary = span.mode === "summarize" ? extractSummary(span.reply) : DISCARDED_NOTE;
        next = revise(next, {
          pendingSummary: summaryWithDigest(summary, span.before),
          history: Sequence.empty(),
          lastRequest: undefined,
          // A manual compaction is sent the whole carry-over and consumes it; an automatic one
          // runs inside a task, and what the Human wrote for that task survives it.
          pending: e.reason === "manual" ? Sequence.empty() : Sequence.from(next.pending.toArray().filter(survivesCompaction)),
          lastCalls: [],
          outputs: new Map(),
          turns: 0,
          contextClosed: true,
        });
      }
      // A manual compaction is a run of its own: steering that arrived meanwhile is kept as
      // input for the next run, as one `[user_steering]` text.
      if (e.reason === "manual" && next.steering.length > 0) {
        const text = wrapMarker("user_steering", next.steering.map((s) => s.text).join("\n\n"));
        next = revise(next, { pending: next.pending.append(userText(text, { at })), steering: [] });
      }
      return next;
    }
    case "approval_requested":
      return revise(state, { pendingApprovals: [...withoutApproval(state, e.tool_call_id), { toolCallId: e.tool_call_id, name: e.name }] });
    case "approval_decision": {
      // Most calls are decided without a request (policy or mode): nothing changes then.
      const pendingApprovals = withoutApproval(state, e.tool_call_id);
      return pendingApprovals === state.pendingApprovals ? state : revise(state, { pendingApprovals });
    }
    case "approval_rule":
      // No undefined field: the state stays plain JSON for the resume snapshot.
      return revise(state, { approvalRules: [...state.approvalRules, { tool: e.tool, ...(e.command_prefix === undefined ? {} : { commandPrefix: e.command_prefix }) }] });
    case "steering_queued":
      return revise(state, { steering: [...state.steering.filter((s) => s.id !== e.steering_id), { id: e.steering_id, text: e.text }] });
    case "steering_recalled":
      return revise(state, { steering: state.steering.filter((s) => s.id !== e.steering_id) });
    case "settings_changed": {
      const settings: { approvalMode?: string; thinkingLevel?: string } = { ...state.settings };
      if (e.approval_mode !== undefined) settings.approvalMode = e.approval_mode;
      if (e.thinking_level !== undefined) settings.thinkingLevel = e.thinking_level;
      return revise(state, { settings });
    }
    case "session_title":
      return revise(state, { title: e.title });
    case "session_archived":
      return revise(state, { archived: e.archived });
    case "goal_started":
      return revise(state, { goal: { objective: e.objective, budget: e.budget, startedAt: at } });
    case "goal_finished":
      return state.goal === undefined ? state : revise(state, { goal: { ...state.goal, outcome: e.outcome, rounds: e.rounds, tokensUsed: e.tokens_used } });
    case "forked_from":
      return revise(state, { forkedFrom: { sessionId: e.session_id, at: e.at } });
    case "subagent":
      return state.subagents.includes(e.session_id) ? state : revise(state, { subagents: [...state.subagents, e.session_id] });
    default:
      return state;
  }
}

/**
 * The queue once a `[user_steering]` text is recorded: the items it carries (the oldest ones,
 * their texts joined by blank lines) are delivered; steering queued after the text was built
 * stays for the next input. A text that matches no prefix of the queue (an older engine's)
 * delivers the whole queue.
 */
function afterDelivery(queue: SessionState["steering"], text: string): SessionState["steering"] {
  const body = extractMarker(text, "user_steering");
  if (body === undefined) return [];
  let joined = "";
  for (let i = 0; i < queue.length; i++) {
    joined = i === 0 ? queue[i]!.text : `${joined}\n\n${queue[i]!.text}`;
    if (joined === body) return i === queue.length - 1 ? [] : queue.slice(i + 1);
    if (joined.length >= body.length) break;
  }
  return [];
}

function isUserSide(p: CompleteModelPayload): boolean {
  return p.role === "user" && p.type !== "tool_call_output";
}

function isContextSummary(m: OmniMessage): boolean {
  return m.type === "model_msg" && m.payload.type === "text" && startsWithMarker(m.payload.text, "context_summary");
}

function withoutApproval(state: SessionState, toolCallId: string): SessionState["pendingApprovals"] {
  return state.pendingApprovals.some((a) => a.toolCallId === toolCallId) ? state.pendingApprovals.filter((a) => a.toolCallId !== toolCallId) : state.pendingApprovals;
}

/** The outputs that open the next request: one per call of the last commit, placeholders for missing ones. */
export function outputsForCalls(state: SessionState, at: string): OmniMessage[] {
  return state.lastCalls.map((c) => {
    const out = state.outputs.get(c.tool_call_id);
    return out !== undefined
      ? modelMessageSharing(out, { at })
      : modelMessage(
          { type: "tool_call_output", role: "user", tool_call_id: c.tool_call_id, output: state.abortedSinceCommit ? INTERRUPTED_BY_USER : INTERRUPTED_BY_EXIT, stop_reason: "aborted" },
          { at },
        );
  });
}

/** Commit window `w` (the state's open window, closed by this commit). */
function commitWindow(state: SessionState, w: OpenWindow, at: string): SessionState {
  const inputs = w.inputs.toArray();
  // A context opens with its [context_summary], even before input kept across the compaction.
  const lead = inputs.length > 0 && isContextSummary(inputs[0]!) ? inputs.slice(0, 1) : [];
  const history = state.history.concat(lead).concat(outputsForCalls(state, at)).concat(state.pending.toArray()).concat(inputs.slice(lead.length)).concat(w.producedMessages.toArray());
  const lastCalls = w.produced.toArray().filter((p): p is ToolCallPayload => p.type === "tool_call");
  // Outputs already in are those of the calls just committed (tools run during the stream).
  const outputs = new Map<string, ToolCallOutputPayload>();
  for (const c of lastCalls) {
    const out = state.outputs.get(c.tool_call_id);
    if (out !== undefined) outputs.set(c.tool_call_id, out);
  }
  const next = draft(state);
  next.window = undefined;
  next.history = history;
  next.lastCalls = lastCalls;
  next.outputs = outputs;
  next.pending = Sequence.empty();
  next.abortedSinceCommit = false;
  next.turns = state.turns + 1;
  return next;
}

/**
 * Pending input followed by a window's inputs, in the order the engine sends them again: a
 * leading `[context_summary]` stays first (it opens the context), then what was pending.
 */
function pendingWithInputs(state: SessionState, w: OpenWindow): SessionState["pending"] {
  const inputs = w.inputs.toArray();
  if (inputs.length === 0 || !isContextSummary(inputs[0]!)) return state.pending.concat(inputs);
  return Sequence.from([inputs[0]!, ...state.pending.toArray(), ...inputs.slice(1)]);
}

function abandonWindow(state: SessionState, w: OpenWindow, cause: "user" | "exit", at: string, options: { alwaysNote?: boolean } = {}): SessionState {
  const produced = w.produced.toArray();
  let pending = pendingWithInputs(state, w);
  if (produced.length > 0 || cause === "exit" || options.alwaysNote === true) {
    pending = pending.append(userText(turnAbortedText(cause, produced, state.outputs), { sender: "harness", at }));
  }
  return revise(state, { pending });
}

/**
 * The state as a resumed session starts from it: a window left open by a crash is closed as
 * cut short by the exit (its input and a `[turn_aborted]` note become pending input).
 */
export function closeDanglingWindow(state: SessionState, at: string): SessionState {
  return state.window === undefined ? state : abandonWindow(revise(state, { window: undefined }), state.window, "exit", at);
}

/**
 * The state as it stands at a record, for time travel: a request still open there is not a
 * crash, so its input is shown as pending (no `[turn_aborted]` note), and a call still running
 * has no output yet (none is made up for it; after an abort the engine's own interrupted
 * outputs are shown, as it sends them). `at` stamps those. What a resumed session would do instead is
 * `closeDanglingWindow` then `carryOverOf`.
 */
export function pendingAsOfRecord(state: SessionState, at: string): { state: SessionState; carryOver: OmniMessage[] } {
  const open = state.window === undefined ? state : revise(state, { window: undefined, pending: pendingWithInputs(state, state.window) });
  // After an abort the engine answers the calls it stopped itself: those outputs are real.
  const outputs = open.abortedSinceCommit ? outputsForCalls(open, at) : open.lastCalls.flatMap((c) => {
    const out = open.outputs.get(c.tool_call_id);
    return out === undefined ? [] : [modelMessageSharing(out, { at })];
  });
  return { state: open, carryOver: [...outputs, ...open.pending.toArray()] };
}

/** What the next request must send before any new input: open outputs, then pending input. */
export function carryOverOf(state: SessionState, at: string): OmniMessage[] {
  return [...outputsForCalls(state, at), ...state.pending.toArray()];
}

const FILE_TOOLS: Record<string, "read" | "written"> = { read_file: "read", write_file: "written", edit_file: "written" };

/** Notes the path of a file tool's call in `next` (the draft of the state the call is folded into), first use first. */
function touchFiles(next: StateDraft, call: ToolCallPayload): void {
  const kind = FILE_TOOLS[call.name];
  if (kind === undefined) return;
  let path: unknown;
  try {
    path = (JSON.parse(call.arguments) as { file_path?: unknown } | null)?.file_path;
  } catch {
    return;
  }
  if (typeof path !== "string" || path === "") return;
  if (kind === "read") {
    if (!next.filesRead.includes(path)) next.filesRead = [...next.filesRead, path];
  } else if (!next.filesWritten.includes(path)) next.filesWritten = [...next.filesWritten, path];
}
