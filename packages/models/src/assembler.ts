/**
 * ResponseAssembler: turns a protocol reducer's segment operations into the gateway's output
 * stream, keeping the gateway contract in one place for all four protocols.
 *
 * Rules kept here:
 * - Each segment yields `partial_* start`, its deltas as they arrive, then `stop`, and the
 *   complete payload right after its stop (with `fidelity` when the reducer set one, and
 *   `stop_reason`, so aggregating the partials gives the same complete message).
 * - Complete messages settle in the order thinking → text → tool_call within a response,
 *   whatever order the provider interleaved them: deltas stream live, but a text or tool call
 *   is only settled (stop + complete) at the end of the response. A thinking segment settles as
 *   soon as it closes, which is always in order because nothing later-ranked has settled yet.
 * - Two segments that would share an aggregation key (a second text block while the first is
 *   held) never overlap: opening the second settles the held ones of equal or lower rank first.
 * - `finish(reason)` closes whatever is open and settles everything; on a failure the held
 *   messages carry the failure's stop reason, so no segment is ever left open.
 */
import type {
  Fidelity,
  ModelPayload,
  PartialTextPayload,
  PartialThinkingPayload,
  PartialToolCallPayload,
  StopReason,
  TextPayload,
  ThinkingPayload,
  ToolCallPayload,
} from "@penguin/omnimessage";

export type SegmentKind = "thinking" | "text" | "tool_call";

const RANK: Record<SegmentKind, number> = { thinking: 0, text: 1, tool_call: 2 };

export interface Segment {
  readonly kind: SegmentKind;
  /** The tool call id; empty for thinking and text. */
  readonly id: string;
  readonly name: string;
  /** Everything appended so far (thinking text, text, or arguments JSON). */
  readonly body: string;
  readonly fidelity: Fidelity | undefined;
  readonly state: "open" | "closed" | "settled";
}

interface MutableSegment {
  kind: SegmentKind;
  id: string;
  name: string;
  body: string;
  fidelity: Fidelity | undefined;
  state: "open" | "closed" | "settled";
  order: number;
}

export class ResponseAssembler {
  readonly #out: ModelPayload[] = [];
  readonly #segments: MutableSegment[] = [];
  #count = 0;
  #laterSettled = false;

  /** Open a segment and emit its start. */
  open(kind: SegmentKind, opts: { id?: string; name?: string } = {}): Segment {
    const id = kind === "tool_call" ? (opts.id ?? "") : "";
    const clash = this.#segments.find((s) => s.state !== "settled" && s.kind === kind && s.id === id);
    if (clash !== undefined) {
      if (clash.state === "open") clash.state = "closed";
      this.#settleUpTo(RANK[kind], "completed");
    }
    const seg: MutableSegment = {
      kind,
      id,
      name: opts.name ?? "",
      body: "",
      fidelity: undefined,
      state: "open",
      order: this.#count++,
    };
    this.#segments.push(seg);
    this.#out.push(this.#partial(seg, "start", "", undefined));
    return seg;
  }

  /** Append to an open segment (empty text is ignored). */
  append(segment: Segment, text: string): void {
    const seg = this.#own(segment);
    if (seg === undefined || seg.state !== "open" || text === "") return;
    seg.body += text;
    this.#out.push(this.#partial(seg, "delta", text, undefined));
  }

  /** Merge fields into the segment's fidelity (what the provider needs back). */
  setFidelity(segment: Segment, fidelity: Fidelity): void {
    const seg = this.#own(segment);
    if (seg === undefined || seg.state === "settled") return;
    seg.fidelity = { ...(seg.fidelity ?? {}), ...fidelity };
  }

  /** The provider finished this segment. Thinking settles now; text and tool calls wait for the end. */
  close(segment: Segment): void {
    const seg = this.#own(segment);
    if (seg === undefined || seg.state !== "open") return;
    seg.state = "closed";
    if (seg.kind === "thinking" && !this.#laterSettled) this.#settle(seg, "completed");
  }

  /** True when any tool call was opened in this response. */
  get hasToolCalls(): boolean {
    return this.#segments.some((s) => s.kind === "tool_call");
  }

  /** End of the response: close everything and settle in rank order. */
  finish(reason: StopReason): void {
    for (const s of this.#segments) if (s.state === "open") s.state = "closed";
    this.#settleUpTo(RANK.tool_call, reason);
  }

  /** Drain what has been emitted since the last call. */
  take(): ModelPayload[] {
    return this.#out.splice(0, this.#out.length);
  }

  #own(segment: Segment): MutableSegment | undefined {
    return this.#segments.find((s) => s === segment);
  }

  #settleUpTo(rank: number, reason: StopReason): void {
    const ready = this.#segments
      .filter((s) => s.state === "closed" && RANK[s.kind] <= rank)
      .sort((a, b) => RANK[a.kind] - RANK[b.kind] || a.order - b.order);
    for (const s of ready) this.#settle(s, reason);
  }

  #settle(seg: MutableSegment, reason: StopReason): void {
    seg.state = "settled";
    if (seg.kind !== "thinking") this.#laterSettled = true;
    this.#out.push(this.#partial(seg, "stop", "", reason));
    this.#out.push(this.#complete(seg, reason));
  }

  #partial(seg: MutableSegment, eventType: "start" | "delta" | "stop", text: string, reason: StopReason | undefined): ModelPayload {
    switch (seg.kind) {
      case "thinking": {
        const p: PartialThinkingPayload = { type: "partial_thinking", role: "assistant", event_type: eventType, thinking: text };
        if (reason !== undefined) p.stop_reason = reason;
        return p;
      }
      case "text": {
        const p: PartialTextPayload = { type: "partial_text", role: "assistant", event_type: eventType, text };
        if (reason !== undefined) p.stop_reason = reason;
        return p;
      }
      case "tool_call": {
        const p: PartialToolCallPayload = {
          type: "partial_tool_call",
          role: "assistant",
          event_type: eventType,
          name: seg.name,
          arguments: text,
          tool_call_id: seg.id,
        };
        if (reason !== undefined) p.stop_reason = reason;
        return p;
      }
    }
  }

  #complete(seg: MutableSegment, reason: StopReason): ModelPayload {
    switch (seg.kind) {
      case "thinking": {
        const p: ThinkingPayload = { type: "thinking", role: "assistant", thinking: seg.body, stop_reason: reason };
        if (seg.fidelity !== undefined) p.fidelity = seg.fidelity;
        return p;
      }
      case "text": {
        const p: TextPayload = { type: "text", role: "assistant", text: seg.body, stop_reason: reason };
        if (seg.fidelity !== undefined) p.fidelity = seg.fidelity;
        return p;
      }
      case "tool_call": {
        const p: ToolCallPayload = {
          type: "tool_call",
          role: "assistant",
          name: seg.name,
          arguments: seg.body,
          tool_call_id: seg.id,
          stop_reason: reason,
        };
        if (seg.fidelity !== undefined) p.fidelity = seg.fidelity;
        return p;
      }
    }
  }
}
