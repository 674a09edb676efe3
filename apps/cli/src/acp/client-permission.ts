/**
 * Our approvals asked through the editor: the question core's approval mode leaves to the host
 * (`ask`) becomes a `session/request_permission` request. The mode itself stays core's
 * (`approveForMode`: read-only tools run unasked under read-only, and so on), and so does the
 * record: the engine writes the answer as `approval_decision` in the trace, whoever gave it.
 *
 * Options: allow once or reject once. An editor's `cancelled` outcome (the turn was cancelled
 * while it asked), an unknown option id, or a failed request all deny: approvals fail closed.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { ApproveFn } from "@penguin/core";
import { toolCallUpdate } from "./session-updates.js";

export const ALLOW_ONCE = "allow_once";
export const REJECT_ONCE = "reject_once";

const OPTIONS: acp.PermissionOption[] = [
  { optionId: ALLOW_ONCE, name: "Allow", kind: "allow_once" },
  { optionId: REJECT_ONCE, name: "Reject", kind: "reject_once" },
];

export type PermissionRequester = (request: acp.RequestPermissionRequest, signal: AbortSignal | undefined) => Promise<acp.RequestPermissionResponse>;

/** `announced`: resolves once the editor has the call's `tool_call` update (announced-calls.ts); only for the session's own calls. */
export function askThroughClient(sessionId: string, workspace: string, request: PermissionRequester, announced: (toolCallId: string, signal: AbortSignal | undefined) => Promise<void>): ApproveFn {
  return async function askEditor(call, ctx) {
    if (ctx.origin === undefined || ctx.origin.length === 0) await announced(call.tool_call_id, ctx.signal);
    const { sessionUpdate: _kind, ...toolCall } = toolCallUpdate(call, workspace) as acp.ToolCall & { sessionUpdate: "tool_call" };
    let response: acp.RequestPermissionResponse;
    try {
      response = await request({ sessionId, toolCall, options: OPTIONS }, ctx.signal);
    } catch (error) {
      process.stderr.write(`penguin acp: the permission request for ${call.name} failed, denying it: ${error instanceof Error ? error.message : String(error)}\n`);
      return "deny";
    }
    return response.outcome.outcome === "selected" && response.outcome.optionId === ALLOW_ONCE ? "allow" : "deny";
  };
}
