/**
 * The chat REPL's state machine: one current Session, at most one running task, at most one
 * pending approval, and the Ctrl-C ladder over them (interrupt.ts).
 *
 * - A line is a task, a slash command (parsed by slash-commands.ts, run by slash-actions.ts)
 *   or, while a task runs in an interactive chat, steering for it (`session.steer`); the
 *   routing of lines is line-source.ts.
 * - Each task streams through a HumanRenderer and ends with the outcome line (if it did not
 *   finish) and the stats line.
 * - `always-ask` (and `read-only` for writing tools) asks `? Approve this tool call? [Y/n]`
 *   (chat-approval.ts); Ctrl-C while it is open denies the call.
 * - `/clear` and `/model p/m` replace the session; the one left behind is disposed and its
 *   resume command printed, as is the current one's when the chat ends.
 *
 * All session logic is core's: this class only decides what to show and which SDK call a
 * keystroke means.
 */
import { projectInstructionsLine } from "../session/instructions-line.js";
import { printRecap } from "./recap.js";
import { existsSync } from "node:fs";
import type { Interface } from "node:readline";
import type { Agent, ApproveFn, Session } from "@penguin/core";
import type { OmniMessage } from "@penguin/omnimessage";
import { describeError } from "../cli-error.js";
import { sanitizeForTerminal } from "../io/sanitize.js";
import type { RewindTarget } from "./rewind-hook.js";
import { HumanRenderer } from "../render/human-renderer.js";
import { shorten } from "../render/format.js";
import type { RenderMarkdown } from "../render/markdown-blocks.js";
import type { Output } from "../render/output.js";
import { createWaitIndicator } from "../render/spinner.js";
import { taskStatsLine, TaskStats } from "../render/stats.js";
import { recordTitleOnce } from "../session/session-title.js";
import { approvalFor, type ApprovalMode } from "../session/approvals.js";
import { endpointBaseUrl } from "../session/open-session.js";
import { OutcomeTracker } from "../session/outcome.js";
import { describeOutcome } from "../session/outcome-message.js";
import { chatApproval } from "./chat-approval.js";
import { interruptAction } from "./interrupt.js";
import { LineSource } from "./line-source.js";
import { parseSlash } from "./slash-commands.js";
import { runSlash, type SlashHost } from "./slash-actions.js";

export interface ChatOptions {
  agent: Agent;
  session: Session;
  mode: ApprovalMode;
  verbose: boolean;
  /** stdin is a terminal: prompts are shown and typing during a task steers it. */
  interactive: boolean;
  /** Answers a call the mode would ask about instead of asking (a piped chat without `--approve`). */
  unasked?: ApproveFn;
  out: Output;
  markdown: RenderMarkdown | undefined;
  rl: Interface;
}

const PROMPT = "› ";

export class Chat {
  readonly #o: ChatOptions;
  readonly #lines: LineSource;
  #session: Session;
  #verbose: boolean;
  #task: AbortController | undefined;
  #approval: AbortController | undefined;
  #exitArmed = false;

  constructor(options: ChatOptions) {
    this.#o = options;
    this.#session = options.session;
    this.#verbose = options.verbose;
    this.#lines = new LineSource(options.rl);
  }

  async loop(): Promise<void> {
    this.#banner();
    for (;;) {
      this.#prompt(PROMPT);
      const next = await this.#lines.next();
      if (next.kind !== "line") break;
      const text = next.text.trim();
      if (text === "") continue;
      // Piped input is not echoed by a terminal: show it, so the transcript reads as a dialogue.
      if (!this.#o.interactive) this.#o.out.line(this.#o.out.colors.dim(`${PROMPT}${text}`));
      this.#exitArmed = false;
      if (text.startsWith("/")) {
        if ((await runSlash(parseSlash(text), this.#slashHost())) === "exit") break;
        continue;
      }
      await this.#runTask(next.text);
    }
  }

  /** Ctrl-C: the ladder of interrupt.ts. */
  interrupt(): void {
    const { out, rl, interactive } = this.#o;
    const c = out.colors;
    const action = interruptAction({
      approvalPending: this.#approval !== undefined,
      taskRunning: this.#task !== undefined,
      lineHasText: interactive && rl.line.length > 0,
      exitArmed: this.#exitArmed,
    });
    switch (action) {
      case "deny-approval":
        this.#approval?.abort();
        return;
      case "abort-task":
        out.line(c.yellow("[abort] stopping the task… (Ctrl-C again once it stops to leave)"));
        this.#task?.abort();
        return;
      case "clear-line":
        rl.write(null, { ctrl: true, name: "e" });
        rl.write(null, { ctrl: true, name: "u" });
        return;
      case "confirm-exit":
        this.#exitArmed = true;
        out.line(c.dim("(press Ctrl-C again to exit, or type /exit)"));
        this.#prompt(PROMPT);
        return;
      case "exit":
        out.newline();
        this.#lines.end();
        return;
    }
  }

  /** Ends the chat: disposes the session and prints how to come back to it. */
  async close(): Promise<void> {
    const session = this.#session;
    await session.dispose();
    this.#resumeHint(session, "");
  }

  #banner(): void {
    const { out, mode } = this.#o;
    const c = out.colors;
    const s = this.#session;
    out.line(`${c.bold("penguin chat")} · ${s.provider}/${s.modelId} · ${s.workspace}`);
    const unasked = this.#o.unasked === undefined || mode === "allow-all" || mode === "deny-all" ? "" : " (no terminal: writes and commands denied)";
    out.line(c.dim(`session ${s.id}${s.resumed ? " (resumed)" : ""} · approvals ${mode}${unasked} · /help for commands · Ctrl-C twice to exit`));
    const instructions = projectInstructionsLine(s);
    if (instructions !== undefined) out.line(c.dim(instructions));
    if (s.resumed) printRecap(out, s.paths, s.id);
  }

  #prompt(text: string): void {
    if (!this.#o.interactive) return;
    this.#o.rl.setPrompt(text);
    this.#o.rl.prompt();
  }

  #resumeHint(session: Session, prefix: string): void {
    if (!existsSync(session.tracePath)) return;
    this.#o.out.line(`${prefix}penguin chat --resume ${session.id}`);
  }

  async #runTask(text: string, goal?: { budget: string | undefined }): Promise<void> {
    const session = this.#session;
    const { out } = this.#o;
    const c = out.colors;
    const controller = new AbortController();
    this.#task = controller;
    const asked = new Set<string>();
    const waiting = createWaitIndicator();
    const renderer = new HumanRenderer({ text: out, side: out, verbose: () => this.#verbose, markdown: this.#o.markdown, waiting, asked });
    const ask = this.#o.unasked ?? chatApproval({
      out,
      interactive: this.#o.interactive,
      lines: this.#lines,
      renderer,
      waiting,
      asked,
      prompt: (text) => this.#prompt(text),
      pending: (cancel) => {
        this.#approval = cancel;
      },
    });
    const approve = approvalFor(this.#o.mode, session, ask);
    if (this.#o.interactive) this.#lines.steer = (line) => this.#steer(line, renderer);
    const outcome = new OutcomeTracker(() => controller.signal.aborted);
    const stats = new TaskStats();
    const started = performance.now();
    try {
      const options = { approve, signal: controller.signal, ...(goal === undefined ? {} : { goal: goal.budget === undefined ? {} : { budget: goal.budget } }) };
      await recordTitleOnce(session, text);
      await this.#drain(session.run(text, options), renderer, [outcome, stats]);
      renderer.finish();
    } catch (error) {
      renderer.finish();
      out.line(c.red(`error: ${(await describeError(error)).message}`));
    } finally {
      this.#lines.steer = undefined;
      this.#task = undefined;
    }
    const result = outcome.outcome;
    if (result.kind !== "done") {
      const baseUrl = result.kind === "aborted" ? undefined : await endpointBaseUrl(this.#o.agent, session);
      const message = describeOutcome(result, { provider: session.provider, modelId: session.modelId, baseUrl });
      if (message !== undefined) out.line(result.kind === "aborted" ? c.yellow(message) : c.red(message));
    }
    out.line(this.#stats(stats, session, started));
  }

  async #drain(stream: AsyncGenerator<OmniMessage, void>, renderer: HumanRenderer, observers: Array<{ observe(m: OmniMessage): void }>): Promise<void> {
    for await (const m of stream) {
      for (const o of observers) o.observe(m);
      renderer.handle(m);
    }
  }

  #stats(stats: TaskStats, session: Session, started: number): string {
    return taskStatsLine(stats, session, started, this.#o.out.colors);
  }

  /**
   * A line typed while the task runs: steering, or `/verbose` at once; any other command is
   * left queued (false), so the loop runs it when the task ends.
   */
  #steer(line: string, renderer: HumanRenderer): boolean {
    const c = this.#o.out.colors;
    const text = line.trim();
    if (text === "") return true;
    if (text.startsWith("/")) {
      if (parseSlash(text).kind === "verbose") {
        this.#toggleVerbose();
        return true;
      }
      renderer.note(c.dim(`(${shorten(text, 40)} runs when the task ends; Ctrl-C aborts the task)`));
      return false;
    }
    if (!this.#session.steer(text)) return false;
    renderer.note(c.dim(`[steer] queued for the next turn: ${shorten(text, 80)}`));
    return true;
  }

  #slashHost(): SlashHost {
    return {
      out: this.#o.out,
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
    const { out, agent } = this.#o;
    const c = out.colors;
    const { rewindOpenSession, rewindSummary } = await import("./rewind-hook.js");
    try {
      const { session, result } = await rewindOpenSession(agent, this.#session, target, { force });
      this.#session = session;
      session.setApprovalMode(this.#o.mode);
      for (const line of rewindSummary(session.id, result)) out.line(c.dim(sanitizeForTerminal(line)));
    } catch (error) {
      const again: unknown = Object(error).session;
      if (again !== undefined) this.#session = again as Session;
      out.line(c.red(`error: ${(await describeError(error)).message}`));
    }
  }

  #toggleVerbose(): void {
    this.#verbose = !this.#verbose;
    this.#o.out.line(this.#o.out.colors.dim(`verbose ${this.#verbose ? "on: tool outputs in full" : "off: long tool outputs collapsed"}`));
  }

  async #replaceSession(ref: { provider: string; modelId: string }): Promise<void> {
    const { out, agent } = this.#o;
    const c = out.colors;
    const old = this.#session;
    let next: Session;
    try {
      next = await agent.createSession({ workspaceDir: old.workspace, provider: ref.provider, modelId: ref.modelId, thinkingLevel: old.thinkingLevel, approvalMode: this.#o.mode, client: "cli" });
    } catch (error) {
      out.line(c.red(`error: ${(await describeError(error)).message}`));
      return;
    }
    await old.dispose();
    this.#resumeHint(old, c.dim(`[session] left ${old.id}; resume it with: `));
    this.#session = next;
    out.line(c.dim(`[session] new session ${next.id} · ${next.provider}/${next.modelId} · ${next.workspace}`));
  }

  async #compact(): Promise<void> {
    const { out } = this.#o;
    const c = out.colors;
    const session = this.#session;
    const state = session.compactability();
    if (state !== "ok") {
      out.line(c.dim(`[compact] ${state === "empty" ? "there is nothing to compact yet" : "the context was just compacted"}`));
      return;
    }
    const controller = new AbortController();
    this.#task = controller;
    const waiting = createWaitIndicator();
    const renderer = new HumanRenderer({ text: out, side: out, verbose: () => this.#verbose, waiting });
    const stats = new TaskStats();
    const started = performance.now();
    try {
      await this.#drain(session.compact({ signal: controller.signal }), renderer, [stats]);
      renderer.finish();
    } catch (error) {
      renderer.finish();
      out.line(c.red(`error: ${(await describeError(error)).message}`));
    } finally {
      this.#task = undefined;
    }
    out.line(this.#stats(stats, session, started));
  }
}
