/**
 * Reading a trace file for the Traces page: one point per model request (context size =
 * cached + uncached input tokens, the cached part, output, duration) from the
 * `request_begin` / `request_end` / `token_usage` events, and a timeline row per line with
 * a short description. Pure functions over OmniMessages, narrowed with the protocol guards.
 */
import { isCompleteModel, isEvent, isPartial, isSessionMeta, type OmniMessage } from "@penguin/omnimessage";

export interface RequestPoint {
  n: number;
  context: number;
  cached: number;
  output: number;
  durationMs: number | undefined;
  status: string;
}

export function requestPoints(messages: readonly OmniMessage[]): RequestPoint[] {
  const out: RequestPoint[] = [];
  let begin: number | undefined;
  let pending: Omit<RequestPoint, "context" | "cached" | "output"> | undefined;
  for (const m of messages) {
    if (m.origin !== undefined && m.origin.length > 0) continue;
    const t = Date.parse(m.timestamp);
    if (isEvent(m, "request_begin")) begin = t;
    else if (isEvent(m, "request_end")) {
      pending = { n: out.length + 1, durationMs: begin === undefined || Number.isNaN(t) ? undefined : t - begin, status: m.payload.status };
      begin = undefined;
      if (m.payload.status !== "completed") {
        out.push({ ...pending, context: 0, cached: 0, output: 0 });
        pending = undefined;
      }
    } else if (isEvent(m, "token_usage")) {
      const r = m.payload.request;
      const base = pending ?? { n: out.length + 1, durationMs: undefined, status: "completed" };
      out.push({ ...base, context: r.cache_read + r.cache_write, cached: r.cache_read, output: r.output });
      pending = undefined;
    }
  }
  return out;
}

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
