/**
 * `penguin chat` on a terminal once its session is open: the loop over submitted lines, one
 * current Session, at most one running task and at most one open approval question.
 *
 * - A submitted message is a task (task-runner.ts), a slash command (slash-table.ts) or,
 *   while a task runs, steering for it (`session.steer`); a command typed during a task waits
 *   for its end, except /verbose.
 * - Keys are chat-keys.ts's; questions approval-ask.ts's; moving to another session
 *   session-moves.ts's. They share one ChatState (chat-state.ts).
 * - Lines submitted and Ctrl-C pressed while the session was still opening (tui-chat.ts drew
 *   the prompt first) are taken over at the start, in order.
 *
 * All session logic is core's; this file decides which part a submitted line goes to.
 */
import type { Agent, Session } from "@penguin/core";
import { recapLines } from "../chat/recap.js";
import type { SlashHost } from "../chat/slash-actions.js";
import { sanitizeForTerminal } from "../io/sanitize.js";
import { shorten } from "../render/format.js";
import type { ApprovalMode } from "../session/approvals.js";
import { ChatKeys } from "./chat-keys.js";
import { note, type ChatState } from "./chat-state.js";
import { MentionCompletion } from "./file-mentions.js";
import { appendHistory, historyFile, readHistory } from "./input-history.js";
import type { Screen } from "./screen.js";
import { replaceSession, rewindInPlace, switchTo } from "./session-moves.js";
import { findCommand, SLASH_TABLE, type TuiHost } from "./slash-table.js";
import type { StatusSource } from "./status-line.js";
import { TaskRunner } from "./task-runner.js";
import type { TuiTheme } from "./theme.js";
import { contextText, usageText } from "./usage-text.js";

export interface OpenedChat {
  agent: Agent;
  session: Session;
  mode: ApprovalMode;
  verbose: boolean;
  sandboxed: boolean;
}

/** What happened on the screen before the session was open. */
export interface EarlyInput {
  lines: string[];
  exitArmed: boolean;
  exitRequested: boolean;
}

export class TuiChat {
  readonly #s: ChatState;
  readonly #keys: ChatKeys;
  readonly #tasks: TaskRunner;
  readonly #history: string;
  readonly #queue: string[] = [];
  #wake: (() => void) | undefined;
  #exiting = false;

  constructor(screen: Screen, theme: TuiTheme, o: OpenedChat, early: EarlyInput) {
    this.#s = { agent: o.agent, screen, theme, expand: { expanded: false }, sandboxed: o.sandboxed, session: o.session, mode: o.mode, verbose: o.verbose, task: undefined, approval: undefined };
    this.#keys = new ChatKeys(this.#s, () => this.#exit(), early.exitArmed);
    this.#tasks = new TaskRunner(this.#s);
    this.#history = historyFile(o.agent.paths.agentDir, o.session.workspace);
    const { editor, tui, status } = screen;
    for (const entry of readHistory(this.#history)) editor.addToHistory(entry);
    editor.setAutocompleteProvider(new MentionCompletion(o.session.workspace, SLASH_TABLE.map((c) => ({ name: c.name, description: c.description, ...(c.argumentHint === undefined ? {} : { argumentHint: c.argumentHint }) }))));
    editor.onSubmit = (text) => this.#submit(text);
    tui.addInputListener((data) => this.#keys.key(data));
    status.setSource(this.#status());
    this.#banner();
    for (const line of early.lines) this.#submit(line);
    if (early.exitRequested) this.#exit();
    tui.requestRender();
  }

  async run(): Promise<void> {
    const s = this.#s;
    try {
      for (;;) {
        const line = await this.#next();
        if (line === undefined) break;
        this.#keys.disarm();
        if (line.trim().startsWith("/")) {
          const { command, args } = findCommand(line);
          if (command === undefined) note(s, s.theme.c.yellow(`unknown command ${shorten(line.trim().split(/\s+/)[0] ?? "", 30)}; /help lists the commands`));
          else if ((await command.run(this.#host(), args, line.trim())) === "exit") break;
          continue;
        }
        await this.#tasks.run(line);
      }
    } finally {
      this.#tasks.stopTicker();
    }
  }

  /** The session the chat ends in (slash commands may have replaced the first one). */
  get session(): Session {
    return this.#s.session;
  }

  #status(): StatusSource {
    const s = this.#s;
    return {
      taskStarted: () => s.task?.started,
      activity: () => (s.approval !== undefined ? "waiting for your answer" : s.task?.controller.signal.aborted === true ? "interrupting" : "working"),
      details: () => {
        const { tokens, cost } = usageText(s.session);
        return [tokens, cost, contextText(s.session), `approvals ${s.mode}`, `sandbox ${s.sandboxed ? "on" : "off"}`];
      },
    };
  }

  #banner(): void {
    const s = this.#s;
    const c = s.theme.c;
    const session = s.session;
    note(s, `${c.bold("penguin chat")} · ${session.provider}/${session.modelId} · ${session.workspace}`);
    note(s, c.dim(`session ${session.id}${session.resumed ? " (resumed)" : ""} · /help for commands · Esc interrupts · Ctrl-C twice to exit`));
    if (session.resumed) {
      const lines = recapLines(session.paths, session.id);
      if (lines.length > 0) note(s, c.dim(["── the conversation so far ──", ...lines.slice(-20).map(sanitizeForTerminal), "──"].join("\n")));
    }
  }

  /** The next submitted line for the loop; undefined once the chat is exiting. */
  #next(): Promise<string | undefined> {
    return new Promise((resolve) => {
      const take = (): void => {
        if (this.#exiting) return resolve(undefined);
        const line = this.#queue.shift();
        if (line !== undefined) return resolve(line);
        this.#wake = take;
      };
      take();
    });
  }

  #push(line: string): void {
    this.#queue.push(line);
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #exit(): void {
    this.#exiting = true;
    this.#s.task?.controller.abort();
    this.#s.approval?.("deny");
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #submit(text: string): void {
    const s = this.#s;
    const line = text.trim();
    if (line === "") return;
    s.screen.editor.addToHistory(text);
    appendHistory(this.#history, text);
    this.#keys.disarm();
    if (s.task === undefined) return this.#push(text);
    const c = s.theme.c;
    if (line.startsWith("/")) {
      if (findCommand(line).command?.name === "verbose") return this.#toggleVerbose();
      note(s, c.dim(`(${shorten(line, 40)} runs when the task ends; Esc interrupts the task)`));
      return this.#push(text);
    }
    if (s.session.steer(line)) note(s, c.dim(`[steer] queued for the next turn: ${shorten(line, 80)}`));
    else this.#push(text);
  }

  #toggleVerbose(): void {
    const s = this.#s;
    s.verbose = !s.verbose;
    s.expand.expanded = s.verbose;
    note(s, s.theme.c.dim(`verbose ${s.verbose ? "on: tool outputs in full" : "off: long tool outputs collapsed"}`));
  }

  #host(): TuiHost {
    const s = this.#s;
    return {
      out: s.screen.out,
      agent: s.agent,
      session: () => s.session,
      slashHost: () => this.#slashHost(),
      mode: () => s.mode,
      setMode: (mode) => {
        s.mode = mode;
        s.session.setApprovalMode(mode);
      },
      switchTo: (id, why) => switchTo(s, id, why),
    };
  }

  #slashHost(): SlashHost {
    const s = this.#s;
    return {
      out: s.screen.out,
      session: s.session,
      toggleVerbose: () => this.#toggleVerbose(),
      replaceSession: (ref) => replaceSession(s, ref),
      compact: () => this.#tasks.compact(),
      goal: (objective, budget) => this.#tasks.run(objective, { budget }),
      rewind: (target, force) => rewindInPlace(s, target, force),
    };
  }
}
