/**
 * LiveLog: the partials of a running task's open segments, for `GET /api/sessions/:id/messages`.
 *
 * History is the trace up to the last record the stream has sent (records are the trace, so
 * the page and the SSE feed agree exactly at the cursor). What the trace cannot give a
 * reloading client is the streaming text of a segment still open: `fragments` are the
 * partials of the segments started and not stopped, in the order they were sent, so the
 * client can seed its aggregator mid-sentence. Messages from subagents (`origin`) are
 * streamed but, like in the trace, not part of the history.
 */
import { isPartial, type OmniMessage, type PartialPayload } from "@penguin/omnimessage";

export interface LiveSnapshot {
  fragments: OmniMessage[];
}

function segmentKey(m: OmniMessage, p: PartialPayload): string {
  const id = "tool_call_id" in p ? p.tool_call_id : "";
  return `${(m.origin ?? []).join("/")}|${p.type}::${id}`;
}

export class LiveLog {
  readonly #open = new Map<string, OmniMessage[]>();

  record(m: OmniMessage): void {
    if (!isPartial(m)) return;
    const key = segmentKey(m, m.payload);
    const open = this.#open.get(key);
    if (m.payload.event_type === "stop") this.#open.delete(key);
    else if (open === undefined || m.payload.event_type === "start") {
      this.#open.delete(key);
      this.#open.set(key, [m]);
    } else open.push(m);
  }

  snapshot(): LiveSnapshot {
    return { fragments: [...this.#open.values()].flat() };
  }
}
