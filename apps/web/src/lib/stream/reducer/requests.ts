/**
 * Request outcomes and the session events drawn as their own rows, for the stream reducer:
 * a request that did not complete becomes an error row (with its retry deadline, superseded
 * once the next request begins); an `auth` failure locks input (`authLocked`) until a
 * completed request or `unlock()` (credentials_updated); compaction and MCP connection each
 * get one row that their end event completes.
 */
import type { EventPayload } from "@penguin/omnimessage";
import type { RowList } from "./rows";

type EndOf<T extends EventPayload["type"]> = Extract<EventPayload, { type: T }>;

export class RequestReducer {
  readonly #rows: RowList;
  #retryRows: number[] = [];
  #openCompaction: number | undefined;
  #openMcp: number | undefined;
  #authLocked = false;
  #authMessage = "";

  constructor(rows: RowList) {
    this.#rows = rows;
  }

  get authLocked(): boolean {
    return this.#authLocked;
  }

  get authMessage(): string {
    return this.#authMessage;
  }

  unlock(): void {
    if (!this.#authLocked) return;
    this.#authLocked = false;
    this.#rows.touch();
  }

  /** A new request began: planned retries before it are over. */
  begun(): void {
    for (const idx of this.#retryRows) {
      const row = this.#rows.at(idx);
      if (row?.kind === "request_error") this.#rows.replace(idx, { ...row, superseded: true });
    }
    this.#retryRows = [];
  }

  /** A request that did not complete: its error row (and the lock for an auth failure). */
  failed(p: EndOf<"request_end">, ts: number): void {
    const retryAt = p.retry_in_ms === undefined ? undefined : ts + p.retry_in_ms;
    const idx = this.#rows.push({
      kind: "request_error",
      id: this.#rows.newId(),
      status: p.status,
      message: p.error_message ?? p.status,
      attempt: p.attempt,
      retryInMs: p.retry_in_ms,
      retryAt,
      superseded: false,
    });
    if (retryAt !== undefined) this.#retryRows.push(idx);
    if (p.status === "auth") {
      this.#authLocked = true;
      this.#authMessage = p.error_message ?? "The model rejected its credentials.";
    }
  }

  compactionBegun(p: EndOf<"compaction_begin">): void {
    this.#openCompaction = this.#rows.push({ kind: "compaction", id: this.#rows.newId(), reason: p.reason, mode: p.mode, status: "running", error: undefined, context: p.context });
  }

  compactionEnded(p: EndOf<"compaction_end">): void {
    const idx = this.#openCompaction;
    const row = idx === undefined ? undefined : this.#rows.at(idx);
    this.#openCompaction = undefined;
    if (idx !== undefined && row?.kind === "compaction") this.#rows.replace(idx, { ...row, status: p.status, error: p.error_message });
    else this.#rows.push({ kind: "compaction", id: this.#rows.newId(), reason: p.reason, mode: p.mode, status: p.status, error: p.error_message, context: undefined });
  }

  mcpBegun(p: EndOf<"mcp_connect_begin">): void {
    this.#openMcp = this.#rows.push({ kind: "mcp", id: this.#rows.newId(), servers: p.servers, status: "connecting", results: [] });
  }

  mcpEnded(p: EndOf<"mcp_connect_end">): void {
    const idx = this.#openMcp;
    const row = idx === undefined ? undefined : this.#rows.at(idx);
    this.#openMcp = undefined;
    if (idx !== undefined && row?.kind === "mcp") this.#rows.replace(idx, { ...row, status: p.status, results: p.results });
    else this.#rows.push({ kind: "mcp", id: this.#rows.newId(), servers: p.results.map((r) => r.server), status: p.status, results: p.results });
  }
}
