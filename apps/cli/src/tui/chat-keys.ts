/**
 * The keys the chat owns, before the focused component (the editor or an approval panel)
 * sees them: Ctrl-C denies an open question, else aborts the task, else clears the editor,
 * else asks for a second Ctrl-C, which exits (chat/interrupt.ts decides); Esc interrupts the
 * running task, giving steering not yet delivered back to the editor; Ctrl-O expands the
 * tool blocks. Any other key goes on to the component and is drawn at once (`renderNow`),
 * not at the next tick of the render clock a streaming answer keeps busy.
 */
import { interruptAction } from "../chat/interrupt.js";
import { piTui } from "./pi-tui.js";
import { note, type ChatState } from "./chat-state.js";

export class ChatKeys {
  readonly #s: ChatState;
  readonly #exit: () => void;
  #exitArmed: boolean;
  #echoQueued = false;

  constructor(state: ChatState, exit: () => void, exitArmed = false) {
    this.#s = state;
    this.#exit = exit;
    this.#exitArmed = exitArmed;
  }

  /** Any input but Ctrl-C disarms the exit. */
  disarm(): void {
    this.#exitArmed = false;
  }

  key(data: string): { consume: boolean } | undefined {
    const { matchesKey } = piTui();
    const s = this.#s;
    if (matchesKey(data, "ctrl+c")) {
      this.#interrupt();
      return { consume: true };
    }
    if (matchesKey(data, "ctrl+o")) {
      s.expand.expanded = !s.expand.expanded;
      s.screen.tui.requestRender(true);
      return { consume: true };
    }
    if (matchesKey(data, "escape") && s.task !== undefined && s.approval === undefined) {
      this.#escape();
      return { consume: true };
    }
    this.#exitArmed = false;
    // Drawn right after the focused component has handled the key (one frame for a burst of keys).
    if (!this.#echoQueued) {
      this.#echoQueued = true;
      queueMicrotask(() => {
        this.#echoQueued = false;
        s.screen.tui.renderNow();
      });
    }
    return undefined;
  }

  #interrupt(): void {
    const s = this.#s;
    const c = s.theme.c;
    const editor = s.screen.editor;
    switch (interruptAction({ approvalPending: s.approval !== undefined, taskRunning: s.task !== undefined, lineHasText: editor.getText() !== "", exitArmed: this.#exitArmed })) {
      case "deny-approval":
        s.approval?.("deny");
        return;
      case "abort-task":
        note(s, c.yellow("[abort] stopping the task… (Ctrl-C again once it stops to leave)"));
        s.task?.controller.abort();
        return;
      case "clear-line":
        editor.setText("");
        s.screen.tui.requestRender();
        return;
      case "confirm-exit":
        this.#exitArmed = true;
        note(s, c.dim("(press Ctrl-C again to exit, or type /exit)"));
        return;
      case "exit":
        this.#exit();
        return;
    }
  }

  /** Esc during a task: steering not yet delivered goes back to the editor, then the task is aborted. */
  #escape(): void {
    const s = this.#s;
    const task = s.task;
    if (task === undefined || task.controller.signal.aborted) return;
    const recalled: string[] = [];
    for (const q of s.session.pendingSteering()) {
      const text = s.session.recallSteering(q.id);
      if (text !== undefined) recalled.push(text);
    }
    const editor = s.screen.editor;
    if (recalled.length > 0) editor.setText([...recalled, editor.getText()].filter((t) => t !== "").join("\n"));
    note(s, s.theme.c.yellow(`[interrupted] stopping the task…${recalled.length > 0 ? " (your queued steering is back in the editor)" : ""}`));
    task.controller.abort();
  }
}
