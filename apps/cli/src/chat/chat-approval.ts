/**
 * The chat's approval question, as the `ask` of core's approval modes:
 *
 *   [tool-XYZ] name <- $ cmd
 *     (what it writes or runs, when the line above does not say: approval-detail.ts)
 *   ? Approve this tool call? [Y/n]
 *
 * The answer is the next line the user gives (line-source.ts): Enter or y approves and
 * prints `✓ [approved]`; n, end of input or Ctrl-C (which cancels the question through
 * `pending`) deny and print `✗ [denied]`. An abort of the task settles the question too.
 * With piped input the answer line is echoed, since no terminal shows it.
 */
import type { ApproveFn } from "@penguin/core";
import { approvalDetail } from "../render/approval-detail.js";
import type { HumanRenderer } from "../render/human-renderer.js";
import type { Output } from "../render/output.js";
import type { WaitIndicator } from "../render/spinner.js";
import { APPROVAL_QUESTION, parseYesNo, type YesNo } from "../session/tty-question.js";
import type { LineSource } from "./line-source.js";

export interface ChatApprovalDeps {
  out: Output;
  interactive: boolean;
  lines: LineSource;
  renderer: HumanRenderer;
  waiting: WaitIndicator;
  /** Calls asked here; the renderer skips their approval_decision line. */
  asked: Set<string>;
  /** Shows a prompt on the terminal (interactive chats). */
  prompt: (text: string) => void;
  /** Receives the question's canceller while it is open, then undefined. */
  pending: (cancel: AbortController | undefined) => void;
}

export function chatApproval(d: ChatApprovalDeps): ApproveFn {
  return async function askInChat(call, ctx) {
    const c = d.out.colors;
    d.waiting.stop();
    d.renderer.toolCall(call);
    d.asked.add(call.tool_call_id);
    const detail = approvalDetail(call.name, call.arguments);
    if (detail !== undefined) d.out.line(c.dim(detail));
    const cancel = new AbortController();
    const onAbort = (): void => cancel.abort();
    ctx.signal?.addEventListener("abort", onAbort, { once: true });
    d.pending(cancel);
    try {
      if (d.interactive) d.prompt(APPROVAL_QUESTION);
      else d.out.write(APPROVAL_QUESTION);
      const next = await d.lines.next(cancel.signal);
      let answer: YesNo = "no";
      if (next.kind === "line") {
        answer = parseYesNo(next.text);
        if (!d.interactive) d.out.write(`${next.text}\n`);
      } else {
        d.out.write(next.kind === "eof" ? "(end of input)\n" : "^C\n");
      }
      d.out.line(answer === "yes" ? c.green("✓ [approved]") : c.red("✗ [denied]"));
      return answer === "yes" ? "allow" : "deny";
    } finally {
      d.pending(undefined);
      ctx.signal?.removeEventListener("abort", onAbort);
    }
  };
}
