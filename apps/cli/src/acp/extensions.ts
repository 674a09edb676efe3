/**
 * Our extras over ACP, as extension methods (ACP reserves names starting with `_` for them)
 * and declared in `initialize`'s `agentCapabilities._meta.penguin`, so an editor that knows
 * PenguinHarness can find them and any other ignores them:
 *
 *   _penguin/inspect {sessionId, at?}    the session's state after record `at` (time travel,
 *                                        as `penguin inspect SID --at N --json` prints it)
 *   _penguin/fork    {sessionId, at}     a new session from the state at record `at`
 *                                        (`penguin fork`); load or resume it to go on
 *   _penguin/replay  {sessionId, tools?} re-execute the session through the engine and compare
 *                                        (`penguin replay`): identical, or where it diverged;
 *                                        tools "recorded" (default: nothing runs again) or "rerun"
 *
 * `at` is a record number (1, 2, …) or a position `NNN:LLLLLL`. Each parser names the field
 * that is wrong and what it takes.
 */
import type { Agent } from "@penguin/core";

export const EXTENSION_METHODS = { inspect: "_penguin/inspect", fork: "_penguin/fork", replay: "_penguin/replay" } as const;

/** Bad extension params: the connection answers them as `invalid params` with this message. */
export class InvalidExtensionParams extends Error {}

function record(params: unknown, method: string): Record<string, unknown> {
  if (typeof params !== "object" || params === null || Array.isArray(params)) throw new InvalidExtensionParams(`${method} takes an object of params, e.g. {"sessionId": "session-…"}`);
  return params as Record<string, unknown>;
}

function sessionIdOf(p: Record<string, unknown>, method: string): string {
  if (typeof p.sessionId !== "string" || p.sessionId === "") throw new InvalidExtensionParams(`${method} needs "sessionId": the id of a session (session/list gives them)`);
  return p.sessionId;
}

function atOf(p: Record<string, unknown>, method: string, required: boolean): number | string | undefined {
  const at = p.at;
  if (at === undefined && !required) return undefined;
  if (typeof at === "number" && Number.isInteger(at) && at >= 1) return at;
  if (typeof at === "string" && /^\d+:\d+$/.test(at)) return at;
  throw new InvalidExtensionParams(`${method} needs "at": a record number (1, 2, …) or a position "NNN:LLLLLL", not ${JSON.stringify(at)}`);
}

export interface InspectParams {
  sessionId: string;
  at?: number | string;
}

export function parseInspect(params: unknown): InspectParams {
  const p = record(params, EXTENSION_METHODS.inspect);
  const at = atOf(p, EXTENSION_METHODS.inspect, false);
  return { sessionId: sessionIdOf(p, EXTENSION_METHODS.inspect), ...(at === undefined ? {} : { at }) };
}

export function parseFork(params: unknown): { sessionId: string; at: number | string } {
  const p = record(params, EXTENSION_METHODS.fork);
  return { sessionId: sessionIdOf(p, EXTENSION_METHODS.fork), at: atOf(p, EXTENSION_METHODS.fork, true)! };
}

export function parseReplay(params: unknown): { sessionId: string; tools: "rerun" | "recorded" } {
  const p = record(params, EXTENSION_METHODS.replay);
  const tools = p.tools ?? "recorded";
  if (tools !== "rerun" && tools !== "recorded") throw new InvalidExtensionParams(`${EXTENSION_METHODS.replay} takes "tools": "recorded" (default: answer tools from the recording) or "rerun" (run them again in a copy of the workspace)`);
  return { sessionId: sessionIdOf(p, EXTENSION_METHODS.replay), tools };
}

export async function inspectAt(agent: Agent, params: InspectParams): Promise<Record<string, unknown>> {
  const state = await agent.inspectState(params);
  return { state: JSON.parse(JSON.stringify(state)) as unknown };
}

export async function forkAt(agent: Agent, params: { sessionId: string; at: number | string }): Promise<Record<string, unknown>> {
  const forkId = await agent.forkSession({ ...params, client: "acp" });
  const state = await agent.inspectState({ sessionId: forkId });
  return { sessionId: forkId, forkedFrom: params.sessionId, at: state.settings.forkedFrom?.at ?? null };
}

export async function replaySession(agent: Agent, params: { sessionId: string; tools: "rerun" | "recorded" }): Promise<Record<string, unknown>> {
  const report = await agent.replay({ sessionId: params.sessionId, tools: params.tools, client: "acp" });
  return { sessionId: report.sessionId, replayOf: report.replayOf, tools: report.tools, identical: report.verdict.identical, summary: report.summary };
}
