/**
 * The history shape shared by the four `to-wire` builders: complete OmniMessage payloads,
 * grouped into alternating user-side and assistant-side runs.
 *
 * Every wire protocol wants the conversation as turns (one assistant message carrying its
 * thinking, text and tool calls; one user message carrying the tool results and what the
 * human said next), so the grouping is done once here. Within a user run, tool outputs come
 * first: every protocol requires results to follow their calls directly (chat `tool` messages
 * right after the assistant message, Anthropic `tool_result` blocks first in the user
 * message), and steering text the human typed during a tool call must not split them.
 */
import type {
  CompleteModelPayload,
  ImageUrlPayload,
  InlineDataPayload,
  InlineThinkingPayload,
  TextPayload,
  ThinkingPayload,
  ToolCallOutputPayload,
  ToolCallPayload,
} from "@penguin/omnimessage";

export type UserItem = TextPayload | ImageUrlPayload | InlineDataPayload | ToolCallOutputPayload;
export type AssistantItem = TextPayload | ThinkingPayload | InlineThinkingPayload | ToolCallPayload | InlineDataPayload;

export type Run = { side: "user"; items: UserItem[] } | { side: "assistant"; items: AssistantItem[] };

type Sided = { side: "user"; item: UserItem } | { side: "assistant"; item: AssistantItem };

function sided(p: CompleteModelPayload): Sided {
  switch (p.type) {
    case "text":
    case "inline_data":
      return p.role === "user" ? { side: "user", item: p } : { side: "assistant", item: p };
    case "image_url":
    case "tool_call_output":
      return { side: "user", item: p };
    case "thinking":
    case "inline_thinking":
    case "tool_call":
      return { side: "assistant", item: p };
  }
}

/** Groups the history into runs; tool outputs move to the front of their user run. */
export function toRuns(messages: readonly CompleteModelPayload[]): Run[] {
  const runs: Run[] = [];
  for (const m of messages) {
    const s = sided(m);
    const last = runs[runs.length - 1];
    if (s.side === "user") {
      if (last !== undefined && last.side === "user") last.items.push(s.item);
      else runs.push({ side: "user", items: [s.item] });
    } else if (last !== undefined && last.side === "assistant") {
      last.items.push(s.item);
    } else {
      runs.push({ side: "assistant", items: [s.item] });
    }
  }
  for (const r of runs) if (r.side === "user" && !outputsFirst(r.items)) r.items = [...r.items.filter((i) => i.type === "tool_call_output"), ...r.items.filter((i) => i.type !== "tool_call_output")];
  return runs;
}

/** Whether no tool output follows another item (the usual run: nothing to reorder, nothing to copy). */
function outputsFirst(items: readonly UserItem[]): boolean {
  let seenOther = false;
  for (const i of items) {
    if (i.type !== "tool_call_output") seenOther = true;
    else if (seenOther) return false;
  }
  return true;
}

/** Maps each tool_call_id in the history to its tool name (Gemini answers by name). */
export function toolNamesById(messages: readonly CompleteModelPayload[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const m of messages) if (m.type === "tool_call") names.set(m.tool_call_id, m.name);
  return names;
}

/** Splits a `data:` URL into its media type and base64 payload. */
export function parseDataUrl(url: string): { mimeType: string; data: string } | undefined {
  const m = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s.exec(url);
  if (m === null || m[1] === undefined || m[2] === undefined) return undefined;
  return { mimeType: m[1], data: m[2] };
}

/** A fidelity member as a string, or undefined. */
export function fidelityString(f: Record<string, unknown> | undefined, key: string): string | undefined {
  const v = f?.[key];
  return typeof v === "string" ? v : undefined;
}
