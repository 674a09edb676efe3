/**
 * An incremental Server-Sent Events parser over a byte stream.
 *
 * Bytes arrive in arbitrary pieces (a network read can split a line, a `\r\n` pair, or a
 * multi-byte UTF-8 character), so the parser keeps a streaming TextDecoder and a line buffer,
 * and only acts on complete lines. It follows the WHATWG framing rules:
 * - lines end in `\n`, `\r\n` or a lone `\r` (a `\r` at the end of a piece waits for the next);
 * - `data:` lines accumulate, joined by `\n`; `event:` names the event; `:` starts a comment;
 *   one space after the colon is dropped; a blank line dispatches the event;
 * - a leading byte-order mark is skipped.
 * At the end of the body, an event whose last line was complete is still dispatched (some
 * servers omit the final blank line); a line cut in half is dropped, and `end()` says so, since
 * that is broken framing rather than a finished event.
 */

/** One dispatched event. `event` is undefined when the server sent no `event:` line. */
export interface SseEvent {
  event: string | undefined;
  data: string;
  id: string | undefined;
}

export interface SseEnd {
  events: SseEvent[];
  /** True when the body stopped in the middle of a line. */
  danglingLine: boolean;
}

export interface SseParser {
  /** Feed the next piece of the body; returns the events it completed. */
  push(bytes: Uint8Array): SseEvent[];
  /** The body ended: flush what is complete. */
  end(): SseEnd;
}

export function createSseParser(): SseParser {
  const decoder = new TextDecoder("utf-8");
  let buffer = "";
  let atStart = true;
  let pendingCr = false;
  let dataLines: string[] | undefined;
  let eventName: string | undefined;
  let lastId: string | undefined;

  function takeLine(line: string, out: SseEvent[]): void {
    if (line === "") {
      if (dataLines !== undefined) out.push({ event: eventName, data: dataLines.join("\n"), id: lastId });
      dataLines = undefined;
      eventName = undefined;
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "data":
        (dataLines ??= []).push(value);
        break;
      case "event":
        eventName = value;
        break;
      case "id":
        if (!value.includes("\0")) lastId = value;
        break;
      default:
        break; // `retry` and unknown fields carry nothing we use.
    }
  }

  const LINE_END = /[\r\n]/g;

  function scan(text: string, out: SseEvent[]): void {
    if (atStart && text.length > 0) {
      atStart = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let start = 0;
    if (pendingCr && text.length > 0) {
      pendingCr = false;
      if (text.charCodeAt(0) === 10) start = 1;
    }
    // Jump from line end to line end (a regex search is far cheaper than a char loop).
    LINE_END.lastIndex = start;
    for (let m = LINE_END.exec(text); m !== null; m = LINE_END.exec(text)) {
      const i = m.index;
      takeLine(buffer === "" ? text.slice(start, i) : buffer + text.slice(start, i), out);
      buffer = "";
      start = i + 1;
      if (text.charCodeAt(i) === 13) {
        if (start < text.length) {
          if (text.charCodeAt(start) === 10) start += 1;
        } else pendingCr = true;
      }
      LINE_END.lastIndex = start;
    }
    buffer += text.slice(start);
  }

  return {
    push(bytes) {
      const out: SseEvent[] = [];
      scan(decoder.decode(bytes, { stream: true }), out);
      return out;
    },
    end() {
      const out: SseEvent[] = [];
      scan(decoder.decode(), out);
      const danglingLine = buffer !== "";
      buffer = "";
      if (!danglingLine) takeLine("", out);
      dataLines = undefined;
      eventName = undefined;
      return { events: out, danglingLine };
    },
  };
}
