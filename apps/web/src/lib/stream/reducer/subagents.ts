/**
 * Subagent rows for the stream reducer: messages carrying `origin` come from subagents and
 * are not drawn inline but counted into one row per direct child (`origin[0]`), with a
 * one-line preview of the child's newest text, linking to the child's own stream.
 */
import { isCompleteModel, isPartial, type OmniMessage } from "@penguin/omnimessage";
import type { RowList } from "./rows";

export class SubagentReducer {
  readonly #rows: RowList;
  readonly #children = new Map<string, number>();

  constructor(rows: RowList) {
    this.#rows = rows;
  }

  /** The child's row (added on first sight, from a `subagent` event or its first message). */
  row(childId: string): number {
    const known = this.#children.get(childId);
    if (known !== undefined) return known;
    const idx = this.#rows.push({ kind: "subagent", id: this.#rows.newId(), childId, messages: 0, preview: "", active: false });
    this.#children.set(childId, idx);
    return idx;
  }

  /** One message of a child: counted, and its text (or tool call) becomes the preview. */
  message(childId: string, m: OmniMessage, taskOpen: boolean): void {
    if (childId === "" || isPartial(m)) return;
    const idx = this.row(childId);
    const row = this.#rows.at(idx);
    if (row?.kind !== "subagent") return;
    let preview = row.preview;
    if (isCompleteModel(m)) {
      const p = m.payload;
      if (p.type === "text" && p.role === "assistant") preview = p.text;
      else if (p.type === "tool_call") preview = `→ ${p.name}`;
    }
    this.#rows.replace(idx, { ...row, messages: row.messages + 1, preview: preview.slice(0, 200), active: taskOpen });
  }

  /** The parent's task ended: no child is working any more. */
  settle(): void {
    for (const idx of this.#children.values()) {
      const row = this.#rows.at(idx);
      if (row?.kind === "subagent" && row.active) this.#rows.replace(idx, { ...row, active: false });
    }
  }
}
