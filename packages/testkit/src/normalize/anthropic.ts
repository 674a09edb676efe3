/**
 * Normalise an Anthropic Messages request: `system` (string or text blocks) plus `messages[]`
 * whose content is a string or blocks — `text`, `thinking`, `redacted_thinking`, `tool_use`,
 * `tool_result` (paired by `tool_use_id`), `image`. Server-side tool blocks are skipped: the
 * client never answers them, so they take no part in the pairing check.
 */
import type { NormalizedMessage } from "../script.js";
import { arrayField, records, stringField, type JsonRecord } from "../json.js";
import {
  argumentsText,
  contentText,
  joinSystem,
  resultText,
  toolCallMessage,
  toolResultMessage,
  type NormalizedRequest,
} from "./content.js";

export function normalizeAnthropic(body: JsonRecord): NormalizedRequest {
  const system = contentText(body["system"]);
  const messages: NormalizedMessage[] = [];
  for (const message of records(arrayField(body, "messages"))) {
    const role = stringField(message, "role") === "assistant" ? "assistant" : "user";
    const content = message["content"];
    if (typeof content === "string") {
      messages.push({ role, kind: "text", text: content });
      continue;
    }
    for (const block of records(Array.isArray(content) ? content : [])) {
      const normalized = anthropicBlock(role, block);
      if (normalized !== undefined) messages.push(normalized);
    }
  }
  return {
    model: stringField(body, "model"),
    system: joinSystem(system === undefined ? [] : [system]),
    messages,
    toolNames: records(arrayField(body, "tools"))
      .map((tool) => stringField(tool, "name"))
      .filter((name): name is string => name !== undefined),
  };
}

function anthropicBlock(role: "user" | "assistant", block: JsonRecord): NormalizedMessage | undefined {
  switch (stringField(block, "type")) {
    case "text":
      return { role, kind: "text", text: stringField(block, "text") ?? "" };
    case "thinking":
      return { role, kind: "thinking", text: stringField(block, "thinking") ?? "" };
    case "redacted_thinking":
      return { role, kind: "thinking" };
    case "tool_use":
      return toolCallMessage(stringField(block, "name") ?? "", argumentsText(block["input"]), stringField(block, "id"));
    case "tool_result":
      return toolResultMessage(resultText(block["content"]), stringField(block, "tool_use_id"), undefined);
    case "image":
      return { role, kind: "image" };
    default:
      return undefined;
  }
}
