/**
 * A task's OmniMessage stream as transcript blocks (the terminal UI's counterpart of
 * render/human-renderer.ts): assistant text streams into a markdown block that grows as deltas
 * arrive; thinking and a compaction's summary into dim blocks; each tool call is one ToolBlock,
 * created when the call is complete (or when its approval is asked, whichever is first) and
 * finished in place by its output; refusals mark the block; retries, compactions, MCP and
 * goal events become one-line notes. Messages from child sessions (`origin`) are skipped, as
 * in the line chat. Model and tool text is sanitized before it is shown.
 */
import type { Container } from "@mariozechner/pi-tui";
import { extractMarker, parseFields, startsWithMarker, type EventPayload, type OmniMessage, type ToolCallPayload } from "@penguin/omnimessage";
import type { Colors } from "../io/colors.js";
import { sanitizeForTerminal } from "../io/sanitize.js";
import { shorten } from "../render/format.js";
import { LinesBlock, ToolBlock, type ExpandState } from "./blocks.js";
import { callDiff } from "./diff-view.js";
import { StreamingMarkdown } from "./streaming-markdown.js";
import type { TuiTheme } from "./theme.js";

export interface StreamViewDeps {
  transcript: Container;
  theme: TuiTheme;
  expand: ExpandState;
  workspace: string;
  /** A one-line note in the transcript. */
  note(text: string): void;
}

type Open = { kind: "text"; md: StreamingMarkdown } | { kind: "dim"; block: LinesBlock; label: string; lines: string[] };

export class StreamView {
  readonly #d: StreamViewDeps;
  readonly #c: Colors;
  readonly #tools = new Map<string, ToolBlock>();
  #open: Open | undefined;
  /** The open dim block's lines, painted. */
  #painted: string[] = [];
  #streamedText = false;
  #streamedThinking = false;
  #compacting = false;

  constructor(deps: StreamViewDeps) {
    this.#d = deps;
    this.#c = deps.theme.c;
  }

  /** True while some tool block still shows "running". */
  get toolsRunning(): boolean {
    return [...this.#tools.values()].some((b) => b.running);
  }

  handle(m: OmniMessage): void {
    if (m.origin !== undefined && m.origin.length > 0) return;
    if (m.type === "event_msg") return this.#event(m.payload);
    if (m.type !== "model_msg") return;
    const p = m.payload;
    switch (p.type) {
      case "partial_text":
        if (p.event_type === "delta") this.#append(this.#compacting ? "summary" : "text", p.text);
        else if (p.event_type === "stop") this.#close();
        this.#streamedText = true;
        return;
      case "partial_thinking":
        if (p.event_type === "delta") this.#append("thinking", p.thinking);
        else if (p.event_type === "stop") this.#close();
        this.#streamedThinking = true;
        return;
      case "text":
        if (p.role === "user") return this.#userText(p.text, p.sender);
        if (this.#streamedText) this.#streamedText = false;
        else this.#append(this.#compacting ? "summary" : "text", p.text);
        this.#close();
        return;
      case "thinking":
        if (this.#streamedThinking) this.#streamedThinking = false;
        else this.#append("thinking", p.thinking);
        this.#close();
        return;
      case "tool_call":
        this.toolCall(p);
        return;
      case "tool_call_output":
        this.#close();
        this.toolCall({ name: "tool", arguments: "{}", tool_call_id: p.tool_call_id }).finish(p.output, p.stop_reason);
        return;
      default:
        return;
    }
  }

  /** The block of this call, created on first sight. */
  toolCall(call: Pick<ToolCallPayload, "name" | "arguments" | "tool_call_id">): ToolBlock {
    let block = this.#tools.get(call.tool_call_id);
    if (block === undefined) {
      this.#close();
      block = new ToolBlock(call, this.#c, this.#d.expand, callDiff(call.name, call.arguments, this.#d.workspace));
      this.#tools.set(call.tool_call_id, block);
      this.#d.transcript.addChild(block);
    }
    return block;
  }

  /** Ends any open text block (the task ended). */
  finish(): void {
    this.#close();
  }

  #append(kind: "text" | "thinking" | "summary", delta: string): void {
    const clean = sanitizeForTerminal(delta);
    if (kind === "text") {
      if (this.#open?.kind !== "text") {
        this.#close();
        const md = new StreamingMarkdown(this.#d.theme.markdown);
        this.#d.transcript.addChild(md);
        this.#open = { kind: "text", md };
      }
      this.#open.md.append(clean);
      return;
    }
    if (this.#open?.kind !== "dim" || this.#open.label !== kind) {
      this.#close();
      const block = new LinesBlock([]);
      this.#d.transcript.addChild(block);
      this.#open = { kind: "dim", block, label: kind, lines: [`[${kind}] `] };
    }
    // The delta extends the last line and may start new ones; only those are painted again.
    const { lines } = this.#open;
    const pieces = clean.split("\n");
    lines[lines.length - 1] += pieces[0]!;
    for (const piece of pieces.slice(1)) lines.push(piece);
    const c = this.#c;
    const painted = this.#painted;
    painted.length = Math.min(painted.length, lines.length - 1 - (pieces.length - 1));
    for (let i = painted.length; i < lines.length; i++) painted.push(c.dim(lines[i]!));
    this.#open.block.set(painted.slice());
  }

  #close(): void {
    if (this.#open?.kind === "text") this.#open.md.finish();
    this.#open = undefined;
    this.#painted = [];
  }

  #userText(text: string, sender: string | undefined): void {
    const c = this.#c;
    if (sender === "harness" && startsWithMarker(text, "goal")) {
      const fields = parseFields(extractMarker(text, "goal") ?? "");
      return this.#d.note(c.dim(`[goal] round ${fields.round ?? "?"} · used ${fields.used ?? "?"} of ${fields.budget ?? "?"}`));
    }
    // The user's own message was shown when it was sent; steering and harness notes were not.
    if (startsWithMarker(text, "user_steering")) {
      const body = text.replace(/^\[user_steering\]\n?|\n?\[\/user_steering\]$/g, "");
      this.#d.note(c.dim(`[steer] delivered: ${shorten(sanitizeForTerminal(body).replace(/\s+/g, " "), 160)}`));
    } else if (sender === "harness") this.#d.note(c.dim(`[note] ${shorten(sanitizeForTerminal(text).replace(/\s+/g, " "), 160)}`));
  }

  #event(p: EventPayload): void {
    const c = this.#c;
    switch (p.type) {
      case "request_end":
        if (p.retry_in_ms !== undefined) this.#d.note(c.yellow(`[retry] retrying in ${Math.ceil(p.retry_in_ms / 1000)} s: ${sanitizeForTerminal(shorten(p.error_message ?? p.status, 200))}`));
        return;
      case "approval_decision":
        if (p.decision === "deny") this.toolCall({ name: "tool", arguments: "{}", tool_call_id: p.tool_call_id }).refuse("denied");
        else if (p.decision === "forbidden") this.toolCall({ name: "tool", arguments: "{}", tool_call_id: p.tool_call_id }).refuse(`forbidden by the command policy${p.policy_rule === undefined ? "" : ` (${p.policy_rule})`}`);
        return;
      case "approval_rule":
        this.#d.note(c.dim(`[rule] ${p.tool}${p.command_prefix === undefined ? "" : ` \`${p.command_prefix}\``} is allowed for the rest of this session`));
        return;
      case "compaction_begin":
        this.#close();
        this.#compacting = true;
        this.#d.note(c.dim(`[compact] compacting the context (${p.context} tokens, ${p.turns} turns; ${p.reason}, ${p.mode})…`));
        return;
      case "compaction_end":
        this.#close();
        this.#compacting = false;
        this.#d.note(p.status === "completed" ? c.dim("[compact] done") : c.yellow(`[compact] ${p.status}; the context was kept`));
        return;
      case "mcp_connect_begin":
        this.#d.note(c.dim(`[mcp] connecting to ${p.servers.join(", ")}…`));
        return;
      case "mcp_connect_end":
        for (const r of p.results) this.#d.note(r.status === "failed" ? c.yellow(`[mcp] ${r.server} failed: ${sanitizeForTerminal(r.error ?? "unknown error")}`) : c.dim(`[mcp] ${r.server}: ${r.tools?.length ?? 0} tools`));
        return;
      case "goal_finished":
        this.#d.note((p.outcome === "complete" ? c.green : c.yellow)(`[goal] ${p.outcome.replace("_", " ")} after ${p.rounds} round${p.rounds === 1 ? "" : "s"} · ${p.tokens_used} tokens`));
        return;
      default:
        return;
    }
  }
}
