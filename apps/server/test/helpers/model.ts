// Context-aware testkit steps for server tests, where several sessions (and out-of-band
// title requests) share one fake model and requests arrive in any order: each step looks at
// the request it answers instead of relying on arrival order.
import type { RecordedRequest, ScriptStep, ScriptedTurn, Testkit } from "@penguin/testkit";

export const TITLE_MARK = "Write a title of at most";

export function isTitleRequest(r: RecordedRequest): boolean {
  return r.messages.some((m) => m.role === "user" && (m.text ?? "").includes(TITLE_MARK));
}

/** The last user text of a request (the prompt of the turn). */
export function lastUserText(r: RecordedRequest): string {
  const users = r.messages.filter((m) => m.role === "user" && m.kind === "text");
  return users[users.length - 1]?.text ?? "";
}

export function endsWithToolResult(r: RecordedRequest): boolean {
  return r.messages[r.messages.length - 1]?.kind === "tool_result";
}

/** Enqueues `count` copies of a dispatching step (titles answered, the rest by `answer`). */
export function enqueueSmart(kit: Testkit, count: number, answer: (r: RecordedRequest) => ScriptedTurn, title = "Scripted title"): void {
  const step: ScriptStep = (r) => (isTitleRequest(r) ? { text: title } : answer(r));
  for (let i = 0; i < count; i++) kit.enqueue(step);
}
