/**
 * `penguin run`'s approval question, asked on the terminal (stdin and stderr both TTYs):
 * the call's `[tool-XYZ] name <- …` line, what it writes or runs when that line does not say
 * (approval-detail.ts), then `? Approve this tool call? [Y/n]`
 * (tty-question.ts), then `✓ [approved]` or `✗ [denied]`, all on stderr so stdout keeps
 * only the answer or the JSON Lines.
 */
import type { ApproveFn } from "@penguin/core";
import type { ToolCallPayload } from "@penguin/omnimessage";
import { approvalDetail } from "../render/approval-detail.js";
import type { Output } from "../render/output.js";
import { APPROVAL_QUESTION, askOnTerminal } from "./tty-question.js";

export interface TerminalApprovalDeps {
  err: Output;
  /** Prints the call's line (once) before the question. */
  showCall: (call: ToolCallPayload) => void;
  /** Calls asked here; the renderer skips their approval_decision line. */
  asked: Set<string>;
}

export function terminalApproval(d: TerminalApprovalDeps): ApproveFn {
  return async function askOnTty(call, ctx) {
    d.showCall(call);
    d.asked.add(call.tool_call_id);
    const detail = approvalDetail(call.name, call.arguments);
    if (detail !== undefined) d.err.line(d.err.colors.dim(detail));
    const answer = await askOnTerminal(APPROVAL_QUESTION, ctx.signal);
    d.err.line(answer === "yes" ? d.err.colors.green("✓ [approved]") : d.err.colors.red("✗ [denied]"));
    return answer === "yes" ? "allow" : "deny";
  };
}
