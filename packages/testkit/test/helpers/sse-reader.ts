/**
 * A deliberately separate, tiny SSE reader for the tests, so the testkit's own framing is
 * checked by code that shares nothing with it: events split on blank lines (LF or CRLF),
 * `event:` and `data:` fields read per the SSE spec (multi-line data joined with "\n").
 */

export interface ReadEvent {
  event?: string;
  data: string;
}

export function parseSse(text: string): ReadEvent[] {
  const events: ReadEvent[] = [];
  for (const block of text.replace(/\r\n/g, "\n").split("\n\n")) {
    if (block.trim() === "") continue;
    const data: string[] = [];
    let event: string | undefined;
    for (const line of block.split("\n")) {
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "data") data.push(value);
      if (field === "event") event = value;
    }
    events.push(event === undefined ? { data: data.join("\n") } : { event, data: data.join("\n") });
  }
  return events;
}

/** The JSON payloads of the events, skipping a `[DONE]` sentinel. */
export function payloads(events: ReadEvent[]): Record<string, any>[] {
  return events.filter((e) => e.data !== "[DONE]").map((e) => JSON.parse(e.data));
}

/** Whether a string holds a lone surrogate (a pair cut in half). */
export function hasLoneSurrogate(text: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}
