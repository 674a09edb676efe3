/**
 * StreamReducer: OmniMessages in, chat view items out (view-model.ts). Pure rendering state:
 * no network, no timers, deterministic for a given message sequence, so history + live
 * cursor + replay can be checked against one straight run of the same stream.
 *
 * Rules it keeps:
 * - Partials grow a draft row (text, thinking, tool arguments, tool output) so the user sees
 *   the stream as it comes; the merge itself (segment keys, stop, stop_reason) is the
 *   protocol's PartialAggregator, whose complete message finalises the draft at `stop`. The
 *   complete message that follows a stop replaces that draft instead of adding a row, so a
 *   reload seeded with open fragments and a live run end in the same rows.
 * - Tool rows are keyed by `tool_call_id`: call, approval decision and output (streamed or
 *   complete) all land in one card, in whatever order they arrive.
 * - Messages carrying `origin` come from subagents: they are not drawn inline but counted
 *   into one row per direct child (`origin[0]`), which links to the child's own stream.
 * - A task starts at a human (or scheduled, or parent-agent) input after some output; each
 *   finished task gets a stats row (requests, tokens, time, generation time). The open task's
 *   stats ride at the end of `items()` until `endTask()` (the server said idle).
 * - `request_end` with status `auth` locks input (`authLocked`) until a completed request or
 *   `unlockAuth()` (credentials_updated).
 * - A task is `completed` (its stats row may offer Fork) when its last request completed
 *   with an answer and no tool call, and nothing aborted after it: the cut core accepts.
 * - Goal mode: each round's harness `[goal]` block becomes a goal-round row (its header read
 *   by lib/stream/goal.ts) and `goal_finished` a final row. Round 1 opens the goal's task, so
 *   a reload (where the trace holds the block before the prompt) closes the previous task
 *   first; the prompt is then drawn before its round-1 banner, as the live stream has it.
 *   The objective restated under later blocks is not drawn: the live stream never carries
 *   it, and a reload must look the same. `goalRound` is the newest round of a goal still
 *   running: cleared by `goal_finished` and when its task ends.
 */
import {
  PartialAggregator,
  findAttachments,
  findMarkers,
  isCompleteModel,
  isEvent,
  isPartial,
  startsWithMarker,
  type CompleteModelPayload,
  type EventPayload,
  type MarkerTag,
  type OmniMessage,
  type PartialPayload,
  type TokenCounts,
} from "@penguin/omnimessage";
import { goalBlockOf } from "./goal";
import { ZERO_TOKENS, type GoalRoundItem, type StatsItem, type TaskStats, type ToolItem, type ToolStatus, type UserItem, type ViewItem } from "./view-model";

interface TaskTracker {
  statsId: string;
  firstTs: number;
  lastTs: number;
  requests: number;
  tokens: TokenCounts;
  generationMs: number;
  sawOutput: boolean;
  /** The last request completed with an answer and no tool call, and nothing aborted since. */
  completed: boolean;
}

/** Marker blocks drawn as their own collapsed notice rows, with their titles. */
const NOTICE_TITLES: Partial<Record<MarkerTag, string>> = {
  context_summary: "Context summary",
  summary: "Summary",
  turn_aborted: "Previous turn was stopped",
  turn_retried: "Request was retried",
  background_task_done: "Background task finished",
  developer_instructions: "Developer instructions",
  handoff_from: "Handed off",
  model_switch_from: "Model switched",
};

const TERMINAL: ReadonlySet<ToolStatus> = new Set(["done", "failed", "denied", "forbidden", "aborted"]);

function tsOf(m: OmniMessage): number {
  const t = Date.parse(m.timestamp);
  return Number.isNaN(t) ? 0 : t;
}

function addTokens(a: TokenCounts, b: TokenCounts): TokenCounts {
  return {
    cache_read: a.cache_read + (b.cache_read ?? 0),
    cache_write: a.cache_write + (b.cache_write ?? 0),
    output: a.output + (b.output ?? 0),
    total: a.total + (b.total ?? 0),
  };
}

/** The aggregator's segment key for a complete message or a partial (origin is handled apart). */
function segmentKey(p: PartialPayload | CompleteModelPayload): string {
  const id = "tool_call_id" in p ? p.tool_call_id : "";
  const family = p.type.startsWith("partial_") ? p.type.slice("partial_".length) : p.type;
  return `${family}::${id}`;
}

export class StreamReducer {
  #items: ViewItem[] = [];
  #snapshot: readonly ViewItem[] = [];
  #dirty = true;
  #nextId = 0;
  #agg = new PartialAggregator();
  /** Text and thinking drafts by segment key: open, or closed and awaiting their complete message. */
  #drafts = new Map<string, number>();
  #tools = new Map<string, number>();
  #subagents = new Map<string, number>();
  #openCompaction: number | undefined;
  #openMcp: number | undefined;
  #retryRows: number[] = [];
  #task: TaskTracker | undefined;
  #liveStats: StatsItem | undefined;
  /** The index of the user row still collecting inputs (images after a text). */
  #inputRow: number | undefined;
  #authLocked = false;
  #authMessage = "";
  /** When the current model request began (requests are paired, never nested). */
  #requestBegin: number | undefined;
  /** What the current request produced: an answer, tool calls. */
  #requestText = false;
  #requestTools = false;
  /** The newest goal-round row, while it is still the last row (no output since). */
  #goalHead: number | undefined;
  #goalRound: GoalRoundItem | undefined;

  /** The rows to draw. Same array until something changes. */
  items(): readonly ViewItem[] {
    if (!this.#dirty) return this.#snapshot;
    this.#dirty = false;
    const live = this.#liveStatsItem();
    this.#snapshot = live === undefined ? [...this.#items] : [...this.#items, live];
    return this.#snapshot;
  }

  /** The newest round of a goal that has not finished (undefined when none runs). */
  get goalRound(): GoalRoundItem | undefined {
    return this.#goalRound;
  }

  get authLocked(): boolean {
    return this.#authLocked;
  }

  get authMessage(): string {
    return this.#authMessage;
  }

  unlockAuth(): void {
    if (!this.#authLocked) return;
    this.#authLocked = false;
    this.#dirty = true;
  }

  /** True while a task is open (input seen, `endTask` not yet called). */
  get taskOpen(): boolean {
    return this.#task !== undefined;
  }

  applyAll(messages: Iterable<OmniMessage>): void {
    for (const m of messages) this.apply(m);
  }

  apply(m: OmniMessage): void {
    if (m.origin !== undefined && m.origin.length > 0) {
      this.#subagentMessage(m.origin[0] ?? "", m);
      return;
    }
    if (m.type === "session_meta") return;
    const ts = tsOf(m);
    if (this.#task !== undefined && ts > this.#task.lastTs) this.#task.lastTs = ts;
    if (isPartial(m)) {
      this.#partial(m, ts);
      return;
    }
    if (isCompleteModel(m)) {
      this.#complete(m.payload, ts, m);
      return;
    }
    if (isEvent(m)) this.#event(m.payload, ts);
  }

  /** The server said the session is idle: close the open task (its stats become a fixed row). */
  endTask(): void {
    // A goal lives inside one task: one that ends without goal_finished (a fork's cut, a crash) is over too.
    this.#goalRound = undefined;
    const task = this.#task;
    if (task === undefined) return;
    this.#task = undefined;
    this.#liveStats = undefined;
    this.#inputRow = undefined;
    this.#closeDrafts();
    for (const idx of this.#subagents.values()) {
      const row = this.#items[idx];
      if (row?.kind === "subagent" && row.active) this.#replace(idx, { ...row, active: false });
    }
    if (task.requests > 0 || task.sawOutput) {
      this.#items.push({ kind: "stats", id: task.statsId, stats: statsOf(task), running: false, completed: task.completed });
    }
    this.#dirty = true;
  }

  // -------------------------------------------------------------------------------------------

  #id(): string {
    this.#nextId += 1;
    return `i${this.#nextId}`;
  }

  #push(item: ViewItem): number {
    this.#items.push(item);
    this.#dirty = true;
    return this.#items.length - 1;
  }

  #replace(idx: number, item: ViewItem): void {
    this.#items[idx] = item;
    this.#dirty = true;
  }

  #liveStatsItem(): StatsItem | undefined {
    const task = this.#task;
    if (task === undefined || task.requests === 0) return undefined;
    const stats = statsOf(task);
    const prev = this.#liveStats;
    if (prev !== undefined && sameStats(prev.stats, stats)) return prev;
    this.#liveStats = { kind: "stats", id: task.statsId, stats, running: true, completed: false };
    return this.#liveStats;
  }

  #startTask(ts: number): void {
    this.endTask();
    this.#task = {
      statsId: this.#id(),
      firstTs: ts,
      lastTs: ts,
      requests: 0,
      tokens: ZERO_TOKENS,
      generationMs: 0,
      sawOutput: false,
      completed: false,
    };
  }

  /** Anything the agent produced: opens an implicit task if none is open (e.g. a child session's view). */
  #output(ts: number): void {
    if (this.#task === undefined) this.#startTask(ts);
    if (this.#task !== undefined) this.#task.sawOutput = true;
    this.#inputRow = undefined;
    this.#goalHead = undefined;
  }

  #goalHeadOpen(): boolean {
    return this.#goalHead !== undefined && this.#goalHead === this.#items.length - 1;
  }

  #input(ts: number): void {
    if (this.#task === undefined || this.#task.sawOutput) this.#startTask(ts);
  }

  // partials ------------------------------------------------------------------------------------

  #partial(m: OmniMessage<"model_msg"> & { payload: PartialPayload }, ts: number): void {
    const closed = this.#agg.push(m);
    const p = m.payload;
    this.#output(ts);
    switch (p.type) {
      case "partial_text":
      case "partial_thinking": {
        const key = segmentKey(p);
        const known = this.#drafts.get(key);
        const current = known === undefined ? undefined : this.#items[known];
        const open = current !== undefined && (current.kind === "assistant" || current.kind === "thinking") && current.streaming;
        let idx: number;
        if (open && known !== undefined && p.event_type !== "start") idx = known;
        else {
          if (open && known !== undefined) this.#finishDraft(known, undefined);
          idx = this.#push(
            p.type === "partial_text"
              ? { kind: "assistant", id: this.#id(), text: "", streaming: true, stopReason: undefined, origin: undefined }
              : { kind: "thinking", id: this.#id(), text: "", streaming: true },
          );
          this.#drafts.set(key, idx);
        }
        const row = this.#items[idx];
        const piece = p.type === "partial_text" ? p.text : p.thinking;
        if (row !== undefined && (row.kind === "assistant" || row.kind === "thinking") && piece !== "") {
          this.#replace(idx, { ...row, text: row.text + piece });
        }
        const done = closed.find((c) => segmentKey(c.payload) === key);
        if (p.event_type === "stop" && done !== undefined && isCompleteModel(done)) this.#finishDraft(idx, done.payload);
        return;
      }
      case "partial_tool_call": {
        const idx = this.#toolRow(p.tool_call_id, p.name, ts);
        const row = this.#items[idx];
        if (row?.kind !== "tool") return;
        const next: ToolItem = { ...row, args: row.args + p.arguments };
        if (next.name === "" && p.name !== "") next.name = p.name;
        if (p.event_type === "stop" && next.status === "streaming") next.status = "pending";
        this.#replace(idx, next);
        return;
      }
      case "partial_tool_call_output": {
        const idx = this.#toolRow(p.tool_call_id, "", ts);
        const row = this.#items[idx];
        if (row?.kind !== "tool") return;
        const next: ToolItem = { ...row, output: row.output + p.output, outputStreaming: p.event_type !== "stop" };
        if (p.images !== undefined) next.images = [...row.images, ...p.images];
        if (!TERMINAL.has(next.status)) next.status = "running";
        this.#replace(idx, next);
        return;
      }
    }
  }

  #finishDraft(idx: number, complete: CompleteModelPayload | undefined): void {
    const row = this.#items[idx];
    if (row === undefined) return;
    if (row.kind === "assistant") {
      const text = complete?.type === "text" ? complete.text : row.text;
      const stopReason = complete?.stop_reason ?? row.stopReason;
      this.#replace(idx, { ...row, text, streaming: false, stopReason });
    } else if (row.kind === "thinking") {
      const text = complete?.type === "thinking" ? complete.thinking : row.text;
      this.#replace(idx, { ...row, text, streaming: false });
    }
  }

  #closeDrafts(): void {
    this.#agg.flush("aborted");
    for (const [key, idx] of this.#drafts) {
      const row = this.#items[idx];
      if (row !== undefined && (row.kind === "assistant" || row.kind === "thinking") && row.streaming) this.#finishDraft(idx, undefined);
      this.#drafts.delete(key);
    }
  }

  #toolRow(toolCallId: string, name: string, ts: number): number {
    const known = this.#tools.get(toolCallId);
    if (known !== undefined) return known;
    const idx = this.#push({
      kind: "tool",
      id: this.#id(),
      toolCallId,
      name,
      args: "",
      status: "streaming",
      output: "",
      images: [],
      outputStreaming: false,
      decision: undefined,
      policyRule: undefined,
      startedAt: ts,
      endedAt: undefined,
    });
    this.#tools.set(toolCallId, idx);
    return idx;
  }

  // complete messages ---------------------------------------------------------------------------

  #complete(p: CompleteModelPayload, ts: number, m: OmniMessage): void {
    switch (p.type) {
      case "text":
        if (p.role === "user") this.#userText(p.text, p.sender, ts, m.timestamp);
        else this.#assistantText(p.text, p.stop_reason, ts);
        return;
      case "thinking": {
        this.#output(ts);
        const key = segmentKey(p);
        const idx = this.#drafts.get(key);
        this.#drafts.delete(key);
        if (idx !== undefined && this.#items[idx]?.kind === "thinking") this.#finishDraft(idx, p);
        else this.#push({ kind: "thinking", id: this.#id(), text: p.thinking, streaming: false });
        return;
      }
      case "inline_thinking":
        this.#output(ts);
        this.#push({ kind: "thinking", id: this.#id(), text: "", streaming: false, dataUrl: `data:${p.mime_type};base64,${p.data}` });
        return;
      case "tool_call": {
        this.#output(ts);
        this.#requestTools = true;
        const idx = this.#toolRow(p.tool_call_id, p.name, ts);
        const row = this.#items[idx];
        if (row?.kind !== "tool") return;
        const status = row.status === "streaming" ? "pending" : row.status;
        this.#replace(idx, { ...row, name: p.name, args: p.arguments, status });
        return;
      }
      case "tool_call_output": {
        this.#output(ts);
        const idx = this.#toolRow(p.tool_call_id, "", ts);
        const row = this.#items[idx];
        if (row?.kind !== "tool") return;
        let status: ToolStatus = "done";
        if (p.stop_reason === "failed" || p.stop_reason === "timeout") status = "failed";
        else if (p.stop_reason === "aborted") {
          status = row.decision === "deny" ? "denied" : row.decision === "forbidden" ? "forbidden" : "aborted";
        }
        this.#replace(idx, { ...row, output: p.output, images: p.images ?? [], outputStreaming: false, status, endedAt: ts });
        return;
      }
      case "image_url":
        this.#userImage(p.image_url, ts, m.timestamp);
        return;
      case "inline_data":
        if (p.role === "user" && p.mime_type.startsWith("image/")) {
          this.#userImage(`data:${p.mime_type};base64,${p.data}`, ts, m.timestamp);
        } else {
          this.#assistantText(`*(binary data: ${p.mime_type})*`, p.stop_reason, ts);
        }
        return;
    }
  }

  #assistantText(text: string, stopReason: CompleteModelPayload["stop_reason"], ts: number): void {
    this.#output(ts);
    this.#requestText = true;
    const key = "text::";
    const idx = this.#drafts.get(key);
    this.#drafts.delete(key);
    const row = idx === undefined ? undefined : this.#items[idx];
    if (idx !== undefined && row?.kind === "assistant") {
      this.#replace(idx, { ...row, text, streaming: false, stopReason });
    } else {
      this.#push({ kind: "assistant", id: this.#id(), text, streaming: false, stopReason, origin: undefined });
    }
  }

  #userText(text: string, sender: UserItem["sender"], ts: number, timestamp: string): void {
    const steering = startsWithMarker(text, "user_steering");
    const scheduled = startsWithMarker(text, "scheduled_task");
    const notices: { tag: MarkerTag; title: string; body: string }[] = [];
    const goals: string[] = [];
    const skills: string[] = [];
    let rest = "";
    let at = 0;
    // Harness blocks become their own rows; skills become chips; the rest is what was written.
    for (const b of findMarkers(text)) {
      rest += text.slice(at, b.start);
      at = b.end;
      const title = NOTICE_TITLES[b.tag];
      if (b.tag === "goal") goals.push(b.body);
      else if (title !== undefined) notices.push({ tag: b.tag, title, body: b.body });
      else if (b.tag === "use_skills") skills.push(...b.body.split(/[\n,]/).map((s) => s.trim()).filter((s) => s !== ""));
      else rest += b.body;
    }
    rest += text.slice(at);
    // A later round's restated objective, right under its [goal] block: never streamed, so never drawn.
    if (sender === "harness" && notices.length === 0 && goals.length === 0 && this.#goalHeadOpen()) return;
    const attachments = findAttachments(rest);
    rest = rest.replace(/\[attached (image|file): [^\]\n]+\]\n?/g, "").trim();
    const isHuman = sender === undefined || sender === "user" || sender === "parent_agent" || sender === "server";
    const hasPrompt = rest !== "" || attachments.length > 0 || skills.length > 0;
    const rounds = goals.map((body) => ({ body, block: goalBlockOf(body) }));
    const firstRound = rounds.some((r) => r.block.round === 1);
    if ((isHuman && hasPrompt && !steering) || firstRound) this.#input(ts);
    for (const n of notices) this.#push({ kind: "notice", id: this.#id(), tag: n.tag, title: n.title, body: n.body });
    for (const { body, block } of rounds) {
      const item: GoalRoundItem = { kind: "goal_round", id: this.#id(), round: block.round, used: block.used, budget: block.budget, goalFile: block.goalFile, body };
      this.#goalHead = this.#push(item);
      this.#goalRound = item;
    }
    if (!hasPrompt) return;
    const item: UserItem = {
      kind: "user",
      id: this.#id(),
      text: rest,
      images: [],
      attachments,
      skills,
      variant: steering ? "steer" : scheduled ? "scheduled" : "prompt",
      sender,
      timestamp,
    };
    const head = this.#goalHead;
    const banner = head === undefined ? undefined : this.#items[head];
    if (isHuman && !steering && head !== undefined && this.#goalHeadOpen() && banner !== undefined) {
      // The trace has the round-1 block before the prompt; draw the prompt first, as live.
      this.#replace(head, item);
      this.#goalHead = this.#push(banner);
      this.#inputRow = head;
      return;
    }
    const idx = this.#push(item);
    this.#inputRow = steering ? undefined : idx;
  }

  #userImage(url: string, ts: number, timestamp: string): void {
    const idx = this.#inputRow;
    const row = idx === undefined ? undefined : this.#items[idx];
    if (idx !== undefined && row?.kind === "user") {
      this.#replace(idx, { ...row, images: [...row.images, url] });
      return;
    }
    this.#input(ts);
    const item: UserItem = {
      kind: "user",
      id: this.#id(),
      text: "",
      images: [url],
      attachments: [],
      skills: [],
      variant: "prompt",
      sender: undefined,
      timestamp,
    };
    this.#inputRow = this.#push(item);
  }

  // events ----------------------------------------------------------------------------------------

  #event(p: EventPayload, ts: number): void {
    switch (p.type) {
      case "request_begin": {
        // Not output: the trace writes request_begin before the prompt it carries, the live
        // stream after it, so it must not open or close a task on its own.
        this.#requestBegin = ts;
        this.#requestText = false;
        this.#requestTools = false;
        for (const idx of this.#retryRows) {
          const row = this.#items[idx];
          if (row?.kind === "request_error") this.#replace(idx, { ...row, superseded: true });
        }
        this.#retryRows = [];
        return;
      }
      case "request_end": {
        this.#output(ts);
        const task = this.#task;
        if (task !== undefined) {
          task.requests += 1;
          if (this.#requestBegin !== undefined) task.generationMs += Math.max(0, ts - this.#requestBegin);
          task.completed = p.status === "completed" && this.#requestText && !this.#requestTools;
          this.#dirty = true;
        }
        this.#requestBegin = undefined;
        if (p.status === "completed") {
          if (this.#authLocked) this.unlockAuth();
          return;
        }
        this.#closeDrafts();
        const retryAt = p.retry_in_ms === undefined ? undefined : ts + p.retry_in_ms;
        const idx = this.#push({
          kind: "request_error",
          id: this.#id(),
          status: p.status,
          message: p.error_message ?? p.status,
          attempt: p.attempt,
          retryInMs: p.retry_in_ms,
          retryAt,
          superseded: false,
        });
        if (retryAt !== undefined) this.#retryRows.push(idx);
        if (p.status === "auth") {
          this.#authLocked = true;
          this.#authMessage = p.error_message ?? "The model rejected its credentials.";
        }
        return;
      }
      case "token_usage":
        if (this.#task !== undefined) {
          this.#task.tokens = addTokens(this.#task.tokens, p.request);
          this.#dirty = true;
        }
        return;
      case "approval_decision": {
        const idx = this.#tools.get(p.tool_call_id);
        const row = idx === undefined ? undefined : this.#items[idx];
        if (idx === undefined || row?.kind !== "tool") return;
        const next: ToolItem = { ...row, decision: p.decision, policyRule: p.policy_rule };
        if (!TERMINAL.has(row.status)) {
          if (p.decision === "allow") {
            next.status = "running";
            next.startedAt = ts;
          } else {
            next.status = p.decision === "deny" ? "denied" : "forbidden";
            next.endedAt = ts;
          }
        }
        this.#replace(idx, next);
        return;
      }
      case "abort": {
        if (this.#task !== undefined) this.#task.completed = false;
        this.#closeDrafts();
        for (const idx of this.#tools.values()) {
          const row = this.#items[idx];
          if (row?.kind === "tool" && !TERMINAL.has(row.status)) this.#replace(idx, { ...row, status: "aborted", outputStreaming: false, endedAt: ts });
        }
        this.#push({ kind: "notice", id: this.#id(), tag: "abort", title: "Stopped", body: p.reason ?? "" });
        return;
      }
      case "compaction_begin":
        this.#openCompaction = this.#push({
          kind: "compaction",
          id: this.#id(),
          reason: p.reason,
          mode: p.mode,
          status: "running",
          error: undefined,
          context: p.context,
        });
        return;
      case "compaction_end": {
        const idx = this.#openCompaction;
        const row = idx === undefined ? undefined : this.#items[idx];
        this.#openCompaction = undefined;
        if (idx !== undefined && row?.kind === "compaction") {
          this.#replace(idx, { ...row, status: p.status, error: p.error_message });
        } else {
          this.#push({ kind: "compaction", id: this.#id(), reason: p.reason, mode: p.mode, status: p.status, error: p.error_message, context: undefined });
        }
        return;
      }
      case "mcp_connect_begin":
        this.#openMcp = this.#push({ kind: "mcp", id: this.#id(), servers: p.servers, status: "connecting", results: [] });
        return;
      case "mcp_connect_end": {
        const idx = this.#openMcp;
        const row = idx === undefined ? undefined : this.#items[idx];
        this.#openMcp = undefined;
        const servers = p.results.map((r) => r.server);
        if (idx !== undefined && row?.kind === "mcp") this.#replace(idx, { ...row, status: p.status, results: p.results });
        else this.#push({ kind: "mcp", id: this.#id(), servers, status: p.status, results: p.results });
        return;
      }
      case "subagent":
        this.#subagentRow(p.session_id);
        return;
      case "goal_finished":
        this.#goalRound = undefined;
        this.#push({ kind: "goal_finished", id: this.#id(), outcome: p.outcome, rounds: p.rounds, tokensUsed: p.tokens_used });
        return;
      case "tool_list_ready":
        return;
    }
  }

  // subagents -------------------------------------------------------------------------------------

  #subagentRow(childId: string): number {
    const known = this.#subagents.get(childId);
    if (known !== undefined) return known;
    const idx = this.#push({ kind: "subagent", id: this.#id(), childId, messages: 0, preview: "", active: false });
    this.#subagents.set(childId, idx);
    return idx;
  }

  #subagentMessage(childId: string, m: OmniMessage): void {
    if (childId === "" || isPartial(m)) return;
    const idx = this.#subagentRow(childId);
    const row = this.#items[idx];
    if (row?.kind !== "subagent") return;
    let preview = row.preview;
    if (isCompleteModel(m)) {
      const p = m.payload;
      if (p.type === "text" && p.role === "assistant") preview = p.text;
      else if (p.type === "tool_call") preview = `→ ${p.name}`;
    }
    this.#replace(idx, { ...row, messages: row.messages + 1, preview: preview.slice(0, 200), active: this.#task !== undefined });
  }
}

function statsOf(task: TaskTracker): TaskStats {
  return {
    requests: task.requests,
    tokens: task.tokens,
    durationMs: Math.max(0, task.lastTs - task.firstTs),
    generationMs: task.generationMs,
  };
}

function sameStats(a: TaskStats, b: TaskStats): boolean {
  return (
    a.requests === b.requests &&
    a.durationMs === b.durationMs &&
    a.generationMs === b.generationMs &&
    a.tokens.total === b.tokens.total &&
    a.tokens.output === b.tokens.output &&
    a.tokens.cache_read === b.tokens.cache_read &&
    a.tokens.cache_write === b.tokens.cache_write
  );
}
