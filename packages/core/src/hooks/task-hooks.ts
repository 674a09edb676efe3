/**
 * The task hooks around one `session.run`: SessionStart (before the session's first task in
 * this process: `startup`, or `resume` for a session rebuilt from its trace), UserPromptSubmit
 * (before the input reaches the model), Stop (when the task ends without an abort) and, for
 * `session.compact`, PreCompact (`manual`); `autoPreCompact` is PreCompact (`auto`) for the
 * engine to run before a compaction a trigger started mid-task.
 *
 * Their `hook_run` records are appended to the trace through the session's writer (between
 * engine runs, so nothing else writes then) and yielded to the host like the task's messages.
 * What they add for the model (SessionStart and UserPromptSubmit context) is a user text sent
 * with the input, so it is recorded as input and a replay sends it again.
 *
 * - UserPromptSubmit that blocks: the prompt is not sent (not recorded either, as Claude Code
 *   erases it); the task ends after the hook's record, whose reason the host shows.
 * - Stop that blocks (exit 2 or `decision: block`): the task goes on with the reason as a new
 *   user text, and the next Stop run sees `stop_hook_active: true`; at most
 *   MAX_STOP_CONTINUATIONS times, so a hook that always blocks cannot keep a task alive forever.
 * - Goal runs (`hookedGoal`): the same hooks before the first round, Stop once at the end.
 * - Replays do not run task hooks: they write the recorded records back at their places.
 */
import { isEvent, isModel, userText, type OmniMessage } from "@penguin/omnimessage";
import type { SessionHooks } from "./session-hooks.js";

export const MAX_STOP_CONTINUATIONS = 5;

export interface TaskHooksInput {
  hooks: SessionHooks;
  input: OmniMessage[];
  /** Run SessionStart first, with this `source`. */
  sessionStart?: "startup" | "resume";
  record(m: OmniMessage<"event_msg">): void;
  runEngine(input: OmniMessage[]): AsyncGenerator<OmniMessage, void>;
  signal?: AbortSignal;
}

const promptOf = (input: readonly OmniMessage[]): string =>
  input.flatMap((m) => (isModel(m, "text") && m.payload.role === "user" ? [m.payload.text] : [])).join("\n");

/** A generator's records written and yielded, in order. */
function* emitRecords(t: Pick<TaskHooksInput, "record">, records: OmniMessage<"event_msg">[]): Generator<OmniMessage, void> {
  for (const r of records) {
    t.record(r);
    yield r;
  }
}

/**
 * SessionStart (when due) and UserPromptSubmit, before a task's or a goal's input reaches the
 * model: their records, then (as the generator's result) whether the prompt was blocked and
 * the user texts their context adds to the input.
 */
async function* beforeInput(t: Omit<TaskHooksInput, "runEngine">): AsyncGenerator<OmniMessage, { blocked: boolean; extra: OmniMessage[] }> {
  const signal = t.signal === undefined ? {} : { signal: t.signal };
  const extra: OmniMessage[] = [];
  if (t.sessionStart !== undefined && t.hooks.has("SessionStart")) {
    const start = await t.hooks.run({ event: "SessionStart", input: { source: t.sessionStart }, ...signal });
    yield* emitRecords(t, start.records);
    if (start.context !== undefined) extra.push(userText(`[SessionStart hook context]\n${start.context}`));
  }
  if (t.hooks.has("UserPromptSubmit")) {
    const submit = await t.hooks.run({ event: "UserPromptSubmit", input: { prompt: promptOf(t.input) }, ...signal });
    yield* emitRecords(t, submit.records);
    if (submit.blocked) return { blocked: true, extra };
    if (submit.context !== undefined) extra.push(userText(`[UserPromptSubmit hook context]\n${submit.context}`));
  }
  return { blocked: false, extra };
}

export async function* hookedTask(t: TaskHooksInput): AsyncGenerator<OmniMessage, void> {
  const signal = t.signal === undefined ? {} : { signal: t.signal };
  const before = yield* beforeInput(t);
  if (before.blocked) return;
  let input = [...t.input, ...before.extra];
  for (let continuation = 0; ; continuation++) {
    let aborted = false;
    for await (const m of t.runEngine(input)) {
      if (isEvent(m, "abort") && m.origin === undefined) aborted = true;
      yield m;
    }
    if (aborted || t.signal?.aborted === true || !t.hooks.has("Stop") || continuation >= MAX_STOP_CONTINUATIONS) return;
    const stop = await t.hooks.run({ event: "Stop", input: { stop_hook_active: continuation > 0 }, ...signal });
    yield* emitRecords(t, stop.records);
    if (!stop.blocked || stop.stopTask !== undefined) return;
    input = [userText(`[Stop hook] ${stop.reason ?? "a hook asked to go on"}`)];
  }
}

/**
 * The task hooks around a goal: SessionStart and UserPromptSubmit before its first round (a
 * blocked prompt starts no goal; their context goes with round 1's input, not into the
 * objective), and Stop once the goal has ended other than aborted. A goal's rounds go on by
 * its own rules (GOAL.yaml, the budget), so a Stop hook that blocks is recorded but starts no
 * further round.
 */
export async function* hookedGoal(t: Omit<TaskHooksInput, "runEngine"> & { runGoal(extraInput: OmniMessage[]): AsyncGenerator<OmniMessage, void> }): AsyncGenerator<OmniMessage, void> {
  const before = yield* beforeInput(t);
  if (before.blocked) return;
  let aborted = false;
  for await (const m of t.runGoal(before.extra)) {
    if (isEvent(m, "goal_finished") && m.origin === undefined && m.payload.outcome === "aborted") aborted = true;
    yield m;
  }
  if (aborted || t.signal?.aborted === true || !t.hooks.has("Stop")) return;
  const stop = await t.hooks.run({ event: "Stop", input: { stop_hook_active: false }, ...(t.signal === undefined ? {} : { signal: t.signal }) });
  yield* emitRecords(t, stop.records);
}

/** PreCompact before a manual compaction: its records, then the compaction's messages (it cannot block one). */
export async function* hookedCompaction(t: { hooks: SessionHooks; record(m: OmniMessage<"event_msg">): void; compact(): AsyncGenerator<OmniMessage, void>; signal?: AbortSignal }): AsyncGenerator<OmniMessage, void> {
  if (t.hooks.has("PreCompact")) {
    const pre = await t.hooks.run({ event: "PreCompact", input: { trigger: "manual", custom_instructions: "" }, ...(t.signal === undefined ? {} : { signal: t.signal }) });
    for (const r of pre.records) {
      t.record(r);
      yield r;
    }
  }
  yield* t.compact();
}

/** PreCompact before an automatic compaction (the engine's `beforeAutoCompaction`): its records, which the engine writes. */
export function autoPreCompact(hooks: SessionHooks): ((reason: string, signal: AbortSignal) => Promise<readonly OmniMessage<"event_msg">[]>) | undefined {
  if (!hooks.has("PreCompact")) return undefined;
  return async (_reason, signal) => (await hooks.run({ event: "PreCompact", input: { trigger: "auto", custom_instructions: "" }, signal })).records;
}
