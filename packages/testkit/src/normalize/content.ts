/**
 * Shared pieces of request normalisation: reading text out of the content forms the wire
 * protocols use (a plain string, or an array of typed parts), and the result shape.
 */
import type { NormalizedMessage } from "../script.js";
import { records, stringField } from "../json.js";

/** What every protocol's normaliser extracts from a request body. */
export interface NormalizedRequest {
  model: string | undefined;
  system: string | undefined;
  messages: NormalizedMessage[];
  toolNames: string[];
}

/**
 * The text of a content value: a string as-is, an array as the join of its parts' `text`
 * fields (parts without text are skipped). Undefined when there is no text at all.
 */
export function contentText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  const texts = records(content)
    .map((part) => stringField(part, "text"))
    .filter((text): text is string => text !== undefined);
  return texts.length > 0 ? texts.join("") : undefined;
}

/** Join system prompt pieces the way a reader expects: blank line between pieces. */
export function joinSystem(pieces: string[]): string | undefined {
  return pieces.length > 0 ? pieces.join("\n\n") : undefined;
}

/** Arguments as the JSON text a client sent, whether it sent a string or an object. */
export function argumentsText(value: unknown): string {
  if (typeof value === "string") return value;
  return JSON.stringify(value ?? {});
}

/** Tool result content as text: strings as-is, part arrays joined, anything else as JSON. */
export function resultText(value: unknown): string {
  const text = contentText(value);
  if (text !== undefined) return text;
  return value === undefined ? "" : JSON.stringify(value);
}

/** A tool call message; the id is left out (not set to undefined) when the wire has none. */
export function toolCallMessage(name: string, args: string, id: string | undefined): NormalizedMessage {
  const message: NormalizedMessage = { role: "assistant", kind: "tool_call", name, arguments: args };
  if (id !== undefined) message.toolCallId = id;
  return message;
}

/** A tool result message; id and name are left out when the wire has none. */
export function toolResultMessage(text: string, id: string | undefined, name: string | undefined): NormalizedMessage {
  const message: NormalizedMessage = { role: "tool", kind: "tool_result", text };
  if (id !== undefined) message.toolCallId = id;
  if (name !== undefined) message.name = name;
  return message;
}
