/**
 * What a key press in the composer means. Pure, so the rules are tested without a DOM:
 * - while an IME is composing, nothing (Enter confirms the composition);
 * - with the slash menu open: ↓/↑ move, Enter or Tab pick, Escape closes the menu;
 * - Shift+Enter: a new line (the textarea's own behaviour);
 * - Enter sends; while a task runs, Enter steers it and Alt+Enter queues a follow-up;
 * - Escape never clears the text (a draft is never destroyed by a stray key).
 */
export type ComposerAction = "send" | "steer" | "queue" | "newline" | "menu-next" | "menu-prev" | "menu-pick" | "menu-close" | "none";

export interface KeyInfo {
  key: string;
  shiftKey: boolean;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  isComposing: boolean;
}

export function composerKeyAction(e: KeyInfo, ctx: { running: boolean; menuOpen: boolean }): ComposerAction {
  if (e.isComposing) return "none";
  if (ctx.menuOpen) {
    if (e.key === "ArrowDown") return "menu-next";
    if (e.key === "ArrowUp") return "menu-prev";
    if ((e.key === "Enter" && !e.shiftKey) || e.key === "Tab") return "menu-pick";
    if (e.key === "Escape") return "menu-close";
  }
  if (e.key !== "Enter") return "none";
  if (e.shiftKey) return "newline";
  if (ctx.running) return e.altKey ? "queue" : "steer";
  return "send";
}
