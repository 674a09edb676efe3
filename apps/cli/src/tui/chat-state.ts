/**
 * What the terminal UI's parts share once the session is open: the screen, the current
 * Session (slash commands, rewinds and forks replace it), the approval mode, the running task
 * (at most one) and the open approval question (at most one). One plain object, owned by the
 * chat (chat-loop.ts), read and changed by the keys (chat-keys.ts), the task runner
 * (task-runner.ts), the approval question (approval-ask.ts) and the session moves
 * (session-moves.ts), so each of those files holds one concern.
 */
import type { Agent, ApprovalAnswer, Session } from "@penguin/core";
import type { ApprovalMode } from "../session/approvals.js";
import type { ExpandState } from "./blocks.js";
import type { Screen } from "./screen.js";
import type { StreamView } from "./stream-view.js";
import type { TuiTheme } from "./theme.js";

export interface RunningTask {
  controller: AbortController;
  started: number;
  view: StreamView;
}

export interface ChatState {
  readonly agent: Agent;
  readonly screen: Screen;
  readonly theme: TuiTheme;
  /** Shared by every tool block: Ctrl-O and /verbose expand them all. */
  readonly expand: ExpandState;
  readonly sandboxed: boolean;
  session: Session;
  mode: ApprovalMode;
  verbose: boolean;
  task: RunningTask | undefined;
  /** Settles the open approval question. */
  approval: ((answer: ApprovalAnswer) => void) | undefined;
}

/** A one-line note in the transcript. */
export function note(state: Pick<ChatState, "screen">, text: string): void {
  state.screen.note(text);
}
