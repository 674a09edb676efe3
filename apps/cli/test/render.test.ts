// The pure pieces behind the CLI's output, tested without a process: collapsing, tool-line
// summaries, markdown block splitting, masking, cost, sanitizing, the Ctrl-C ladder, slash
// command parsing, outcome folding, and the renderer's routing of a stream to its outputs.
import { abortEvent, approvalDecision, assistantText, compactionBegin, compactionEnd, eventMessage, modelMessage, requestEnd, userText, type OmniMessage } from "@penguin/omnimessage";
import pc from "picocolors";
import { describe, expect, it } from "vitest";
import { interruptAction } from "../src/chat/interrupt.js";
import { parseSlash } from "../src/chat/slash-commands.js";
import { sanitizeForTerminal } from "../src/io/sanitize.js";
import { collapseLines } from "../src/render/collapse.js";
import { costUsd } from "@penguin/models";
import { compactNumber, shorten, usd } from "../src/render/format.js";
import { HumanRenderer } from "../src/render/human-renderer.js";
import { completeBlocksEnd, MarkdownBlocks } from "../src/render/markdown-blocks.js";
import { maskSecret } from "../src/render/mask.js";
import { Output } from "../src/render/output.js";
import { argumentSummary, toolTag } from "../src/render/tool-line.js";
import { exitCodeOf, OutcomeTracker } from "../src/session/outcome.js";

describe("collapseLines", () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `l${i + 1}`).join("\n");
  it("keeps up to 9 lines, and shows 4 + marker + 4 above that", () => {
    expect(collapseLines(lines(9)).map((l) => (l.kind === "line" ? l.text : "…"))).toEqual(lines(9).split("\n"));
    const ten = collapseLines(lines(10));
    expect(ten).toEqual([
      { kind: "line", text: "l1" },
      { kind: "line", text: "l2" },
      { kind: "line", text: "l3" },
      { kind: "line", text: "l4" },
      { kind: "more", hidden: 2 },
      { kind: "line", text: "l7" },
      { kind: "line", text: "l8" },
      { kind: "line", text: "l9" },
      { kind: "line", text: "l10" },
    ]);
    expect(collapseLines(lines(30), true)).toHaveLength(30);
  });
});

describe("tool lines", () => {
  it("tags with the last 3 chars of the call id and summarizes arguments", () => {
    expect(toolTag("call_abcXYZ")).toBe("[tool-XYZ]");
    expect(argumentSummary("exec_command", JSON.stringify({ cmd: "ls -la\nwc -l", description: "list" }))).toBe("$ ls -la wc -l");
    expect(argumentSummary("read_file", JSON.stringify({ path: "src/a.ts", offset: 10, description: "read it" }))).toBe("src/a.ts (offset=10)");
    expect(argumentSummary("write_file", JSON.stringify({ path: "a.txt", content: "x".repeat(500), description: "w" }))).toBe("a.txt");
    expect(argumentSummary("kill_command", JSON.stringify({ process_id: 7, description: "stop" }))).toBe("7");
    expect(argumentSummary("custom", JSON.stringify({ description: "only prose" }))).toBe("only prose");
    expect(argumentSummary("custom", "{not json")).toBe("{not json");
  });
});

describe("markdown blocks", () => {
  it("releases blocks at blank lines outside code fences only", () => {
    expect(completeBlocksEnd("para one\n\npara")).toBe("para one\n\n".length);
    expect(completeBlocksEnd("```\ncode\n\nmore\n")).toBe(0);
    expect(completeBlocksEnd("```\ncode\n\n```\n\nafter")).toBe("```\ncode\n\n```\n\n".length);
    const blocks = new MarkdownBlocks((md) => `<${md.trim()}>`);
    expect(blocks.push("# Ti")).toEqual([]);
    expect(blocks.push("tle\n\nSome ")).toEqual(["<# Title>"]);
    expect(blocks.push("text")).toEqual([]);
    expect(blocks.flush()).toBe("<Some text>");
    expect(blocks.flush()).toBeUndefined();
  });
});

describe("small formats", () => {
  it("masks secrets, prices usage, and shortens", () => {
    expect(maskSecret("sk-abcdefghijklmnop")).toBe("sk-…mnop");
    expect(maskSecret("short")).toBe("****");
    const usage = { cache_read: 1_000_000, cache_write: 2_000_000, output: 500_000, total: 3_500_000 };
    expect(costUsd(usage, { unit: "usd_per_mtok", cache_read: 0.1, cache_write: 1, output: 4 })).toBeCloseTo(4.1);
    expect(costUsd(usage, { unit: "usd_per_mtok", cache_write: 1, output: 4 })).toBeUndefined();
    expect(costUsd({ ...usage, cache_read: 0 }, { unit: "usd_per_mtok", cache_write: 1, output: 4 })).toBeCloseTo(4);
    expect(costUsd(usage, undefined)).toBeUndefined();
    expect(usd(undefined)).toBe("n/a");
    expect(usd(0.00123)).toBe("$0.0012");
    expect(usd(12.5)).toBe("$12.50");
    expect(compactNumber(999)).toBe("999");
    expect(compactNumber(12_345)).toBe("12.3k");
    expect(compactNumber(128_000)).toBe("128k");
    expect(compactNumber(2_500_000)).toBe("2.5M");
    expect(shorten("a  b\nc", 10)).toBe("a b c");
    expect(shorten("abcdef ghij", 8)).toBe("abcdef…");
  });

  it("strips escape sequences and control characters from model and tool text", () => {
    expect(sanitizeForTerminal("\u001b[31mred\u001b[0m and \u001b]0;title\u0007 bell\u0007 ok\r\n")).toBe("red and  bell ok\n");
    expect(sanitizeForTerminal("tab\tkept\nnewline kept")).toBe("tab\tkept\nnewline kept");
  });
});

describe("the Ctrl-C ladder", () => {
  const s = { approvalPending: false, taskRunning: false, lineHasText: false, exitArmed: false };
  it("denies, then aborts, then clears, then confirms, then exits", () => {
    expect(interruptAction({ ...s, approvalPending: true, taskRunning: true })).toBe("deny-approval");
    expect(interruptAction({ ...s, taskRunning: true, lineHasText: true })).toBe("abort-task");
    expect(interruptAction({ ...s, lineHasText: true, exitArmed: true })).toBe("clear-line");
    expect(interruptAction(s)).toBe("confirm-exit");
    expect(interruptAction({ ...s, exitArmed: true })).toBe("exit");
  });
});

describe("slash commands", () => {
  it("parses the commands and their arguments", () => {
    expect(parseSlash("/compact")).toEqual({ kind: "compact" });
    expect(parseSlash("/EXIT")).toEqual({ kind: "exit" });
    expect(parseSlash("/thinking")).toEqual({ kind: "thinking", level: undefined });
    expect(parseSlash("/thinking high")).toEqual({ kind: "thinking", level: "high" });
    expect(parseSlash("/model")).toEqual({ kind: "model", ref: undefined });
    expect(parseSlash("/model openrouter/anthropic/claude")).toEqual({ kind: "model", ref: { provider: "openrouter", modelId: "anthropic/claude" } });
    expect(parseSlash("/model openai gpt-5")).toEqual({ kind: "model", ref: { provider: "openai", modelId: "gpt-5" } });
    expect(parseSlash("/model gpt-5").kind).toBe("invalid");
    expect(parseSlash("/clear now").kind).toBe("invalid");
    expect(parseSlash("/what").kind).toBe("invalid");
  });
});

describe("task outcomes", () => {
  const fold = (ms: OmniMessage[], interrupted = false) => {
    const t = new OutcomeTracker(() => interrupted);
    for (const m of ms) t.observe(m);
    return t.outcome;
  };
  it("maps the end of a stream to done, aborted, auth or failed", () => {
    expect(exitCodeOf(fold([requestEnd("completed")]))).toBe(0);
    expect(exitCodeOf(fold([requestEnd("aborted"), abortEvent("aborted by user")], true))).toBe(130);
    expect(fold([requestEnd("auth", { error_message: "p/m: HTTP 401" }), abortEvent("auth: p/m: HTTP 401")])).toEqual({ kind: "auth", message: "p/m: HTTP 401" });
    expect(exitCodeOf(fold([requestEnd("failed", { error_message: "x", attempt: 6 }), abortEvent("failed after 6 attempts: x")]))).toBe(1);
    expect(exitCodeOf(fold([requestEnd("completed"), abortEvent("reached max turns (3); stopping")]))).toBe(1);
  });
});

describe("HumanRenderer routing", () => {
  function outputs() {
    const text: string[] = [];
    const side: string[] = [];
    const colors = pc.createColors(false);
    return { text, side, t: new Output((s) => text.push(s), colors, false), s: new Output((s) => side.push(s), colors, false) };
  }
  const partial = (type: "partial_text" | "partial_thinking", event: "start" | "delta" | "stop", value: string): OmniMessage =>
    type === "partial_text"
      ? modelMessage({ type, role: "assistant", event_type: event, text: value })
      : modelMessage({ type, role: "assistant", event_type: event, thinking: value });

  it("streams text to the text output once, and thinking, notes and summaries to the side", () => {
    const o = outputs();
    const r = new HumanRenderer({ text: o.t, side: o.s, verbose: () => false });
    for (const m of [
      partial("partial_thinking", "start", ""),
      partial("partial_thinking", "delta", "hmm"),
      partial("partial_thinking", "stop", ""),
      modelMessage({ type: "thinking", role: "assistant", thinking: "hmm" }),
      partial("partial_text", "start", ""),
      partial("partial_text", "delta", "Hel"),
      partial("partial_text", "delta", "lo\u001b[2J"),
      partial("partial_text", "stop", ""),
      assistantText("Hello"),
      userText("[user_steering]\nmore\n[/user_steering]"),
      eventMessage({ type: "request_end", status: "failed", error_message: "boom", attempt: 2, retry_in_ms: 4000, max_attempts: 6 }),
      compactionBegin({ reason: "manual", mode: "summarize", context: 1234, turns: 3 }),
      assistantText("the summary"),
      compactionEnd({ reason: "manual", mode: "summarize", status: "completed" }),
    ]) {
      r.handle(m);
    }
    r.finish();
    expect(o.text.join("")).toBe("Hello\n");
    expect(o.side.join("")).toBe(
      "[thinking] hmm\n[steer] more\n[retry] retrying in 4 s (attempt 3 of 6): boom\n[compact] compacting the context (1234 tokens, 3 turns; manual, summarize)…\n[summary] the summary\n[compact] done\n",
    );
  });

  it("ignores messages forwarded from child sessions", () => {
    const o = outputs();
    const r = new HumanRenderer({ text: o.t, side: o.s, verbose: () => false });
    r.handle({ ...assistantText("from a child"), origin: ["session-x"] });
    r.finish();
    expect(o.text.join("") + o.side.join("")).toBe("");
  });

  it("labels a stopped tool output, but not the output of a call it already showed as denied or forbidden", () => {
    const o = outputs();
    const r = new HumanRenderer({ text: o.t, side: o.s, verbose: () => false });
    const output = (id: string, text: string) => modelMessage({ type: "tool_call_output", role: "user", tool_call_id: id, output: text, stop_reason: "aborted" });
    r.handle(approvalDecision("deny", "call_aaa111"));
    r.handle(output("call_aaa111", "Tool call denied by user."));
    r.handle(approvalDecision("forbidden", "call_bbb222", { policyRule: "no-rm" }));
    r.handle(output("call_bbb222", "Tool call denied by the command policy."));
    r.handle(output("call_ccc333", "interrupted"));
    r.finish();
    expect(o.side.join("")).toBe(
      "✗ [denied] [tool-111] by the approval mode\n[tool-111] -> Tool call denied by user.\n" +
        "✗ [forbidden] [tool-222] by the command policy (rule no-rm)\n[tool-222] -> Tool call denied by the command policy.\n" +
        "[tool-333] -> interrupted [aborted]\n",
    );
  });
});
