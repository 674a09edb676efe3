/**
 * A tool call the approval mode asks about, as a question on the screen: the call's block
 * shows it waits, an ApprovalPanel (the command, or the diff a write would make, and the
 * four choices) takes the focus, and its answer (core's ApprovalAnswer: allow once, for the
 * session, deny, deny with a note) settles the question. Aborting the task denies it.
 */
import type { ApprovalAnswer, ApproveFn } from "@penguin/core";
import { sanitizeForTerminal } from "../io/sanitize.js";
import { shorten } from "../render/format.js";
import { ApprovalPanel } from "./approval-panel.js";
import { note, type ChatState } from "./chat-state.js";
import type { StreamView } from "./stream-view.js";
import type { TuiTheme } from "./theme.js";

export function askOnScreen(state: ChatState, view: StreamView): ApproveFn {
  return (call, ctx) =>
    new Promise<ApprovalAnswer>((resolve) => {
      const { approvalSlot, tui, editor } = state.screen;
      const block = view.toolCall(call);
      block.asking();
      const c = state.theme.c;
      const settle = (answer: ApprovalAnswer): void => {
        if (state.approval !== settle) return;
        state.approval = undefined;
        ctx.signal?.removeEventListener("abort", onAbort);
        approvalSlot.clear();
        tui.setFocus(editor);
        note(state, describeAnswer(answer, c));
        if (answer === "allow" || (typeof answer === "object" && answer.decision === "allow")) block.allowed();
        resolve(answer);
      };
      const onAbort = (): void => settle("deny");
      const panel = new ApprovalPanel(call, state.session.workspace, c, settle);
      state.approval = settle;
      ctx.signal?.addEventListener("abort", onAbort, { once: true });
      approvalSlot.addChild(panel);
      tui.setFocus(panel);
      tui.requestRender();
    });
}

function describeAnswer(answer: ApprovalAnswer, c: TuiTheme["c"]): string {
  if (answer === "allow") return c.green("✓ [approved] once");
  if (answer === "deny" || answer === "forbidden") return c.red("✗ [denied]");
  if (answer.decision === "allow") return c.green("✓ [approved] for the rest of the session");
  return c.red(`✗ [denied] with a note: ${shorten(sanitizeForTerminal(answer.note), 120)}`);
}
