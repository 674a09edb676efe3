/**
 * The Traces page's timeline: one row per trace line with its lane and a short description.
 * Pure, over OmniMessages narrowed with the protocol guards. Per-request figures (context,
 * cache, output, duration, retries) are not derived here: the server computes them once
 * with core's trace summary (`A/traces/:sid/analysis`).
 */
import { isCompleteModel, isEvent, isPartial, isSessionMeta, type OmniMessage } from "@penguin/omnimessage";

export interface TimelineRow {
  line: number;
  at: number;
  lane: "meta" | "input" | "model" | "tool" | "event";
  type: string;
  text: string;
}

function clip(s: string, n = 140): string {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
}

export function timelineRow(line: number, m: OmniMessage): TimelineRow {
  const at = Date.parse(m.timestamp);
  if (isSessionMeta(m)) return { line, at, lane: "meta", type: "session_meta", text: `${m.payload.provider}/${m.payload.model_id} · ${m.payload.workspace}` };
  if (isPartial(m)) return { line, at, lane: "model", type: m.payload.type, text: m.payload.event_type };
  if (isCompleteModel(m)) {
    const p = m.payload;
    switch (p.type) {
      case "text":
        return { line, at, lane: p.role === "user" ? "input" : "model", type: `text (${p.role})`, text: clip(p.text) };
      case "thinking":
        return { line, at, lane: "model", type: "thinking", text: clip(p.thinking) };
      case "tool_call":
        return { line, at, lane: "tool", type: "tool_call", text: `${p.name} ${clip(p.arguments, 100)}` };
      case "tool_call_output":
        return { line, at, lane: "tool", type: "tool_call_output", text: `${p.stop_reason ?? "completed"} · ${clip(p.output, 100)}` };
      case "image_url":
        return { line, at, lane: "input", type: "image_url", text: p.image_url.startsWith("data:") ? "(inline image)" : p.image_url };
      case "inline_thinking":
      case "inline_data":
        return { line, at, lane: "model", type: p.type, text: p.mime_type };
    }
  }
  if (isEvent(m)) {
    const p = m.payload;
    let text = "";
    if (p.type === "request_end") text = `${p.status}${p.error_message !== undefined ? ` · ${p.error_message}` : ""}`;
    else if (p.type === "token_usage") text = `${p.request.total} tokens (${p.request.cache_read} cached, ${p.request.output} out)`;
    else if (p.type === "approval_decision") text = `${p.decision} ${p.tool_call_id}`;
    else if (p.type === "compaction_begin") text = `${p.reason}, ${p.mode}`;
    else if (p.type === "compaction_end") text = p.status;
    else if (p.type === "subagent") text = p.session_id;
    else if (p.type === "tool_list_ready") text = `${p.tools.length} tools`;
    else if (p.type === "abort") text = p.reason ?? "";
    return { line, at, lane: "event", type: p.type, text };
  }
  return { line, at, lane: "event", type: "unknown", text: "" };
}
