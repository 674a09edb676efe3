/**
 * The approvals decider: what a proposed tool call, a host's answer and an approval-mode
 * change append to the session.
 *
 * - `propose`: a command-policy hit is `forbidden` at once (the Human is not asked); without
 *   an asker (no ApproveFn) the call is denied; otherwise the question is recorded
 *   (`approval_requested`) and stays open in the fold until answered (an abort drops it).
 * - `answer`: the host's answer to an open question becomes `approval_decision`, and a refusal
 *   also the call's output (`[denied …]`), so the model hears why. An answer to a question the
 *   fold does not hold open (never asked, already answered, dropped by an abort) appends
 *   nothing. Anything but allow/deny/forbidden counts as deny.
 * - `set_mode`: a mode other than the one the trace last recorded is `settings_changed`; the
 *   same mode again is nothing.
 *
 * `modeVerdict` is the approval modes' rule (modes.ts turns it into an ApproveFn): the one
 * place a mode and a tool's permission say allow, deny or ask.
 */
import { approvalDecision, approvalRequested, modelMessage, settingsChanged, type OmniMessage, type ToolCallPayload } from "@penguin/omnimessage";
import { DENIED_BY_POLICY, DENIED_BY_USER, type SessionState } from "@penguin/trace";
import type { ApprovalResult, ToolPermission } from "../interfaces.js";
import type { Decider } from "./decider.js";

export type ApprovalCommand =
  | {
      readonly type: "propose";
      readonly call: ToolCallPayload;
      /** The command policy's rule the call hits, if any. */
      readonly policyRule?: string | undefined;
      /** `host`: an ApproveFn will be asked; `none`: nobody can answer. */
      readonly asker: "host" | "none";
      readonly at: string;
    }
  | { readonly type: "answer"; readonly toolCallId: string; readonly answer: unknown; readonly at: string }
  | { readonly type: "set_mode"; readonly mode: string; readonly at: string };

/** The state an approval decision reads. */
export type ApprovalFacts = Pick<SessionState, "pendingApprovals" | "settings">;

/** What a mode says of a tool with `permission`: run it, refuse it, or ask the Human. */
export type ModeVerdict = "allow" | "deny" | "ask";

/**
 * allow-all: allow; deny-all: deny; read-only: allow `r` tools, ask the rest; always-ask (and
 * anything else): ask. The tool's permission is looked up only when the mode needs it.
 */
export function modeVerdict(mode: string, permission: () => ToolPermission): ModeVerdict {
  if (mode === "allow-all") return "allow";
  if (mode === "deny-all") return "deny";
  if (mode === "read-only" && permission() === "r") return "allow";
  return "ask";
}

/** The host's answer as a decision: anything unknown is `deny`. */
export function answerOf(answer: unknown): ApprovalResult {
  return answer === "allow" || answer === "deny" || answer === "forbidden" ? answer : "deny";
}

function denial(toolCallId: string, output: string, at: string): OmniMessage {
  return modelMessage({ type: "tool_call_output", role: "user", tool_call_id: toolCallId, output, stop_reason: "aborted" }, { at });
}

function isOpen(state: ApprovalFacts, toolCallId: string): boolean {
  return state.pendingApprovals.some((a) => a.toolCallId === toolCallId);
}

export const decideApproval: Decider<ApprovalCommand, ApprovalFacts> = (state, command) => {
  const at = command.at;
  switch (command.type) {
    case "propose": {
      const id = command.call.tool_call_id;
      if (command.policyRule !== undefined) return [approvalDecision("forbidden", id, { policyRule: command.policyRule, at }), denial(id, DENIED_BY_POLICY, at)];
      if (command.asker === "none") return [approvalDecision("deny", id, { at }), denial(id, DENIED_BY_USER, at)];
      return [approvalRequested({ tool_call_id: id, name: command.call.name }, { at })];
    }
    case "answer": {
      if (!isOpen(state, command.toolCallId)) return [];
      const decision = answerOf(command.answer);
      const decided = approvalDecision(decision, command.toolCallId, { at });
      if (decision === "allow") return [decided];
      return [decided, denial(command.toolCallId, decision === "forbidden" ? DENIED_BY_POLICY : DENIED_BY_USER, at)];
    }
    case "set_mode":
      return command.mode === state.settings.approvalMode ? [] : [settingsChanged({ approval_mode: command.mode }, { at })];
  }
};
