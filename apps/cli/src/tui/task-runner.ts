/**
 * Running a task, or a /compact, on the screen: the submitted text with its @-mentions
 * attached (file-mentions.ts) goes to `session.run`, whose stream fills a StreamView while
 * the status line's spinner turns (a ticker redraws it); the task ends with its outcome (if
 * it did not finish) and the `[stats]` line, as in the line chat. Errors become red notes;
 * the chat goes on.
 */
import type { OmniMessage } from "@penguin/omnimessage";
import { modelMessage, userText } from "@penguin/omnimessage";
import { describeError } from "../cli-error.js";
import { sanitizeForTerminal } from "../io/sanitize.js";
import { taskStatsLine, TaskStats } from "../render/stats.js";
import { approvalFor } from "../session/approvals.js";
import { endpointBaseUrl } from "../session/open-session.js";
import { OutcomeTracker } from "../session/outcome.js";
import { describeOutcome } from "../session/outcome-message.js";
import { recordTitleOnce } from "../session/session-title.js";
import { askOnScreen } from "./approval-ask.js";
import { note, type ChatState } from "./chat-state.js";
import { readMentions, textWithAttachments } from "./file-mentions.js";
import { StreamView } from "./stream-view.js";

/** How often the spinner and the elapsed time are redrawn while a task runs. */
const TICK_MS = 80;
/**
 * The longest the stream is drained without a turn of the event loop. Deltas that arrived
 * together are handed on through promises, which run to the end before any I/O callback: on a
 * busy machine a burst of them would hold a keystroke back. Past this, the drain waits for
 * setImmediate, after which waiting input is read (and echoed) first.
 */
const INPUT_TURN_MS = 4;

export class TaskRunner {
  readonly #s: ChatState;
  #ticker: ReturnType<typeof setInterval> | undefined;

  constructor(state: ChatState) {
    this.#s = state;
  }

  async run(text: string, goal?: { budget: string | undefined }): Promise<void> {
    const s = this.#s;
    const session = s.session;
    const c = s.theme.c;
    const messages = this.#messages(text);
    const view = this.#view();
    const controller = new AbortController();
    const started = performance.now();
    s.task = { controller, started, view };
    this.#startTicker();
    const approve = approvalFor(s.mode, session, askOnScreen(s, view));
    const outcome = new OutcomeTracker(() => controller.signal.aborted);
    const stats = new TaskStats();
    try {
      const options = { approve, signal: controller.signal, ...(goal === undefined ? {} : { goal: goal.budget === undefined ? {} : { budget: goal.budget } }) };
      await recordTitleOnce(session, text);
      await this.#drain(session.run(messages, options), view, [outcome, stats]);
    } catch (error) {
      note(s, c.red(`error: ${(await describeError(error)).message}`));
    } finally {
      view.finish();
    }
    const result = outcome.outcome;
    if (result.kind !== "done") {
      const baseUrl = result.kind === "aborted" ? undefined : await endpointBaseUrl(s.agent, session);
      const message = describeOutcome(result, { provider: session.provider, modelId: session.modelId, baseUrl });
      if (message !== undefined) note(s, result.kind === "aborted" ? c.yellow(message) : c.red(message));
    }
    this.#end(stats, started);
  }

  async compact(): Promise<void> {
    const s = this.#s;
    const session = s.session;
    const c = s.theme.c;
    const state = session.compactability();
    if (state !== "ok") return note(s, c.dim(`[compact] ${state === "empty" ? "there is nothing to compact yet" : "the context was just compacted"}`));
    const view = this.#view();
    const controller = new AbortController();
    const started = performance.now();
    s.task = { controller, started, view };
    this.#startTicker();
    const stats = new TaskStats();
    try {
      await this.#drain(session.compact({ signal: controller.signal }), view, [stats]);
    } catch (error) {
      note(s, c.red(`error: ${(await describeError(error)).message}`));
    } finally {
      view.finish();
    }
    this.#end(stats, started);
  }

  stopTicker(): void {
    if (this.#ticker !== undefined) clearInterval(this.#ticker);
    this.#ticker = undefined;
  }

  #end(stats: TaskStats, started: number): void {
    const s = this.#s;
    note(s, taskStatsLine(stats, s.session, started, s.theme.c));
    s.task = undefined;
    this.stopTicker();
    s.screen.tui.requestRender();
  }

  #startTicker(): void {
    this.#ticker ??= setInterval(() => this.#s.screen.tui.requestRender(), TICK_MS);
  }

  #view(): StreamView {
    const s = this.#s;
    return new StreamView({ transcript: s.screen.transcript, theme: s.theme, expand: s.expand, workspace: s.session.workspace, note: (t) => note(s, t) });
  }

  /** The message as sent: the text with its @-mentions attached, images as their own parts. */
  #messages(text: string): OmniMessage[] | string {
    const s = this.#s;
    const attachments = readMentions(text, s.session.workspace);
    const c = s.theme.c;
    note(s, `${c.cyan("›")} ${sanitizeForTerminal(text)}`);
    for (const a of attachments) {
      if (a.kind === "text") note(s, c.dim(`  [attached] ${a.path} (${a.content.split("\n").length} lines)`));
      else if (a.kind === "image") note(s, c.dim(`  [attached image] ${a.path} (${a.mimeType})`));
      else note(s, c.yellow(`  [not attached] ${a.path}: ${a.why}`));
    }
    const images = attachments.flatMap((a) => (a.kind === "image" ? [modelMessage({ type: "inline_data", role: "user", data: a.base64, mime_type: a.mimeType })] : []));
    const full = textWithAttachments(text, attachments);
    return images.length === 0 ? full : [userText(full), ...images];
  }

  /** The stream into the view; the frame is drawn by pi-tui's clock, one per 16 ms however many deltas came. */
  async #drain(stream: AsyncGenerator<OmniMessage, void>, view: StreamView, observers: Array<{ observe(m: OmniMessage): void }>): Promise<void> {
    let turn = performance.now();
    for await (const m of stream) {
      for (const o of observers) o.observe(m);
      view.handle(m);
      this.#s.screen.tui.requestRender();
      if (performance.now() - turn > INPUT_TURN_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        turn = performance.now();
      }
    }
  }
}
