/**
 * LiveLog: what a running task has published so far, for `GET /api/sessions/:id/messages`.
 *
 * While a task runs, history is the trace up to where it stood when the task started (the
 * `mark`), plus the complete messages the task has published since, kept here with the
 * stream itself, so the page and the SSE feed agree exactly at the cursor (the id of the
 * newest event reflected). Trace lines written by the engine but not yet published (they
 * sit in the engine's queue) are deliberately not read: they will arrive on the stream
 * after the cursor, and a client would otherwise see them twice.
 *
 * `fragments` are the partials of the segments still open (started, not stopped), in
 * publish order, so a reloading client can seed its aggregator mid-sentence. Messages from
 * subagents (`origin`) are streamed but, like in the trace, not part of the history.
 */
import { isPartial, isTraceable, type OmniMessage, type PartialPayload } from "@penguin/omnimessage";

/** Where the trace stood when a task began: file index and byte length of that file. */
export interface TraceMark {
  fileIndex: number;
  bytes: number;
}

export interface LiveSnapshot {
  mark: TraceMark;
  messages: OmniMessage[];
  fragments: OmniMessage[];
}

function segmentKey(m: OmniMessage, p: PartialPayload): string {
  const id = "tool_call_id" in p ? p.tool_call_id : "";
  return `${(m.origin ?? []).join("/")}|${p.type}::${id}`;
}

export class LiveLog {
  readonly mark: TraceMark;
  readonly #messages: OmniMessage[] = [];
  readonly #open = new Map<string, OmniMessage[]>();

  constructor(mark: TraceMark) {
    this.mark = mark;
  }

  record(m: OmniMessage): void {
    if (isPartial(m)) {
      const key = segmentKey(m, m.payload);
      const open = this.#open.get(key);
      if (m.payload.event_type === "stop") this.#open.delete(key);
      else if (open === undefined || m.payload.event_type === "start") {
        this.#open.delete(key);
        this.#open.set(key, [m]);
      } else open.push(m);
      return;
    }
    if (isTraceable(m)) this.#messages.push(m);
  }

  snapshot(): LiveSnapshot {
    const fragments = [...this.#open.values()].flat();
    return { mark: this.mark, messages: [...this.#messages], fragments };
  }
}
