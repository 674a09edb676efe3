/**
 * `penguin chat` as a terminal UI (stdin and stdout both terminals): the state machine over
 * one current Session, at most one running task and at most one open approval question.
 *
 * - A submitted message is a task (its @-mentions attached: file-mentions.ts), a slash command
 *   (slash-table.ts) or, while a task runs, steering for it (`session.steer`); a command typed
 *   during a task waits for its end, except /verbose.
 * - A task streams into the transcript (stream-view.ts) with the status line's spinner, and ends
 *   with its outcome (if it did not finish) and the `[stats]` line, as in the line chat.
 * - A call the approval mode asks about opens an ApprovalPanel; its answer is core's
 *   ApprovalAnswer (allow once / for the session / deny / deny with a note).
 * - Keys: Esc interrupts the running task, giving steering not yet delivered back to the
 *   editor; Ctrl-C denies an open question, else aborts the task, else clears the editor, else
 *   asks for a second Ctrl-C, which exits; Ctrl-O expands the tool blocks.
 *
 * All session logic is core's; this class decides what is shown and which SDK call a key means.
 */
import type { Agent, ApprovalAnswer, ApproveFn, Session } from "@penguin/core";
import { modelMessage, userText, type OmniMessage } from "@penguin/omnimessage";
import { describeError } from "../cli-error.js";
import { recapLines } from "../chat/recap.js";
import type { SlashHost } from "../chat/slash-actions.js";
import { interruptAction } from "../chat/interrupt.js";
import { colorsFor } from "../io/colors.js";
import { sanitizeForTerminal } from "../io/sanitize.js";
import type { RewindTarget } from "../chat/rewind-hook.js";
import { shorten } from "../render/format.js";
import { taskStatsLine, TaskStats } from "../render/stats.js";
import { approvalFor, type ApprovalMode } from "../session/approvals.js";
import { endpointBaseUrl } from "../session/open-session.js";
import { OutcomeTracker } from "../session/outcome.js";
import { describeOutcome } from "../session/outcome-message.js";
import { recordTitleOnce } from "../session/session-title.js";
import { ApprovalPanel } from "./approval-panel.js";
import { loadPiTui, piTui } from "./pi-tui.js";
import type { ExpandState } from "./blocks.js";
import { MentionCompletion, readMentions, textWithAttachments } from "./file-mentions.js";
import { appendHistory, historyFile, readHistory } from "./input-history.js";
import { buildScreen, type Screen } from "./screen.js";
import { findCommand, SLASH_TABLE, type TuiHost } from "./slash-table.js";
import { StreamView } from "./stream-view.js";
import { tuiTheme, type TuiTheme } from "./theme.js";

export interface TuiChatOptions {
  agent: Agent;
  session: Session;
  mode: ApprovalMode;
  verbose: boolean;
  sandboxed: boolean;
}

interface RunningTask {
  controller: AbortController;
  started: number;
  view: StreamView;
}

export class TuiChat {
  readonly #o: TuiChatOptions;
  readonly #theme: TuiTheme;
  readonly #screen: Screen;
  readonly #expand: ExpandState = { expanded: false };
  readonly #history: string;
  readonly #queue: string[] = [];
  #wake: (() => void) | undefined;
  #session: Session;
  #mode: ApprovalMode;
  #verbose: boolean;
  #task: RunningTask | undefined;
  #approval: ((answer: ApprovalAnswer) => void) | undefined;
  #exitArmed = false;
  #exiting = false;
  #ticker: ReturnType<typeof setInterval> | undefined;

  constructor(o: TuiChatOptions) {
    this.#o = o;
    this.#session = o.session;
    this.#mode = o.mode;
    this.#verbose = o.verbose;
    this.#theme = tuiTheme(colorsFor(process.stdout));
    this.#screen = buildScreen(this.#theme, {
      session: () => this.#session,
      taskStarted: () => this.#task?.started,
      activity: () => (this.#approval !== undefined ? "waiting for your answer" : this.#task?.controller.signal.aborted === true ? "interrupting" : "working"),
      mode: () => this.#mode,
      sandboxed: () => o.sandboxed,
    });
    this.#history = historyFile(o.agent.paths.agentDir, o.session.workspace);
    const { editor, tui } = this.#screen;
    for (const entry of readHistory(this.#history)) editor.addToHistory(entry);
    editor.setAutocompleteProvider(new MentionCompletion(o.session.workspace, SLASH_TABLE.map((c) => ({ name: c.name, description: c.description, ...(c.argumentHint === undefined ? {} : { argumentHint: c.argumentHint }) }))));
    editor.onSubmit = (text) => this.#submit(text);
    tui.addInputListener((data) => this.#key(data));
  }

  async run(): Promise<void> {
    this.#screen.tui.start();
    this.#banner();
    try {
      for (;;) {
        const line = await this.#next();
        if (line === undefined) break;
        this.#exitArmed = false;
        if (line.trim().startsWith("/")) {
          const { command, args } = findCommand(line);
          if (command === undefined) this.#note(this.#c.yellow(`unknown command ${shorten(line.trim().split(/\s+/)[0] ?? "", 30)}; /help lists the commands`));
          else if ((await command.run(this.#host(), args, line.trim())) === "exit") break;
          continue;
        }
        await this.#runTask(line);
      }
    } finally {
      this.#stopTicker();
      drawNow(this.#screen.tui);
      this.#screen.tui.stop();
      const session = this.#session;
      await session.dispose();
      process.stdout.write(`penguin chat --resume ${session.id}\n`);
    }
  }

  get #c(): TuiTheme["c"] {
    return this.#theme.c;
  }

  #note(text: string): void {
    this.#screen.note(text);
  }

  #banner(): void {
    const c = this.#c;
    const s = this.#session;
    this.#note(`${c.bold("penguin chat")} · ${s.provider}/${s.modelId} · ${s.workspace}`);
    this.#note(c.dim(`session ${s.id}${s.resumed ? " (resumed)" : ""} · /help for commands · Esc interrupts · Ctrl-C twice to exit`));
    if (s.resumed) {
      const lines = recapLines(s.paths, s.id);
      if (lines.length > 0) this.#note(c.dim(["── the conversation so far ──", ...lines.slice(-20).map(sanitizeForTerminal), "──"].join("\n")));
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
    this.#task?.controller.abort();
    this.#approval?.("deny");
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #submit(text: string): void {
    const line = text.trim();
    if (line === "") return;
    this.#screen.editor.addToHistory(text);
    appendHistory(this.#history, text);
    this.#exitArmed = false;
    if (this.#task === undefined) return this.#push(text);
    const c = this.#c;
    if (line.startsWith("/")) {
      if (findCommand(line).command?.name === "verbose") return this.#toggleVerbose();
      this.#note(c.dim(`(${shorten(line, 40)} runs when the task ends; Esc interrupts the task)`));
      return this.#push(text);
    }
    if (this.#session.steer(line)) this.#note(c.dim(`[steer] queued for the next turn: ${shorten(line, 80)}`));
    else this.#push(text);
  }

  /** Keys the chat owns; the rest go to the focused component (the editor or the approval panel). */
  #key(data: string): { consume: boolean } | undefined {
    const { matchesKey } = piTui();
    if (matchesKey(data, "ctrl+c")) {
      this.#interrupt();
      return { consume: true };
    }
    if (matchesKey(data, "ctrl+o")) {
      this.#expand.expanded = !this.#expand.expanded;
      this.#screen.tui.requestRender(true);
      return { consume: true };
    }
    if (matchesKey(data, "escape") && this.#task !== undefined && this.#approval === undefined) {
      this.#escape();
      return { consume: true };
    }
    this.#exitArmed = false;
    // The key is echoed at once, not at the next frame of the 16 ms render clock a streaming
    // answer keeps busy: drawn right after the focused component has handled it.
    queueMicrotask(() => drawNow(this.#screen.tui));
    return undefined;
  }

  #interrupt(): void {
    const c = this.#c;
    const editor = this.#screen.editor;
    switch (interruptAction({ approvalPending: this.#approval !== undefined, taskRunning: this.#task !== undefined, lineHasText: editor.getText() !== "", exitArmed: this.#exitArmed })) {
      case "deny-approval":
        this.#approval?.("deny");
        return;
      case "abort-task":
        this.#note(c.yellow("[abort] stopping the task… (Ctrl-C again once it stops to leave)"));
        this.#task?.controller.abort();
        return;
      case "clear-line":
        editor.setText("");
        this.#screen.tui.requestRender();
        return;
      case "confirm-exit":
        this.#exitArmed = true;
        this.#note(c.dim("(press Ctrl-C again to exit, or type /exit)"));
        return;
      case "exit":
        this.#exit();
        return;
    }
  }

  /** Esc during a task: steering not yet delivered goes back to the editor, then the task is aborted. */
  #escape(): void {
    const task = this.#task;
    if (task === undefined || task.controller.signal.aborted) return;
    const recalled: string[] = [];
    for (const q of this.#session.pendingSteering()) {
      const text = this.#session.recallSteering(q.id);
      if (text !== undefined) recalled.push(text);
    }
    const editor = this.#screen.editor;
    if (recalled.length > 0) editor.setText([...recalled, editor.getText()].filter((t) => t !== "").join("\n"));
    this.#note(this.#c.yellow(`[interrupted] stopping the task…${recalled.length > 0 ? " (your queued steering is back in the editor)" : ""}`));
    task.controller.abort();
  }

  #startTicker(): void {
    this.#ticker ??= setInterval(() => this.#screen.tui.requestRender(), 80);
  }

  #stopTicker(): void {
    if (this.#ticker !== undefined) clearInterval(this.#ticker);
    this.#ticker = undefined;
  }

  #ask(view: StreamView): ApproveFn {
    return (call, ctx) =>
      new Promise<ApprovalAnswer>((resolve) => {
        const { approvalSlot, tui, editor } = this.#screen;
        const block = view.toolCall(call);
        block.asking();
        const c = this.#c;
        const settle = (answer: ApprovalAnswer): void => {
          if (this.#approval !== settle) return;
          this.#approval = undefined;
          ctx.signal?.removeEventListener("abort", onAbort);
          approvalSlot.clear();
          tui.setFocus(editor);
          this.#note(describeAnswer(answer, c));
          if (answer === "allow" || (typeof answer === "object" && answer.decision === "allow")) block.allowed();
          resolve(answer);
        };
        const onAbort = (): void => settle("deny");
        const panel = new ApprovalPanel(call, this.#session.workspace, c, settle);
        this.#approval = settle;
        ctx.signal?.addEventListener("abort", onAbort, { once: true });
        approvalSlot.addChild(panel);
        tui.setFocus(panel);
        tui.requestRender();
      });
  }

  #messages(text: string): OmniMessage[] | string {
    const attachments = readMentions(text, this.#session.workspace);
    const c = this.#c;
    this.#note(`${c.cyan("›")} ${sanitizeForTerminal(text)}`);
    for (const a of attachments) {
      if (a.kind === "text") this.#note(c.dim(`  [attached] ${a.path} (${a.content.split("\n").length} lines)`));
      else if (a.kind === "image") this.#note(c.dim(`  [attached image] ${a.path} (${a.mimeType})`));
      else this.#note(c.yellow(`  [not attached] ${a.path}: ${a.why}`));
    }
    const images = attachments.flatMap((a) => (a.kind === "image" ? [modelMessage({ type: "inline_data", role: "user", data: a.base64, mime_type: a.mimeType })] : []));
    const full = textWithAttachments(text, attachments);
    return images.length === 0 ? full : [userText(full), ...images];
  }

  async #runTask(text: string, goal?: { budget: string | undefined }): Promise<void> {
    const session = this.#session;
    const c = this.#c;
    const messages = this.#messages(text);
    const view = this.#view();
    const controller = new AbortController();
    this.#task = { controller, started: performance.now(), view };
    this.#startTicker();
    const approve = approvalFor(this.#mode, session, this.#ask(view));
    const outcome = new OutcomeTracker(() => controller.signal.aborted);
    const stats = new TaskStats();
    try {
      const options = { approve, signal: controller.signal, ...(goal === undefined ? {} : { goal: goal.budget === undefined ? {} : { budget: goal.budget } }) };
      await recordTitleOnce(session, text);
      await this.#drain(session.run(messages, options), view, [outcome, stats]);
    } catch (error) {
      this.#note(c.red(`error: ${(await describeError(error)).message}`));
    } finally {
      view.finish();
    }
    const result = outcome.outcome;
    if (result.kind !== "done") {
      const baseUrl = result.kind === "aborted" ? undefined : await endpointBaseUrl(this.#o.agent, session);
      const message = describeOutcome(result, { provider: session.provider, modelId: session.modelId, baseUrl });
      if (message !== undefined) this.#note(result.kind === "aborted" ? c.yellow(message) : c.red(message));
    }
    this.#note(taskStatsLine(stats, session, this.#task.started, c));
    this.#task = undefined;
    this.#stopTicker();
    this.#screen.tui.requestRender();
  }

  #view(): StreamView {
    return new StreamView({ transcript: this.#screen.transcript, theme: this.#theme, expand: this.#expand, workspace: this.#session.workspace, note: (t) => this.#note(t) });
  }

  async #drain(stream: AsyncGenerator<OmniMessage, void>, view: StreamView, observers: Array<{ observe(m: OmniMessage): void }>): Promise<void> {
    for await (const m of stream) {
      for (const o of observers) o.observe(m);
      view.handle(m);
      this.#screen.tui.requestRender();
    }
  }

  #toggleVerbose(): void {
    this.#verbose = !this.#verbose;
    this.#expand.expanded = this.#verbose;
    this.#note(this.#c.dim(`verbose ${this.#verbose ? "on: tool outputs in full" : "off: long tool outputs collapsed"}`));
  }

  #host(): TuiHost {
    return {
      out: this.#screen.out,
      agent: this.#o.agent,
      session: () => this.#session,
      slashHost: () => this.#slashHost(),
      mode: () => this.#mode,
      setMode: (mode) => {
        this.#mode = mode;
        this.#session.setApprovalMode(mode);
      },
      switchTo: (id, why) => this.#switchTo(id, why),
    };
  }

  #slashHost(): SlashHost {
    return {
      out: this.#screen.out,
      session: this.#session,
      toggleVerbose: () => this.#toggleVerbose(),
      replaceSession: (ref) => this.#replaceSession(ref),
      compact: () => this.#compact(),
      goal: (objective, budget) => this.#runTask(objective, { budget }),
      rewind: (target, force) => this.#rewind(target, force),
    };
  }

  /** `/undo`, `/rewind N`: rewinds in place through the chat's rewind hook and goes on in the rewound session. */
  async #rewind(target: RewindTarget, force: boolean): Promise<void> {
    const c = this.#c;
    const { rewindOpenSession, rewindSummary } = await import("../chat/rewind-hook.js");
    try {
      const { session, result } = await rewindOpenSession(this.#o.agent, this.#session, target, { force });
      this.#session = session;
      session.setApprovalMode(this.#mode);
      this.#note(c.dim(rewindSummary(session.id, result).map(sanitizeForTerminal).join("\n")));
    } catch (error) {
      const again: unknown = Object(error).session;
      if (again !== undefined) this.#session = again as Session;
      this.#note(c.red(`error: ${(await describeError(error)).message}`));
    }
  }

  async #leave(old: Session): Promise<void> {
    await old.dispose();
    this.#note(this.#c.dim(`[session] left ${old.id}; resume it with: penguin chat --resume ${old.id}`));
  }

  async #switchTo(sessionId: string, why: string): Promise<void> {
    const next = await this.#o.agent.resumeSession({ sessionId });
    await this.#leave(this.#session);
    this.#session = next;
    this.#note(this.#c.dim(`[session] ${why}: now in ${next.id} · ${next.provider}/${next.modelId}`));
  }

  async #replaceSession(ref: { provider: string; modelId: string }): Promise<void> {
    const old = this.#session;
    let next: Session;
    try {
      next = await this.#o.agent.createSession({ workspaceDir: old.workspace, provider: ref.provider, modelId: ref.modelId, thinkingLevel: old.thinkingLevel, approvalMode: this.#mode });
    } catch (error) {
      this.#note(this.#c.red(`error: ${(await describeError(error)).message}`));
      return;
    }
    await this.#leave(old);
    this.#session = next;
    this.#note(this.#c.dim(`[session] new session ${next.id} · ${next.provider}/${next.modelId} · ${next.workspace}`));
  }

  async #compact(): Promise<void> {
    const session = this.#session;
    const state = session.compactability();
    if (state !== "ok") return this.#note(this.#c.dim(`[compact] ${state === "empty" ? "there is nothing to compact yet" : "the context was just compacted"}`));
    const view = this.#view();
    const controller = new AbortController();
    this.#task = { controller, started: performance.now(), view };
    this.#startTicker();
    const stats = new TaskStats();
    try {
      await this.#drain(session.compact({ signal: controller.signal }), view, [stats]);
    } catch (error) {
      this.#note(this.#c.red(`error: ${(await describeError(error)).message}`));
    } finally {
      view.finish();
    }
    this.#note(taskStatsLine(stats, session, this.#task.started, this.#c));
    this.#task = undefined;
    this.#stopTicker();
  }
}

function describeAnswer(answer: ApprovalAnswer, c: TuiTheme["c"]): string {
  if (answer === "allow") return c.green("✓ [approved] once");
  if (answer === "deny" || answer === "forbidden") return c.red("✗ [denied]");
  if (answer.decision === "allow") return c.green("✓ [approved] for the rest of the session");
  return c.red(`✗ [denied] with a note: ${shorten(sanitizeForTerminal(answer.note), 120)}`);
}

/**
 * Draws the pending frame at once. pi-tui draws on a timer (at most one frame per 16 ms) and
 * stop() drops a frame still waiting, so the last lines (a task's stats) would be lost on exit.
 */
function drawNow(tui: Screen["tui"]): void {
  const internal: { doRender?: () => void } = Object(tui);
  internal.doRender?.();
}

export async function runTuiChat(o: TuiChatOptions): Promise<void> {
  await loadPiTui();
  await new TuiChat(o).run();
}
