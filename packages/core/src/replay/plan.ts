/**
 * What a replay needs to know of a recording, read once from its records: the Human's tasks
 * (the inputs sent again, manual compactions), every model request with the assistant turn
 * it answered and the context it was sent with, the approval answers, the recorded tool
 * outputs, the steering delivered at each request, and where the user's aborts took effect.
 *
 * The context a completed request was sent with is not stored in the trace; it is derived
 * with the same fold resume uses (trace/replay.ts): after the request commits, the history
 * ends with the request's input followed by its output, so the input is the history minus
 * the output's messages.
 */
import { extractMarker, isCompleteModel, startsWithMarker, type OmniMessage, type RequestEndPayload, type TokenCounts } from "@penguin/omnimessage";
import { replayTrace } from "../trace/replay.js";
import { INTERRUPTED_BY_USER } from "@penguin/trace";
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

export type RecordedTask = { kind: "run"; input: OmniMessage[]; at: number } | { kind: "compact"; at: number };

/** Steering the Human queued or took back, at the record where it happened. */
export type SteeringAction = { at: number; kind: "queue"; text: string } | { at: number; kind: "recall"; id: string };

export interface ReplayPlan {
  tasks: RecordedTask[];
  requests: RecordedRequest[];
  approvals: Map<string, "allow" | "deny" | "forbidden">;
  outputs: Map<string, OmniMessage>;
  /** The record number of each recorded tool output. */
  outputAt: Map<string, number>;
  /** `subagent` events recorded while each call ran, by tool_call_id. */
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
  // The first record of the current run that shows a user abort (an interrupted tool, an
  // aborted request); the run's `abort` event confirms it.
  let firstAbortSign: number | undefined;

  events.forEach((e, index) => {
    const m = e.message;
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
      default:
        break;
    }
  });
  fillContexts(events, ends);
  return { tasks, requests, approvals, outputs, outputAt, spawned, abortPoints, steeringActions };
}

/** The context of each completed turn, from the resume fold over the records up to its end. */
function fillContexts(events: RecordedEvent[], ends: { request: RecordedRequest; index: number }[]): void {
  const messages = events.map((e) => e.message);
  for (const { request, index } of ends) {
    if (request.compaction || request.end?.status !== "completed") continue;
    const history = replayTrace(messages.slice(0, index + 1)).history;
    request.context = history.slice(0, history.length - request.produced.length);
  }
}
