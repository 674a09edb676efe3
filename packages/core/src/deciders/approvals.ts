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
import { approvalDecision, approvalRequested, approvalRule, modelMessage, settingsChanged, type OmniMessage, type ToolCallPayload } from "@penguin/omnimessage";
import { DENIED_BY_POLICY, DENIED_BY_USER, type SessionState } from "@penguin/trace";
import type { ApprovalResult, ToolPermission } from "../interfaces.js";
import { commandPrefixOf, ruleAllows, SHELL_TOOL } from "../approvals/session-rules.js";
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
  | {
      readonly type: "answer";
      readonly toolCallId: string;
      readonly answer: unknown;
      /** The call asked about: an allow-for-session answer on a shell call takes its command prefix from it. */
      readonly call?: ToolCallPayload;
      readonly at: string;
    }
  | { readonly type: "set_mode"; readonly mode: string; readonly at: string };

/** The state an approval decision reads. */
export type ApprovalFacts = Pick<SessionState, "pendingApprovals" | "settings"> & Partial<Pick<SessionState, "approvalRules">>;

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

/** The host's answer as a decision (a plain result or an ApprovalAnswer object): anything unknown is `deny`. */
export function answerOf(answer: unknown): ApprovalResult {
  const decision = typeof answer === "object" && answer !== null ? Reflect.get(answer, "decision") : answer;
  return decision === "allow" || decision === "deny" || decision === "forbidden" ? decision : "deny";
}

/** The note of a `{ decision: "deny", note }` answer, when it says something. */
function noteOf(answer: unknown): string | undefined {
  if (typeof answer !== "object" || answer === null) return undefined;
  const note: unknown = Reflect.get(answer, "note");
  return typeof note === "string" && note.trim() !== "" ? note.trim() : undefined;
}

/**
 * The rule an allow-for-session answer sets: the tool, and for the shell the program of the
 * call asked about (a call that is no plain command gets no rule: it was allowed once).
 */
function sessionRuleOf(answer: unknown, tool: string, call: ToolCallPayload | undefined): { tool: string; commandPrefix?: string } | undefined {
  if (typeof answer !== "object" || answer === null || typeof Reflect.get(answer, "forSession") !== "object") return undefined;
  if (tool !== SHELL_TOOL) return { tool };
  const prefix = call === undefined ? undefined : commandPrefixOf(call.arguments);
  return prefix === undefined ? undefined : { tool, commandPrefix: prefix };
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
      // A rule the Human set for the session allows at once, unless the mode now denies everything.
      if (state.settings.approvalMode !== "deny-all" && ruleAllows(state.approvalRules ?? [], command.call)) return [approvalDecision("allow", id, { at })];
      if (command.asker === "none") return [approvalDecision("deny", id, { at }), denial(id, DENIED_BY_USER, at)];
      return [approvalRequested({ tool_call_id: id, name: command.call.name }, { at })];
    }
    case "answer": {
      const open = state.pendingApprovals.find((a) => a.toolCallId === command.toolCallId);
      if (open === undefined) return [];
      const decision = answerOf(command.answer);
      const decided = approvalDecision(decision, command.toolCallId, { at });
      if (decision === "allow") {
        const rule = sessionRuleOf(command.answer, open.name, command.call);
        return rule === undefined ? [decided] : [approvalRule({ ...rule, toolCallId: command.toolCallId }, { at }), decided];
      }
      const note = decision === "deny" ? noteOf(command.answer) : undefined;
      const reason = decision === "forbidden" ? DENIED_BY_POLICY : note === undefined ? DENIED_BY_USER : `${DENIED_BY_USER} The user's note: ${note}`;
      return [decided, denial(command.toolCallId, reason, at)];
    }
    case "set_mode":
      return command.mode === state.settings.approvalMode ? [] : [settingsChanged({ approval_mode: command.mode }, { at })];
  }
};
