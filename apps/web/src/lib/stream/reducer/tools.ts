/**
 * Tool cards for the stream reducer, keyed by `tool_call_id`: the call (streamed or
 * complete), the approval decision and the output (streamed or complete) all land in one
 * card, in whatever order they arrive. An abort stops every card that has not finished.
 */
import type { ApprovalDecision, StopReason } from "@penguin/omnimessage";
import type { ToolItem, ToolStatus } from "../view-model";
import type { RowList } from "./rows";

const TERMINAL: ReadonlySet<ToolStatus> = new Set(["done", "failed", "denied", "forbidden", "aborted"]);

export class ToolReducer {
  readonly #rows: RowList;
  readonly #cards = new Map<string, number>();

  constructor(rows: RowList) {
    this.#rows = rows;
  }

  /** Arguments streaming in. */
  callPart(toolCallId: string, name: string, args: string, stopped: boolean, ts: number): void {
    this.#update(toolCallId, name, ts, (row) => {
      const next: ToolItem = { ...row, args: row.args + args };
      if (next.name === "" && name !== "") next.name = name;
      if (stopped && next.status === "streaming") next.status = "pending";
      return next;
    });
  }

  /** Output streaming in. */
  outputPart(toolCallId: string, output: string, images: string[] | undefined, stopped: boolean, ts: number): void {
    this.#update(toolCallId, "", ts, (row) => {
      const next: ToolItem = { ...row, output: row.output + output, outputStreaming: !stopped };
      if (images !== undefined) next.images = [...row.images, ...images];
      if (!TERMINAL.has(next.status)) next.status = "running";
      return next;
    });
  }

  /** The complete call. */
  call(toolCallId: string, name: string, args: string, ts: number): void {
    this.#update(toolCallId, name, ts, (row) => ({ ...row, name, args, status: row.status === "streaming" ? "pending" : row.status }));
  }

  /** The complete output: the card's final status follows its stop reason and decision. */
  output(toolCallId: string, output: string, images: string[] | undefined, stopReason: StopReason | undefined, ts: number): void {
    this.#update(toolCallId, "", ts, (row) => {
      let status: ToolStatus = "done";
      if (stopReason === "failed" || stopReason === "timeout") status = "failed";
      else if (stopReason === "aborted") status = row.decision === "deny" ? "denied" : row.decision === "forbidden" ? "forbidden" : "aborted";
      return { ...row, output, images: images ?? [], outputStreaming: false, status, endedAt: ts };
    });
  }

  /** The approval decision on a known card (an allowed call starts its timer now). */
  decision(toolCallId: string, decision: ApprovalDecision, policyRule: string | undefined, ts: number): void {
    const idx = this.#cards.get(toolCallId);
    const row = idx === undefined ? undefined : this.#rows.at(idx);
    if (idx === undefined || row?.kind !== "tool") return;
    const next: ToolItem = { ...row, decision, policyRule };
    if (!TERMINAL.has(row.status)) {
      if (decision === "allow") {
        next.status = "running";
        next.startedAt = ts;
      } else {
        next.status = decision === "deny" ? "denied" : "forbidden";
        next.endedAt = ts;
      }
    }
    this.#rows.replace(idx, next);
  }

  /** The task was stopped: every card still going is marked stopped. */
  abortAll(ts: number): void {
    for (const idx of this.#cards.values()) {
      const row = this.#rows.at(idx);
      if (row?.kind === "tool" && !TERMINAL.has(row.status)) this.#rows.replace(idx, { ...row, status: "aborted", outputStreaming: false, endedAt: ts });
    }
  }

  #update(toolCallId: string, name: string, ts: number, change: (row: ToolItem) => ToolItem): void {
    const idx = this.#card(toolCallId, name, ts);
    const row = this.#rows.at(idx);
    if (row?.kind === "tool") this.#rows.replace(idx, change(row));
  }

  #card(toolCallId: string, name: string, ts: number): number {
    const known = this.#cards.get(toolCallId);
    if (known !== undefined) return known;
    const idx = this.#rows.push({
      kind: "tool",
      id: this.#rows.newId(),
      toolCallId,
      name,
      args: "",
      status: "streaming",
      output: "",
      images: [],
      outputStreaming: false,
      decision: undefined,
      policyRule: undefined,
      startedAt: ts,
      endedAt: undefined,
    });
    this.#cards.set(toolCallId, idx);
    return idx;
  }
}
