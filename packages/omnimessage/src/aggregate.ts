/**
 * PartialAggregator: folds streaming `partial_*` fragments back into complete messages.
 *
 * Consumers that only see fragments (a reloading web client seeded from a live cursor, a
 * replay of a recorded stream) use it to rebuild what the producer would have emitted.
 *
 * Rules:
 * - Fragments are grouped by origin chain + payload type + `tool_call_id`, so interleaved
 *   tool calls, tool outputs and forwarded child streams never mix.
 * - `start` opens a segment; a `delta` (or `stop`) with nothing open opens one implicitly; a
 *   second `start` on an open segment closes the first one.
 * - `stop` emits the complete message. Text is the concatenation of every fragment's text;
 *   a tool call's name is the first non-empty name; images are carried whole.
 * - The last `stop_reason` seen wins; without one the complete message says `completed`.
 * - `flush()` closes whatever is still open, in the order it was opened.
 */
import type {
  CompleteModelPayload,
  OmniMessage,
  PartialPayload,
  StopReason,
} from "./types.js";
import { isPartial } from "./guards.js";

interface OpenSegment {
  first: PartialPayload;
  origin?: string[];
  timestamp: string;
  name: string;
  body: string;
  images: string[] | undefined;
  stopReason: StopReason | undefined;
}

function bodyOf(p: PartialPayload): string {
  switch (p.type) {
    case "partial_text":
      return p.text;
    case "partial_thinking":
      return p.thinking;
    case "partial_tool_call":
      return p.arguments;
    case "partial_tool_call_output":
      return p.output;
  }
}

function keyOf(m: OmniMessage<"model_msg"> & { payload: PartialPayload }): string {
  const id = "tool_call_id" in m.payload ? m.payload.tool_call_id : "";
  return `${(m.origin ?? []).join("/")}|${m.payload.type}::${id}`;
}

function completeOf(seg: OpenSegment, fallbackReason: StopReason): CompleteModelPayload {
  const stop_reason = seg.stopReason ?? fallbackReason;
  const p = seg.first;
  switch (p.type) {
    case "partial_text":
      return { type: "text", role: "assistant", text: seg.body, stop_reason };
    case "partial_thinking":
      return { type: "thinking", role: "assistant", thinking: seg.body, stop_reason };
    case "partial_tool_call":
      return {
        type: "tool_call",
        role: "assistant",
        name: seg.name,
        arguments: seg.body,
        tool_call_id: p.tool_call_id,
        stop_reason,
      };
    case "partial_tool_call_output": {
      const out: CompleteModelPayload = {
        type: "tool_call_output",
        role: "user",
        output: seg.body,
        tool_call_id: p.tool_call_id,
        stop_reason,
      };
      if (seg.images !== undefined) out.images = seg.images;
      return out;
    }
  }
}

export class PartialAggregator {
  readonly #open = new Map<string, OpenSegment>();

  /** Feed one message. Returns the complete messages it closed (usually zero or one). */
  push(m: OmniMessage): OmniMessage<"model_msg">[] {
    if (!isPartial(m)) return [];
    const key = keyOf(m);
    const p = m.payload;
    const closed: OmniMessage<"model_msg">[] = [];
    let seg = this.#open.get(key);
    if (p.event_type === "start" && seg !== undefined) {
      closed.push(this.#close(key, seg, "completed"));
      seg = undefined;
    }
    if (seg === undefined) {
      seg = {
        first: p,
        timestamp: m.timestamp,
        name: "",
        body: "",
        images: undefined,
        stopReason: undefined,
      };
      if (m.origin !== undefined) seg.origin = [...m.origin];
      this.#open.set(key, seg);
    }
    seg.body += bodyOf(p);
    if (p.type === "partial_tool_call" && seg.name === "" && p.name !== "") seg.name = p.name;
    if (p.type === "partial_tool_call_output" && p.images !== undefined) {
      seg.images = [...(seg.images ?? []), ...p.images];
    }
    if (p.stop_reason !== undefined) seg.stopReason = p.stop_reason;
    seg.timestamp = m.timestamp;
    if (p.event_type === "stop") closed.push(this.#close(key, seg, "completed"));
    return closed;
  }

  /** Close every open segment. `reason` applies where no fragment carried a stop_reason. */
  flush(reason: StopReason = "completed"): OmniMessage<"model_msg">[] {
    const out: OmniMessage<"model_msg">[] = [];
    for (const [key, seg] of [...this.#open]) out.push(this.#close(key, seg, reason));
    return out;
  }

  /** True while some segment is open. */
  get pending(): boolean {
    return this.#open.size > 0;
  }

  #close(key: string, seg: OpenSegment, fallback: StopReason): OmniMessage<"model_msg"> {
    this.#open.delete(key);
    const m: OmniMessage<"model_msg"> = {
      timestamp: seg.timestamp,
      type: "model_msg",
      payload: completeOf(seg, fallback),
    };
    if (seg.origin !== undefined && seg.origin.length > 0) m.origin = seg.origin;
    return m;
  }
}

/**
 * Aggregate a whole list of fragments into complete messages, in the order they closed.
 * Non-partial messages in the input are ignored; open segments are flushed at the end.
 */
export function aggregateAll(messages: Iterable<OmniMessage>, reason: StopReason = "completed"): OmniMessage<"model_msg">[] {
  const agg = new PartialAggregator();
  const out: OmniMessage<"model_msg">[] = [];
  for (const m of messages) out.push(...agg.push(m));
  out.push(...agg.flush(reason));
  return out;
}
