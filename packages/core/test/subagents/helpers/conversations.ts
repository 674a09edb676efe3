// Scripts for sessions whose requests interleave (a parent and its children share one
// testkit model). Each conversation is named by a key its first user message contains; a
// request is answered by the next turn of its conversation's script. A turn may be a
// function of the recorded request (to read ids and notices out of the history). The
// router step is enqueued many times: every request, whoever sends it, consumes one.
import { isModel, type OmniMessage } from "@penguin/omnimessage";
import type { NormalizedMessage, RecordedRequest, ScriptedTurn, Testkit } from "@penguin/testkit";
import { resultText } from "../../helpers/harness.js";

export type Turn = ScriptedTurn | ((request: RecordedRequest) => ScriptedTurn);

export interface Conversations {
  /** Requests by conversation key, in arrival order. */
  requests(key: string): RecordedRequest[];
  /** Routing problems (unknown conversation, script exhausted); a test expects none. */
  errors: string[];
}

function firstUserText(r: RecordedRequest): string {
  return r.messages.find((m) => m.role === "user" && m.kind === "text")?.text ?? "";
}

export function routeConversations(kit: Testkit, scripts: Record<string, Turn[]>, steps = 400): Conversations {
  const used = new Map<string, number>();
  const seen = new Map<string, RecordedRequest[]>();
  const errors: string[] = [];
  const route = (r: RecordedRequest): ScriptedTurn => {
    const first = firstUserText(r);
    const key = Object.keys(scripts).find((k) => first.includes(k));
    if (key === undefined) {
      errors.push(`request ${r.index}: no conversation for ${JSON.stringify(first.slice(0, 80))}`);
      return { text: "unrouted" };
    }
    seen.set(key, [...(seen.get(key) ?? []), r]);
    const n = used.get(key) ?? 0;
    used.set(key, n + 1);
    const turn = scripts[key]?.[n];
    if (turn === undefined) {
      errors.push(`request ${r.index}: script of ${key} exhausted after ${n} turn(s)`);
      return { text: `script of ${key} exhausted` };
    }
    return typeof turn === "function" ? turn(r) : turn;
  };
  for (let i = 0; i < steps; i++) kit.enqueue(route);
  return { requests: (key) => seen.get(key) ?? [], errors };
}

/** Tool results of a request, as plain text, in order. */
export function toolResults(r: RecordedRequest): string[] {
  return r.messages.filter((m: NormalizedMessage) => m.kind === "tool_result").map((m) => resultText(m.text) ?? "");
}

/** User texts of a request, in order. */
export function userTexts(r: RecordedRequest): string[] {
  return r.messages.filter((m) => m.role === "user" && m.kind === "text").map((m) => m.text ?? "");
}

/** The subagent ids named in a request's tool results (`subagent_id: …`), in order. */
export function subagentIds(r: RecordedRequest): string[] {
  return toolResults(r).flatMap((t) => [...t.matchAll(/subagent_id: (session-[0-9a-f-]+)/g)].map((m) => m[1] ?? ""));
}

/** The subagent id of the latest tool result that names one. */
export function lastSubagentId(r: RecordedRequest): string {
  const id = subagentIds(r).at(-1);
  if (id === undefined) throw new Error(`no subagent_id in request ${r.index}`);
  return id;
}

/** A run_subagent call. */
export function runSubagent(args: Record<string, unknown>): { name: string; arguments: Record<string, unknown> } {
  return { name: "run_subagent", arguments: { description: "delegate", ...args } };
}

/** Messages forwarded from a given child (its id first in `origin`). */
export function fromChild(messages: OmniMessage[], childId: string): OmniMessage[] {
  return messages.filter((m) => m.origin?.[0] === childId);
}

/** Complete tool outputs of the parent itself (no origin). */
export function ownToolOutputs(messages: OmniMessage[]): string[] {
  return messages.flatMap((m) => (isModel(m, "tool_call_output") && m.origin === undefined ? [m.payload.output] : []));
}
