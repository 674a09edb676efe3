/**
 * What a replay needs to know of a recording, read once from its records: the Human's tasks
 * (the inputs sent again, goals, manual compactions), every model request with the
 * assistant turn it answered and the context it was sent with, the approval answers, the
 * recorded tool outputs, the steering delivered at each request, where the user's aborts
 * took effect, and the settings: the starting ones (the `settings_changed` right after the
 * first `session_meta`), the approval-mode changes the host made and the thinking level
 * each task ran with.
 *
 * A goal (`goal_started` … `goal_finished`) is one task: the input of its first round is
 * sent again as a goal with the recorded budget, and the rounds follow from the engine. For
 * each round the plan keeps where its `[goal]` block is and the goal file the harness read
 * after it: what the next round's block shows, or for the last round the status the
 * outcome implies.
 *
 * The context a completed request was sent with is not stored in the trace; it is derived
 * with the same fold resume uses (trace/replay.ts): after the request commits, the history
 * ends with the request's input followed by its output, so the input is the history minus
 * the output's messages.
 */
import { dirname } from "node:path";
import { yaml } from "../state/yaml-on-demand.js";
import {
  extractMarker,
  isCompleteModel,
  startsWithMarker,
  type GoalOutcome,
  type OmniMessage,
  type RequestEndPayload,
  type SettingsChangedPayload,
  type TokenCounts,
} from "@penguin/omnimessage";
import { THINKING_LEVELS } from "@penguin/models";
import { evolve, initialSessionState, INTERRUPTED_BY_USER } from "@penguin/trace";
import type { RecordedEvent, RecordedSession } from "./recording.js";

export interface RecordedRequest {
  /** Index among all requests of the session, 0-based. */
  index: number;
  /** A compaction's summary request, not a turn. */
  compaction: boolean;
  /** The assistant-side complete messages of the answer, in order, and their record numbers. */
  produced: OmniMessage[];
  producedAt: number[];
  end: RequestEndPayload | undefined;
  /** Usage of the request, from the token_usage that follows a completed request. */
  usage: TokenCounts | undefined;
  /** The messages the model saw (history + input), for completed turns. */
  context: OmniMessage[] | undefined;
  /** Steering texts delivered with this request's input. */
  steering: string[];
  /** The record numbers of its request_begin and request_end. */
  beginAt: number;
  endAt: number | undefined;
}

/** One round of a recorded goal. */
export interface GoalRound {
  /** The record number of the round's `[goal]` block. */
  blockAt: number;
  /** The goal file the block shows (what the harness read before the round). */
  shown: string | undefined;
  /** The goal file the harness read after the round (the next block's, or the outcome's status). */
  after: string | undefined;
}

export type RecordedTask =
  | { kind: "run"; input: OmniMessage[]; at: number; thinkingLevel?: string }
  | { kind: "goal"; input: OmniMessage[]; at: number; thinkingLevel?: string; objective: string; budget: number; rounds: GoalRound[]; outcome?: GoalOutcome; scratchpadDir?: string }
  | { kind: "compact"; at: number };

/** An approval mode the host set while the session ran, at the record where it shows. */
export interface ApprovalModeChange {
  at: number;
  mode: string;
}

/** A title the host recorded (`session_title`), at its record: the replay records it there too. */
export interface RecordedTitle {
  at: number;
  title: string;
}

/** Steering the Human queued or took back, at the record where it happened. */
export type SteeringAction = { at: number; kind: "queue"; text: string } | { at: number; kind: "recall"; id: string };

export interface ReplayPlan {
  tasks: RecordedTask[];
  requests: RecordedRequest[];
  approvals: Map<string, "allow" | "deny" | "forbidden">;
  outputs: Map<string, OmniMessage>;
  /** The record number of each recorded tool output. */
  outputAt: Map<string, number>;
  /** `subagent` and `hook_run` events recorded while each call ran, by tool_call_id. */
  spawned: Map<string, RecordedEvent[]>;
  /**
   * Record numbers where a user abort first shows: the replay aborts its run once it has
   * written every record before that one.
   */
  abortPoints: number[];
  /**
   * Traces that record `steering_queued` / `steering_recalled` say when the Human steered;
   * older ones only show the steering where it was delivered (RecordedRequest.steering).
   */
  steeringActions: SteeringAction[];
  /** The recording's starting settings (its opening `settings_changed`), when it has them. */
  startingSettings: SettingsChangedPayload | undefined;
  /**
   * The thinking level the recording starts from: the starting one, or for an older trace
   * that changed level without recording where it started, a level other than its first
   * change (so the replay's engine records that change too); undefined when it never says.
   */
  thinkingBaseline: string | undefined;
  approvalModeChanges: ApprovalModeChange[];
  titles: RecordedTitle[];
  /** `hook_run` records of task hooks (not bound to a tool call): written back at their places, never run. */
  taskHooks: RecordedEvent[];
}

const topLevel = (e: RecordedEvent) => e.message.origin === undefined || e.message.origin.length === 0;

/** A text the Human typed (not a harness note, not steering, not a tool output). */
function isHumanInput(m: OmniMessage): boolean {
  if (m.type !== "model_msg" || !isCompleteModel(m)) return false;
  const p = m.payload;
  if (p.role !== "user" || p.type === "tool_call_output") return false;
  if (p.type === "text") return p.sender === undefined && !startsWithMarker(p.text, "user_steering");
  return true;
}

function isAssistantSide(m: OmniMessage): boolean {
  return m.type === "model_msg" && isCompleteModel(m) && m.payload.role === "assistant";
}

export function buildPlan(recording: RecordedSession): ReplayPlan {
  const events = recording.events.filter(topLevel);
  const tasks: RecordedTask[] = [];
  const requests: RecordedRequest[] = [];
  const approvals = new Map<string, "allow" | "deny" | "forbidden">();
  const outputs = new Map<string, OmniMessage>();
  const outputAt = new Map<string, number>();
  const spawned = new Map<string, RecordedEvent[]>();
  const abortPoints: number[] = [];
  const steeringActions: SteeringAction[] = [];
  const openCalls: string[] = [];
  const ends: { request: RecordedRequest; index: number }[] = [];
  let request: RecordedRequest | undefined;
  let inCompaction = false;
  let group: OmniMessage[] | undefined;
  let goal: Extract<RecordedTask, { kind: "goal" }> | undefined;
  const startingSettings = openingSettings(events);
  const thinkingChanges: { at: number; level: string }[] = [];
  const approvalModeChanges: ApprovalModeChange[] = [];
  const titles: RecordedTitle[] = [];
  const taskHooks: RecordedEvent[] = [];
  // The first record of the current run that shows a user abort (an interrupted tool, an
  // aborted request); the run's `abort` event confirms it.
  let firstAbortSign: number | undefined;

  events.forEach((e, index) => {
    const m = e.message;
    if (goal !== undefined && isHumanInput(m)) {
      // The first round's body: sent again as the goal's input.
      goal.input.push(m);
      return;
    }
    if (goal !== undefined && m.type === "model_msg" && m.payload.type === "text" && m.payload.sender === "harness" && startsWithMarker(m.payload.text, "goal")) {
      const body = extractMarker(m.payload.text, "goal") ?? "";
      const file = /^goal_file: (.+)$/m.exec(body)?.[1];
      if (file !== undefined) goal.scratchpadDir ??= dirname(file);
      const shownAt = body.indexOf(GOAL_FILE_HEADING);
      goal.rounds.push({ blockAt: e.n, shown: shownAt < 0 ? undefined : body.slice(shownAt + GOAL_FILE_HEADING.length), after: undefined });
    }
    if (isHumanInput(m)) {
      if (group === undefined) {
        group = [];
        tasks.push({ kind: "run", input: group, at: e.n });
      }
      group.push(m);
      return;
    }
    group = undefined;
    if (m.type === "model_msg") {
      const p = m.payload;
      if (p.type === "tool_call_output") {
        outputs.set(p.tool_call_id, m);
        outputAt.set(p.tool_call_id, e.n);
        const open = openCalls.indexOf(p.tool_call_id);
        if (open >= 0) openCalls.splice(open, 1);
        if (p.output === INTERRUPTED_BY_USER) firstAbortSign ??= e.n;
        return;
      }
      if (p.type === "tool_call") openCalls.push(p.tool_call_id);
      if (request !== undefined && isAssistantSide(m)) {
        request.produced.push(m);
        request.producedAt.push(e.n);
      }
      if (request !== undefined && p.type === "text" && p.role === "user" && startsWithMarker(p.text, "user_steering")) {
        request.steering.push(extractMarker(p.text, "user_steering") ?? "");
      }
      return;
    }
    if (m.type !== "event_msg") return;
    const ev = m.payload;
    switch (ev.type) {
      case "request_begin":
        request = { index: requests.length, compaction: inCompaction, produced: [], producedAt: [], end: undefined, usage: undefined, context: undefined, steering: [], beginAt: e.n, endAt: undefined };
        requests.push(request);
        break;
      case "request_end":
        if (request !== undefined) {
          request.end = ev;
          request.endAt = e.n;
          ends.push({ request, index });
        }
        if (ev.status === "aborted") firstAbortSign ??= e.n;
        break;
      case "token_usage": {
        const last = requests.at(-1);
        if (last !== undefined && last.end?.status === "completed" && last.usage === undefined) last.usage = ev.request;
        break;
      }
      case "approval_decision":
        approvals.set(ev.tool_call_id, ev.decision);
        break;
      case "subagent": {
        const call = openCalls.at(-1);
        if (call !== undefined) spawned.set(call, [...(spawned.get(call) ?? []), e]);
        break;
      }
      case "compaction_begin":
        inCompaction = true;
        if (ev.reason === "manual") tasks.push({ kind: "compact", at: e.n });
        break;
      case "compaction_end":
        inCompaction = false;
        break;
      case "steering_queued":
        steeringActions.push({ at: e.n, kind: "queue", text: ev.text });
        break;
      case "steering_recalled":
        steeringActions.push({ at: e.n, kind: "recall", id: ev.steering_id });
        break;
      case "abort":
        if (ev.reason === "aborted by user") abortPoints.push(firstAbortSign ?? e.n);
        firstAbortSign = undefined;
        break;
      case "session_title":
        titles.push({ at: e.n, title: ev.title });
        break;
      case "hook_run":
        if (ev.tool_call_id !== undefined) spawned.set(ev.tool_call_id, [...(spawned.get(ev.tool_call_id) ?? []), e]);
        else taskHooks.push(e);
        break;
      case "goal_started":
        goal = { kind: "goal", input: [], at: e.n, objective: ev.objective, budget: ev.budget, rounds: [] };
        tasks.push(goal);
        break;
      case "goal_finished":
        if (goal !== undefined) goal.outcome = ev.outcome;
        goal = undefined;
        break;
      case "settings_changed":
        if (m === startingSettings?.message) break;
        if (ev.thinking_level !== undefined) thinkingChanges.push({ at: e.n, level: ev.thinking_level });
        if (ev.approval_mode !== undefined) approvalModeChanges.push({ at: e.n, mode: ev.approval_mode });
        break;
      default:
        break;
    }
  });
  fillContexts(events, ends);
  for (const task of tasks) if (task.kind === "goal") settleRounds(task);
  const thinkingBaseline = startingSettings?.payload.thinking_level ?? levelOtherThan(thinkingChanges[0]?.level);
  if (thinkingBaseline !== undefined) assignThinkingLevels(tasks, thinkingBaseline, thinkingChanges);
  return {
    tasks,
    requests,
    approvals,
    outputs,
    outputAt,
    spawned,
    abortPoints,
    steeringActions,
    startingSettings: startingSettings?.payload,
    thinkingBaseline,
    approvalModeChanges,
    titles,
    taskHooks,
  };
}

/** The heading before the goal file's content in a `[goal]` block (goal-loop.ts). */
const GOAL_FILE_HEADING = "Current goal file:\n";

/** The `settings_changed` right after the session's first `session_meta`, if that is the next record. */
function openingSettings(events: RecordedEvent[]): { message: OmniMessage; payload: SettingsChangedPayload } | undefined {
  const [first, second] = events;
  if (first?.message.type !== "session_meta" || second === undefined || second.fileIndex !== first.fileIndex) return undefined;
  const m = second.message;
  return m.type === "event_msg" && m.payload.type === "settings_changed" ? { message: m, payload: m.payload } : undefined;
}

/** A thinking level different from `level` (undefined when there is none to differ from). */
function levelOtherThan(level: string | undefined): string | undefined {
  if (level === undefined) return undefined;
  return THINKING_LEVELS.find((l) => l !== level);
}

/**
 * Each run and goal gets the level in effect when it started: the baseline, then the last
 * recorded change before its first request's input (the engine records a task's change
 * before it sends anything).
 */
function assignThinkingLevels(tasks: RecordedTask[], baseline: string, changes: readonly { at: number; level: string }[]): void {
  for (const task of tasks) {
    if (task.kind === "compact") continue;
    // A run's input is its record; a goal's first request carries its first round's block.
    const inputAt = task.kind === "goal" ? (task.rounds[0]?.blockAt ?? task.at) : task.at;
    const before = changes.filter((c) => c.at < inputAt);
    task.thinkingLevel = before.at(-1)?.level ?? baseline;
  }
}

/** What the harness read after each round: the next block's file, or the outcome's status after the last. */
function settleRounds(goal: Extract<RecordedTask, { kind: "goal" }>): void {
  goal.rounds.forEach((round, i) => {
    const next = goal.rounds[i + 1];
    if (next !== undefined) round.after = next.shown;
    else if (goal.outcome === "complete" || goal.outcome === "blocked") round.after = withStatus(round.shown, goal.outcome);
    else round.after = round.shown;
  });
}

/** The goal file with its `status` set (the objective and anything else kept when it parses). */
function withStatus(file: string | undefined, status: "complete" | "blocked"): string {
  const { parse, stringify } = yaml();
  try {
    const value: unknown = file === undefined ? undefined : parse(file);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return stringify({ ...value, status });
  } catch {
    // not YAML: the status alone below
  }
  return stringify({ status });
}

/**
 * The context of each completed turn, from the resume fold over the records up to its end.
 * One fold walks the records once, in order (the ends are in record order), and each
 * completed turn reads the history where the fold stands at its `request_end`: there the
 * request window has just closed, so this is the same state resume would start from after
 * that record. Folding again from the first record for every turn made a plan quadratic.
 */
function fillContexts(events: RecordedEvent[], ends: { request: RecordedRequest; index: number }[]): void {
  let state = initialSessionState;
  let folded = 0;
  for (const { request, index } of ends) {
    if (request.compaction || request.end?.status !== "completed") continue;
    while (folded <= index) state = evolve(state, events[folded++]!.message);
    const history = state.history.toArray();
    request.context = history.slice(0, history.length - request.produced.length);
  }
}
