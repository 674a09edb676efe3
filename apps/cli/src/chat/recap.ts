/**
 * The recap `penguin chat --resume` prints before the prompt: the conversation so far, read
 * from the session's whole trace (every rotated file, so what a compaction folded away is
 * still shown), as one short line per message: what the Human asked, what the agent
 * answered, the tools it called, and where compactions and aborts happened. Only the last
 * `RECAP_LINES` lines are shown, with a count of the ones left out.
 */
import { loadRecording, type AgentPaths } from "@penguin/core";
import { startsWithMarker } from "@penguin/omnimessage";
import { sanitizeForTerminal } from "../io/sanitize.js";
import { shorten } from "../render/format.js";
import type { Output } from "../render/output.js";
import { toolCallLine } from "../render/tool-line.js";

export const RECAP_LINES = 20;

/** The recap lines of a session, oldest first (without colours). */
export function recapLines(paths: AgentPaths, sessionId: string): string[] {
  const lines: string[] = [];
  for (const { message: m } of loadRecording({ paths }, sessionId).events) {
    if (m.origin !== undefined) continue;
    if (m.type === "model_msg") {
      const p = m.payload;
      if (p.type === "text" && p.role === "user" && p.sender === undefined) {
        lines.push(startsWithMarker(p.text, "user_steering") ? `  (steering) ${shorten(p.text.replace(/\s+/g, " "), 100)}` : `› ${shorten(p.text.replace(/\s+/g, " "), 110)}`);
      } else if (p.type === "text" && p.role === "assistant") lines.push(`  ${shorten(p.text.replace(/\s+/g, " "), 110)}`);
      else if (p.type === "tool_call") {
        const { tag, name, summary } = toolCallLine(p.name, p.arguments, p.tool_call_id);
        lines.push(`  ${tag} ${name} <- ${shorten(summary, 80)}`);
      }
    } else if (m.type === "event_msg") {
      const e = m.payload;
      if (e.type === "compaction_end" && e.status === "completed") lines.push("  [compacted] the context was summarized");
      else if (e.type === "abort") lines.push(`  [aborted] ${e.reason ?? ""}`.trimEnd());
    }
  }
  return lines;
}

export function printRecap(out: Output, paths: AgentPaths, sessionId: string): void {
  const lines = recapLines(paths, sessionId);
  if (lines.length === 0) return;
  const c = out.colors;
  out.line(c.dim("── the conversation so far ──"));
  if (lines.length > RECAP_LINES) out.line(c.dim(`  … ${lines.length - RECAP_LINES} earlier line(s); penguin trace show ${sessionId} has them all`));
  for (const line of lines.slice(-RECAP_LINES)) out.line(c.dim(sanitizeForTerminal(line)));
  out.line(c.dim("──"));
}
