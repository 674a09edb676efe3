// A second, deliberately naive SSE parser for the fuzz properties: it sees the whole body at
// once (no streaming state at all) and applies the WHATWG framing rules line by line, so the
// incremental parser in src/sse.ts can be compared with something written independently.
// Also: which event ends a response in each protocol, read from the event's JSON.
import type { SseEvent } from "../../../packages/models/src/index.js";

export function parseWhole(bytes: Uint8Array): { events: SseEvent[]; danglingLine: boolean } {
  let text = new TextDecoder("utf-8").decode(bytes);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const lines = text.split(/\r\n|\r|\n/);
  // The piece after the last line break is a line only if the body ended inside it.
  const tail = lines.pop() ?? "";
  const events: SseEvent[] = [];
  let data: string[] | undefined;
  let event: string | undefined;
  let id: string | undefined;
  const dispatch = () => {
    if (data !== undefined) events.push({ event, data: data.join("\n"), id });
    data = undefined;
    event = undefined;
  };
  for (const line of lines) {
    if (line === "") {
      dispatch();
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") (data ??= []).push(value);
    else if (field === "event") event = value;
    else if (field === "id" && !value.includes("\0")) id = value;
  }
  if (tail === "") dispatch();
  return { events, danglingLine: tail !== "" };
}

function json(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}

/** The data is neither JSON nor the `[DONE]` sentinel: a reducer must not accept it. */
export function isBroken(data: string): boolean {
  return data.trim() !== "[DONE]" && json(data) === undefined;
}

/** The event after which the protocol's reducer stops reading (its terminal event). */
export function isTerminal(protocol: string, data: string): boolean {
  if (protocol === "openai-chat") return data.trim() === "[DONE]";
  let v = json(data);
  if (Array.isArray(v)) v = v[0];
  if (typeof v !== "object" || v === null) return false;
  const type = "type" in v ? v.type : undefined;
  switch (protocol) {
    case "openai-responses":
      return type === "response.completed" || type === "response.failed" || type === "response.incomplete";
    case "anthropic-messages":
      return type === "message_stop";
    default: {
      const candidates = "candidates" in v && Array.isArray(v.candidates) ? v.candidates : [];
      return candidates.some((c: unknown) => typeof c === "object" && c !== null && "finishReason" in c);
    }
  }
}
