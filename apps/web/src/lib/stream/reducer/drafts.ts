/**
 * Streamed text and thinking for the stream reducer. Partials grow a draft row so the user
 * sees the stream as it comes; the merge itself (segment keys, stop, stop_reason) is the
 * protocol's PartialAggregator, whose complete message finalises the draft at `stop`. The
 * complete message that follows a stop replaces that draft instead of adding a row, so a
 * reload seeded with open fragments and a live run end in the same rows.
 */
import { PartialAggregator, isCompleteModel, type CompleteModelPayload, type OmniMessage, type PartialPayload, type StopReason } from "@penguin/omnimessage";
import type { RowList } from "./rows";

/** The aggregator's segment key for a complete message or a partial (origin is handled apart). */
export function segmentKey(p: PartialPayload | CompleteModelPayload): string {
  const id = "tool_call_id" in p ? p.tool_call_id : "";
  const family = p.type.startsWith("partial_") ? p.type.slice("partial_".length) : p.type;
  return `${family}::${id}`;
}

export class DraftReducer {
  readonly #rows: RowList;
  readonly #agg = new PartialAggregator();
  /** Text and thinking drafts by segment key: open, or closed and awaiting their complete message. */
  readonly #drafts = new Map<string, number>();

  constructor(rows: RowList) {
    this.#rows = rows;
  }

  /** Feeds a partial to the aggregator; answers the complete messages it closed. */
  aggregate(m: OmniMessage): OmniMessage[] {
    return this.#agg.push(m);
  }

  /** A text or thinking partial: grows (or opens) its draft row. */
  partial(p: Extract<PartialPayload, { type: "partial_text" | "partial_thinking" }>, closed: readonly OmniMessage[]): void {
    const rows = this.#rows;
    const key = segmentKey(p);
    const known = this.#drafts.get(key);
    const current = known === undefined ? undefined : rows.at(known);
    const open = current !== undefined && (current.kind === "assistant" || current.kind === "thinking") && current.streaming;
    let idx: number;
    if (open && known !== undefined && p.event_type !== "start") idx = known;
    else {
      if (open && known !== undefined) this.#finish(known, undefined);
      idx = rows.push(
        p.type === "partial_text"
          ? { kind: "assistant", id: rows.newId(), text: "", streaming: true, stopReason: undefined, origin: undefined }
          : { kind: "thinking", id: rows.newId(), text: "", streaming: true },
      );
      this.#drafts.set(key, idx);
    }
    const row = rows.at(idx);
    const piece = p.type === "partial_text" ? p.text : p.thinking;
    if (row !== undefined && (row.kind === "assistant" || row.kind === "thinking") && piece !== "") {
      rows.replace(idx, { ...row, text: row.text + piece });
    }
    const done = closed.find((c) => isCompleteModel(c) && segmentKey(c.payload) === key);
    if (p.event_type === "stop" && done !== undefined && isCompleteModel(done)) this.#finish(idx, done.payload);
  }

  /** A complete thinking message: finishes its draft, or adds the row. */
  thinking(p: Extract<CompleteModelPayload, { type: "thinking" }>): void {
    const key = segmentKey(p);
    const idx = this.#drafts.get(key);
    this.#drafts.delete(key);
    if (idx !== undefined && this.#rows.at(idx)?.kind === "thinking") this.#finish(idx, p);
    else this.#rows.push({ kind: "thinking", id: this.#rows.newId(), text: p.thinking, streaming: false });
  }

  /** A complete assistant text: replaces its draft, or adds the row. */
  text(text: string, stopReason: StopReason | undefined): void {
    const rows = this.#rows;
    const key = "text::";
    const idx = this.#drafts.get(key);
    this.#drafts.delete(key);
    const row = idx === undefined ? undefined : rows.at(idx);
    if (idx !== undefined && row?.kind === "assistant") rows.replace(idx, { ...row, text, streaming: false, stopReason });
    else rows.push({ kind: "assistant", id: rows.newId(), text, streaming: false, stopReason, origin: undefined });
  }

  /** The stream broke off (a failed request, an abort, the task's end): every open draft stops. */
  closeAll(): void {
    this.#agg.flush("aborted");
    for (const [key, idx] of this.#drafts) {
      const row = this.#rows.at(idx);
      if (row !== undefined && (row.kind === "assistant" || row.kind === "thinking") && row.streaming) this.#finish(idx, undefined);
      this.#drafts.delete(key);
    }
  }

  #finish(idx: number, complete: CompleteModelPayload | undefined): void {
    const row = this.#rows.at(idx);
    if (row === undefined) return;
    if (row.kind === "assistant") {
      const text = complete?.type === "text" ? complete.text : row.text;
      const stopReason = complete?.stop_reason ?? row.stopReason;
      this.#rows.replace(idx, { ...row, text, streaming: false, stopReason });
    } else if (row.kind === "thinking") {
      const text = complete?.type === "thinking" ? complete.thinking : row.text;
      this.#rows.replace(idx, { ...row, text, streaming: false });
    }
  }
}
