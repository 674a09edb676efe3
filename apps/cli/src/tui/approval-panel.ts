/**
 * The approval question of the terminal UI: what the call will do (the exact command, or the
 * diff a write or edit would make) and four choices, picked with ↑/↓ and Enter or a key:
 *
 *   1 y  allow once
 *   2 a  allow this tool (a shell call: commands starting with its program) for the session
 *   3 n  deny
 *   4 d  deny with a note: a one-line input; the note reaches the model with the denial
 *
 * It answers core's ApproveFn with an ApprovalAnswer; the approvals decider records the
 * `approval_decision` (and an `approval_rule` for a session rule) as for any host. Esc in the
 * note goes back to the choices; Ctrl-C (handled by the chat) denies.
 */
import type { Component, Focusable, Input } from "@mariozechner/pi-tui";
import { piTui } from "./pi-tui.js";
import { commandPrefixOf, SHELL_TOOL, type ApprovalAnswer } from "@penguin/core";
import type { ToolCallPayload } from "@penguin/omnimessage";
import type { Colors } from "../io/colors.js";
import { sanitizeForTerminal } from "../io/sanitize.js";
import { approvalDetail } from "../render/approval-detail.js";
import { toolCallLine } from "../render/tool-line.js";
import { callDiff, paintDiff } from "./diff-view.js";

export const APPROVAL_TITLE = "Approve this tool call?";
/** At most this many diff lines are shown in the question. */
const DIFF_LINES = 30;

interface Choice {
  key: string;
  label: string;
  answer: ApprovalAnswer | "note";
}

function fullCommand(argumentsJson: string): string | undefined {
  try {
    const v: unknown = JSON.parse(argumentsJson);
    const cmd: unknown = typeof v === "object" && v !== null ? Reflect.get(v, "cmd") : undefined;
    return typeof cmd === "string" ? cmd : undefined;
  } catch {
    return undefined;
  }
}

export class ApprovalPanel implements Component, Focusable {
  readonly #c: Colors;
  readonly #call: ToolCallPayload;
  readonly #details: string[];
  readonly #choices: Choice[];
  readonly #done: (answer: ApprovalAnswer) => void;
  #selected = 0;
  #note: Input | undefined;
  #focused = false;

  constructor(call: ToolCallPayload, workspace: string, c: Colors, done: (answer: ApprovalAnswer) => void) {
    this.#c = c;
    this.#call = call;
    this.#done = done;
    const diff = callDiff(call.name, call.arguments, workspace);
    const cmd = call.name === SHELL_TOOL ? fullCommand(call.arguments) : undefined;
    this.#details = [];
    // The size of a write or edit (render/approval-detail.ts, as the line chat says it); a command is shown whole below.
    const size = cmd === undefined ? approvalDetail(call.name, call.arguments) : undefined;
    if (size !== undefined) this.#details.push(c.dim(size.trim()));
    if (cmd !== undefined) this.#details.push(`${c.dim("$")} ${sanitizeForTerminal(cmd)}`);
    if (diff !== undefined) {
      const painted = paintDiff(diff, c);
      this.#details.push(...painted.slice(0, DIFF_LINES));
      if (painted.length > DIFF_LINES) this.#details.push(c.dim(`… ${painted.length - DIFF_LINES} more diff lines`));
      if (painted.length === 0) this.#details.push(c.dim("(no change)"));
    }
    const prefix = call.name === SHELL_TOOL ? commandPrefixOf(call.arguments) : undefined;
    const forSession = call.name !== SHELL_TOOL ? `allow ${call.name} for this session` : prefix !== undefined ? `allow \`${prefix}\` commands for this session` : undefined;
    this.#choices = [
      { key: "y", label: "allow once", answer: "allow" },
      ...(forSession === undefined ? [] : [{ key: "a", label: forSession, answer: { decision: "allow" as const, forSession: {} } }]),
      { key: "n", label: "deny", answer: "deny" },
      { key: "d", label: "deny with a note to the model", answer: "note" as const },
    ];
  }

  get focused(): boolean {
    return this.#focused;
  }
  set focused(value: boolean) {
    this.#focused = value;
    if (this.#note !== undefined) this.#note.focused = value;
  }

  #pick(choice: Choice): void {
    if (choice.answer !== "note") return this.#done(choice.answer);
    const input = new (piTui().Input)();
    input.focused = this.#focused;
    input.onSubmit = (value) => this.#done({ decision: "deny", note: value });
    input.onEscape = () => (this.#note = undefined);
    this.#note = input;
  }

  handleInput(data: string): void {
    if (this.#note !== undefined) return this.#note.handleInput(data);
    const { matchesKey } = piTui();
    if (matchesKey(data, "up")) this.#selected = (this.#selected + this.#choices.length - 1) % this.#choices.length;
    else if (matchesKey(data, "down") || matchesKey(data, "tab")) this.#selected = (this.#selected + 1) % this.#choices.length;
    else if (matchesKey(data, "enter")) this.#pick(this.#choices[this.#selected]!);
    else if (matchesKey(data, "escape")) this.#done("deny");
    else {
      const byKey = this.#choices.findIndex((ch, i) => ch.key === data.toLowerCase() || String(i + 1) === data);
      if (byKey >= 0) this.#pick(this.#choices[byKey]!);
    }
  }

  render(width: number): string[] {
    const { truncateToWidth, wrapTextWithAnsi } = piTui();
    const c = this.#c;
    const { tag, name, summary } = toolCallLine(this.#call.name, this.#call.arguments, this.#call.tool_call_id);
    const rule = c.yellow("─".repeat(Math.max(1, width)));
    const out = [rule, `${c.yellow("?")} ${c.bold(APPROVAL_TITLE)} ${c.cyan(tag)} ${c.bold(name)} <- ${sanitizeForTerminal(summary)}`];
    for (const d of this.#details) for (const w of wrapTextWithAnsi(`  ${d}`, width)) out.push(w);
    if (this.#note !== undefined) {
      out.push(c.dim("  note to the model (Enter sends it with the denial, Esc goes back):"));
      for (const l of this.#note.render(Math.max(1, width - 2))) out.push(`  ${l}`);
    } else {
      this.#choices.forEach((ch, i) => {
        const text = `${i + 1} ${ch.key}  ${ch.label}`;
        out.push(i === this.#selected ? `${c.cyan("›")} ${c.bold(text)}` : `  ${text}`);
      });
      out.push(c.dim("  ↑/↓ and Enter, or press the key · Ctrl-C denies"));
    }
    return out.map((l) => truncateToWidth(l, width));
  }

  invalidate(): void {}
}
