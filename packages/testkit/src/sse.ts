/**
 * Server-sent-event framing, the one place the testkit writes `event:` / `data:` lines.
 * Payloads are single-line JSON (JSON.stringify never emits a raw newline), so each event is
 * exactly one optional `event:` line, one `data:` line and a blank line.
 */

export interface SseEvent {
  /** The `event:` line (Anthropic and Responses name their events; Chat and Gemini do not). */
  event?: string;
  data: string;
}

export function formatSse(event: SseEvent): string {
  const name = event.event === undefined ? "" : `event: ${event.event}\n`;
  return `${name}data: ${event.data}\n\n`;
}

/** An event whose data is the JSON of `payload`, named after its `type` when `named`. */
export function jsonEvent(payload: { type?: string } & Record<string, unknown>, named: boolean): SseEvent {
  const data = JSON.stringify(payload);
  return named && payload.type !== undefined ? { event: payload.type, data } : { data };
}
