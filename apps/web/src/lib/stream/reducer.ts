/**
 * StreamReducer: OmniMessages in, chat view items out (view-model.ts). Pure rendering state:
 * no network, no timers, deterministic for a given message sequence, so history + live
 * cursor + replay can be checked against one straight run of the same stream.
 *
 * This file only routes each message to the reducer of its concern (reducer/*), all writing
 * into one row list, and coordinates what crosses concerns: tasks.
 * - reducer/drafts.ts: streamed text and thinking (draft rows the complete message replaces);
 * - reducer/tools.ts: one card per tool call, whatever the order of call, decision, output;
 * - reducer/input.ts: prompts, markers, images and goal rounds;
 * - reducer/requests.ts: failed requests (retry countdown, auth lock), compaction, MCP;
 * - reducer/subagents.ts: one row per child session, counting its messages;
 * - reducer/task.ts: the open task's statistics and whether it completed.
 *
 * Tasks: a task starts at a human (or scheduled, or parent-agent) input after some output;
 * any output opens one implicitly (a child session's view). Each finished task gets a stats
 * row; the open task's stats ride at the end of `items()` until `endTask()` (the server
 * said idle). A goal lives inside one task: one that ends without goal_finished (a fork's
 * cut, a crash) is over too.
 */
import { isCompleteModel, isEvent, isPartial, type CompleteModelPayload, type EventPayload, type OmniMessage, type PartialPayload } from "@penguin/omnimessage";
import type { GoalRoundItem, ViewItem } from "./view-model";
import { DraftReducer } from "./reducer/drafts";
import { InputReducer } from "./reducer/input";
import { RequestReducer } from "./reducer/requests";
import { RowList } from "./reducer/rows";
import { SubagentReducer } from "./reducer/subagents";
import { TaskReducer } from "./reducer/task";
import { ToolReducer } from "./reducer/tools";

function tsOf(m: OmniMessage): number {
  const t = Date.parse(m.timestamp);
  return Number.isNaN(t) ? 0 : t;
}

export class StreamReducer {
  readonly #rows = new RowList();
  readonly #task = new TaskReducer();
  readonly #drafts = new DraftReducer(this.#rows);
  readonly #tools = new ToolReducer(this.#rows);
  readonly #requests = new RequestReducer(this.#rows);
  readonly #subagents = new SubagentReducer(this.#rows);
  readonly #input = new InputReducer(this.#rows, (ts) => this.#openInput(ts));
  /** The time of the newest message applied: when cards left open are closed, they end then. */
  #lastTs = 0;

  /** The rows to draw. Same array until something changes. */
  items(): readonly ViewItem[] {
    return this.#rows.snapshot(() => this.#task.liveItem());
  }

  /** The newest round of a goal that has not finished (undefined when none runs). */
  get goalRound(): GoalRoundItem | undefined {
    return this.#input.goalRound;
  }

  get authLocked(): boolean {
    return this.#requests.authLocked;
  }

  get authMessage(): string {
    return this.#requests.authMessage;
  }

  unlockAuth(): void {
    this.#requests.unlock();
  }

  /** True while a task is open (input seen, `endTask` not yet called). */
  get taskOpen(): boolean {
    return this.#task.open;
  }

  applyAll(messages: Iterable<OmniMessage>): void {
    for (const m of messages) this.apply(m);
  }

  apply(m: OmniMessage): void {
    if (m.origin !== undefined && m.origin.length > 0) {
      this.#subagents.message(m.origin[0] ?? "", m, this.#task.open);
      return;
    }
    if (m.type === "session_meta") return;
    const ts = tsOf(m);
    if (ts > this.#lastTs) this.#lastTs = ts;
    this.#task.touch(ts);
    if (isPartial(m)) this.#partial(m, ts);
    else if (isCompleteModel(m)) this.#complete(m.payload, ts, m);
    else if (isEvent(m)) this.#event(m.payload, ts);
  }

  /**
   * The server said the session is idle: close the open task (its stats become a fixed row).
   * A tool card still going then never gets its output in this session (a fork cut after the
   * call, a crash the task did not survive): it is shown stopped, as resume closes it for the
   * model, instead of waiting forever.
   */
  endTask(): void {
    this.#tools.abortAll(this.#lastTs);
    this.#closeTask();
  }

  #closeTask(): void {
    this.#input.goalEnded();
    if (!this.#task.open) return;
    this.#input.taskEnded();
    this.#drafts.closeAll();
    this.#subagents.settle();
    const stats = this.#task.close();
    if (stats !== undefined) this.#rows.push(stats);
    this.#rows.touch();
  }

  // tasks -----------------------------------------------------------------------------------------

  #startTask(ts: number): void {
    this.#closeTask();
    this.#task.start(ts, this.#rows.newId());
  }

  /** Anything the agent produced: opens an implicit task if none is open (e.g. a child session's view). */
  #output(ts: number): void {
    if (!this.#task.open) this.#startTask(ts);
    this.#task.markOutput();
    this.#input.output();
  }

  /** A new input: a new task when it follows output (or when none is open). */
  #openInput(ts: number): void {
    if (!this.#task.open || this.#task.sawOutput) this.#startTask(ts);
  }

  // routing ---------------------------------------------------------------------------------------

  #partial(m: OmniMessage<"model_msg"> & { payload: PartialPayload }, ts: number): void {
    const closed = this.#drafts.aggregate(m);
    const p = m.payload;
    this.#output(ts);
    switch (p.type) {
      case "partial_text":
      case "partial_thinking":
        this.#drafts.partial(p, closed);
        return;
      case "partial_tool_call":
        this.#tools.callPart(p.tool_call_id, p.name, p.arguments, p.event_type === "stop", ts);
        return;
      case "partial_tool_call_output":
        this.#tools.outputPart(p.tool_call_id, p.output, p.images, p.event_type === "stop", ts);
        return;
    }
  }

  #complete(p: CompleteModelPayload, ts: number, m: OmniMessage): void {
    switch (p.type) {
      case "text":
        if (p.role === "user") this.#input.text(p.text, p.sender, ts, m.timestamp);
        else this.#assistantText(p.text, p.stop_reason, ts);
        return;
      case "thinking":
        this.#output(ts);
        this.#drafts.thinking(p);
        return;
      case "inline_thinking":
        this.#output(ts);
        this.#rows.push({ kind: "thinking", id: this.#rows.newId(), text: "", streaming: false, dataUrl: `data:${p.mime_type};base64,${p.data}` });
        return;
      case "tool_call":
        this.#output(ts);
        this.#task.calledTool();
        this.#tools.call(p.tool_call_id, p.name, p.arguments, ts);
        return;
      case "tool_call_output":
        this.#output(ts);
        this.#tools.output(p.tool_call_id, p.output, p.images, p.stop_reason, ts);
        return;
      case "image_url":
        this.#input.image(p.image_url, ts, m.timestamp);
        return;
      case "inline_data":
        if (p.role === "user" && p.mime_type.startsWith("image/")) this.#input.image(`data:${p.mime_type};base64,${p.data}`, ts, m.timestamp);
        else this.#assistantText(`*(binary data: ${p.mime_type})*`, p.stop_reason, ts);
        return;
    }
  }

  #assistantText(text: string, stopReason: CompleteModelPayload["stop_reason"], ts: number): void {
    this.#output(ts);
    this.#task.answered();
    this.#drafts.text(text, stopReason);
  }

  #event(p: EventPayload, ts: number): void {
    switch (p.type) {
      case "request_begin":
        // Not output: the trace writes request_begin before the prompt it carries, the live
        // stream after it, so it must not open or close a task on its own.
        this.#task.requestBegun(ts);
        this.#requests.begun();
        return;
      case "request_end":
        this.#output(ts);
        if (this.#task.requestEnded(p.status, ts)) this.#rows.touch();
        if (p.status === "completed") {
          this.#requests.unlock();
          return;
        }
        this.#drafts.closeAll();
        this.#requests.failed(p, ts);
        return;
      case "token_usage":
        if (this.#task.addUsage(p.request)) this.#rows.touch();
        return;
      case "approval_decision":
        this.#tools.decision(p.tool_call_id, p.decision, p.policy_rule, ts);
        return;
      case "abort":
        this.#task.aborted();
        this.#drafts.closeAll();
        this.#tools.abortAll(ts);
        this.#rows.push({ kind: "notice", id: this.#rows.newId(), tag: "abort", title: "Stopped", body: p.reason ?? "" });
        return;
      case "compaction_begin":
        this.#requests.compactionBegun(p);
        return;
      case "compaction_end":
        this.#requests.compactionEnded(p);
        return;
      case "mcp_connect_begin":
        this.#requests.mcpBegun(p);
        return;
      case "mcp_connect_end":
        this.#requests.mcpEnded(p);
        return;
      case "subagent":
        this.#subagents.row(p.session_id);
        return;
      case "goal_finished":
        this.#input.goalEnded();
        this.#rows.push({ kind: "goal_finished", id: this.#rows.newId(), outcome: p.outcome, rounds: p.rounds, tokensUsed: p.tokens_used });
        return;
      case "tool_list_ready":
        return;
    }
  }
}
