/**
 * The human view of a task's OmniMessage stream, shared by `penguin run` and `penguin chat`.
 *
 * It paints partials as they arrive: assistant text streams to the `text` output (as
 * markdown blocks on a colour terminal), thinking streams dimmed to the `side` output, and
 * complete messages are printed only when no partials preceded them. Tool calls read
 *
 *   [tool-XYZ] name <- $ cmd        (XYZ = last 3 chars of the call id)
 *   [tool-XYZ] -> output            (over 9 lines: first 4, "… N more lines", last 4)
 *
 * and events become short bracketed lines: `[retry] retrying in 4 s (attempt 3 of 6): …`
 * (one line per reconnect wait, read from the engine's `request_end`), `✗ [denied]`, `[compact] …`,
 * `[mcp] …`. A compaction's summary streams dimmed as `[summary] …` with the side output,
 * never as the answer. `run` sends text to stdout and the rest to stderr (so `> answer.txt` keeps
 * only the answer); `chat` uses stdout for both. Outcomes (done, failed, aborted) and the
 * stats line are the caller's: this class only paints what happened.
 *
 * Every model- or tool-produced string goes through `sanitizeForTerminal`: no ANSI code
 * reaches the output unless we added it, and we add none when colours are off.
 */
import type { CompleteModelPayload, EventPayload, ModelPayload, OmniMessage, ToolCallOutputPayload, ToolCallPayload } from "@penguin/omnimessage";
import { extractMarker, parseFields, startsWithMarker } from "@penguin/omnimessage";
import { sanitizeForTerminal } from "../io/sanitize.js";
import { collapseLines, moreLinesMarker } from "./collapse.js";
import { shorten } from "./format.js";
import { MarkdownBlocks, type RenderMarkdown } from "./markdown-blocks.js";
import type { Output } from "./output.js";
import type { WaitIndicator } from "./spinner.js";
import { toolCallLine, toolTag } from "./tool-line.js";

export interface HumanRendererOptions {
  text: Output;
  side: Output;
  /** Full tool outputs instead of collapsed ones (read at each output). */
  verbose: () => boolean;
  /** Render assistant text as markdown blocks. */
  markdown?: RenderMarkdown;
  waiting?: WaitIndicator;
  /** Calls whose approval the user answered at a prompt: the prompt already printed the result. */
  asked?: ReadonlySet<string>;
}

/** What is streaming now. A compaction's summary streams as text but is not the answer. */
type Segment = "none" | "text" | "thinking" | "summary";

export class HumanRenderer {
  readonly #o: HumanRendererOptions;
  #segment: Segment = "none";
  /** A partial stream preceded the next complete message of this kind: do not print it again. */
  #streamed = { text: false, thinking: false };
  #markdown: MarkdownBlocks | undefined;
  readonly #printedCalls = new Set<string>();
  /** Inside compaction_begin … compaction_end: assistant text is the summary. */
  #compacting = false;
  /** Calls refused (denied or forbidden): their output already had its `✗` line, so it carries no stop label. */
  readonly #refused = new Set<string>();

  constructor(options: HumanRendererOptions) {
    this.#o = options;
  }

  handle(m: OmniMessage): void {
    if (m.origin !== undefined && m.origin.length > 0) return;
    if (m.type === "model_msg") this.#model(m.payload);
    else if (m.type === "event_msg") this.#event(m.payload);
  }

  /** Closes any open segment (end of the task). */
  finish(): void {
    this.#o.waiting?.stop();
    this.#endSegment();
    this.#o.text.newline();
    this.#o.side.newline();
  }

  /** Prints the call's line once; the approval prompt calls this before asking. */
  toolCall(p: ToolCallPayload): void {
    if (this.#printedCalls.has(p.tool_call_id)) return;
    this.#printedCalls.add(p.tool_call_id);
    const c = this.#o.side.colors;
    const { tag, name, summary } = toolCallLine(p.name, p.arguments, p.tool_call_id);
    this.#blockLine(`${c.cyan(tag)} ${c.bold(name)} <- ${sanitizeForTerminal(summary)}`);
  }

  /** A line in the side output, on a fresh line of both outputs. */
  note(text: string): void {
    this.#blockLine(text);
  }

  #model(p: ModelPayload): void {
    switch (p.type) {
      case "partial_text":
        this.#o.waiting?.stop();
        if (p.event_type === "start") this.#begin(this.#textSegment());
        else if (p.event_type === "delta") this.#textDelta(p.text);
        else this.#endSegment();
        this.#streamed.text = true;
        return;
      case "partial_thinking":
        this.#o.waiting?.stop();
        if (p.event_type === "start") this.#begin("thinking");
        else if (p.event_type === "delta") this.#thinkingDelta(p.thinking);
        else this.#endSegment();
        this.#streamed.thinking = true;
        return;
      case "partial_tool_call":
      case "partial_tool_call_output":
        this.#o.waiting?.stop();
        return;
      default:
        this.#complete(p);
    }
  }

  #complete(p: CompleteModelPayload): void {
    this.#o.waiting?.stop();
    switch (p.type) {
      case "text":
        if (p.role === "user") return this.#userText(p.text, p.sender);
        if (this.#streamed.text) {
          this.#streamed.text = false;
          return;
        }
        this.#begin(this.#textSegment());
        this.#textDelta(p.text);
        this.#endSegment();
        return;
      case "thinking":
        if (this.#streamed.thinking) {
          this.#streamed.thinking = false;
          return;
        }
        this.#begin("thinking");
        this.#thinkingDelta(p.thinking);
        this.#endSegment();
        return;
      case "tool_call":
        this.toolCall(p);
        return;
      case "tool_call_output":
        this.#toolOutput(p);
        return;
      case "image_url":
      case "inline_data":
      case "inline_thinking":
        this.#blockLine(this.#o.side.colors.dim(`[${p.type.replace("_", " ")}]`));
        return;
    }
  }

  #userText(text: string, sender: string | undefined): void {
    const c = this.#o.side.colors;
    if (sender === "harness" && startsWithMarker(text, "goal")) {
      const fields = parseFields(extractMarker(text, "goal") ?? "");
      this.#blockLine(c.dim(`[goal] round ${fields.round ?? "?"} · used ${fields.used ?? "?"} of ${fields.budget ?? "?"}`));
      return;
    }
    const label = startsWithMarker(text, "user_steering") ? "steer" : sender === "harness" ? "note" : "user";
    const body = text.replace(/^\[user_steering\]\n?|\n?\[\/user_steering\]$/g, "");
    this.#blockLine(c.dim(`[${label}] ${shorten(sanitizeForTerminal(body), 160)}`));
  }

  #event(p: EventPayload): void {
    const c = this.#o.side.colors;
    switch (p.type) {
      case "request_begin":
        this.#o.waiting?.start();
        return;
      case "request_end":
        this.#o.waiting?.stop();
        if (p.retry_in_ms !== undefined) {
          const next = (p.attempt ?? 1) + 1;
          const of = p.max_attempts !== undefined ? ` of ${p.max_attempts}` : "";
          const why = p.error_message ?? p.status;
          this.#blockLine(c.yellow(`[retry] retrying in ${waitText(p.retry_in_ms)} (attempt ${next}${of}): ${sanitizeForTerminal(shorten(why, 200))}`));
        }
        return;
      case "approval_decision":
        if (p.decision === "deny" || p.decision === "forbidden") this.#refused.add(p.tool_call_id);
        if (this.#o.asked?.has(p.tool_call_id) === true) return;
        if (p.decision === "deny") this.#blockLine(c.red(`✗ [denied] ${toolTag(p.tool_call_id)} by the approval mode`));
        else if (p.decision === "forbidden") {
          this.#blockLine(c.red(`✗ [forbidden] ${toolTag(p.tool_call_id)} by the command policy${p.policy_rule !== undefined ? ` (rule ${p.policy_rule})` : ""}`));
        }
        return;
      case "compaction_begin":
        this.#o.waiting?.stop();
        this.#compacting = true;
        this.#blockLine(c.dim(`[compact] compacting the context (${p.context} tokens, ${p.turns} turns; ${p.reason}, ${p.mode})…`));
        return;
      case "compaction_end":
        this.#compacting = false;
        if (p.status === "completed") this.#blockLine(c.dim(`[compact] done`));
        else this.#blockLine(c.yellow(`[compact] ${p.status}${p.error_message !== undefined ? `: ${sanitizeForTerminal(p.error_message)}` : ""}; the context was kept`));
        return;
      case "mcp_connect_begin":
        this.#blockLine(c.dim(`[mcp] connecting to ${p.servers.join(", ")}…`));
        return;
      case "mcp_connect_end":
        for (const r of p.results) {
          if (r.status === "failed") this.#blockLine(c.yellow(`[mcp] ${r.server} failed: ${sanitizeForTerminal(r.error ?? "unknown error")}`));
          else this.#blockLine(c.dim(`[mcp] ${r.server}: ${r.tools?.length ?? 0} tools`));
        }
        return;
      case "goal_finished": {
        const tone = p.outcome === "complete" ? c.green : c.yellow;
        this.#blockLine(tone(`[goal] ${p.outcome.replace("_", " ")} after ${p.rounds} round${p.rounds === 1 ? "" : "s"} · ${p.tokens_used} tokens`));
        return;
      }
      case "token_usage":
      case "abort":
      case "subagent":
      case "tool_list_ready":
        return;
    }
  }

  #toolOutput(p: ToolCallOutputPayload): void {
    const c = this.#o.side.colors;
    const tag = c.cyan(toolTag(p.tool_call_id));
    // A refused call's output is recorded as stopped (`aborted`); "[aborted]" after "denied" would misname it.
    const refused = this.#refused.delete(p.tool_call_id);
    const status = !refused && p.stop_reason !== undefined && p.stop_reason !== "completed" ? c.red(` [${p.stop_reason}]`) : "";
    const text = sanitizeForTerminal(p.output);
    const lines = text.trim() === "" ? [{ kind: "line" as const, text: c.dim("(no output)") }] : collapseLines(text, this.#o.verbose());
    const indent = " ".repeat(toolTag(p.tool_call_id).length + 4);
    const rendered = lines.map((l, i) => {
      const body = l.kind === "line" ? l.text : c.dim(moreLinesMarker(l.hidden));
      return i === 0 ? `${tag} -> ${body}` : `${indent}${body}`;
    });
    if (p.images !== undefined && p.images.length > 0) rendered.push(`${indent}${c.dim(`[${p.images.length} image(s)]`)}`);
    rendered[rendered.length - 1] += status;
    this.#blockLine(rendered.join("\n"));
  }

  #begin(segment: Segment): void {
    if (this.#segment === segment) return;
    this.#endSegment();
    this.#segment = segment;
    if (segment === "thinking" || segment === "summary") {
      this.#freshLine();
      this.#o.side.write(this.#o.side.colors.dim(`[${segment}] `));
    } else if (segment === "text") {
      this.#freshLine();
      if (this.#o.markdown !== undefined) this.#markdown = new MarkdownBlocks(this.#o.markdown);
    }
  }

  #endSegment(): void {
    if (this.#segment === "text") {
      const rest = this.#markdown?.flush();
      if (rest !== undefined) this.#o.text.write(`${rest}\n`);
      this.#markdown = undefined;
      this.#o.text.newline();
    } else if (this.#segment === "thinking" || this.#segment === "summary") {
      this.#o.side.newline();
    }
    this.#segment = "none";
  }

  #textSegment(): "text" | "summary" {
    return this.#compacting ? "summary" : "text";
  }

  #textDelta(delta: string): void {
    const segment = this.#textSegment();
    if (this.#segment !== segment) this.#begin(segment);
    const clean = sanitizeForTerminal(delta);
    if (segment === "summary") return this.#o.side.write(this.#o.side.colors.dim(clean));
    if (this.#markdown === undefined) return this.#o.text.write(clean);
    for (const block of this.#markdown.push(clean)) this.#o.text.write(`${block}\n\n`);
  }

  #thinkingDelta(delta: string): void {
    if (this.#segment !== "thinking") this.#begin("thinking");
    this.#o.side.write(this.#o.side.colors.dim(sanitizeForTerminal(delta)));
  }

  /** Puts both outputs at a line start (the other one only when it shares the terminal). */
  #freshLine(): void {
    const { text, side } = this.#o;
    if (text !== side && text.isTTY && side.isTTY) {
      text.newline();
    }
    side.newline();
  }

  #blockLine(line: string): void {
    if (this.#segment !== "none") this.#endSegment();
    this.#freshLine();
    this.#o.side.write(`${line}\n`);
  }
}

/** A reconnect wait in whole seconds ("4 s"), or tenths below ten seconds when not whole ("1.5 s"). */
function waitText(ms: number): string {
  const seconds = ms / 1000;
  if (Number.isInteger(seconds) || seconds >= 10) return `${Math.round(seconds)} s`;
  return `${seconds.toFixed(1)} s`;
}
