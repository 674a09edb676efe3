/**
 * Normalise an OpenAI Chat Completions request: `messages[]` with string or part-array
 * content, assistant `tool_calls` and `reasoning_content`, and `role: "tool"` results.
 *
 * Leading system/developer messages become the request's system prompt; one that appears
 * later in the conversation stays in place as a `system` message, since its position matters.
 */
import type { NormalizedMessage } from "../script.js";
import { arrayField, isRecord, recordField, records, stringField, type JsonRecord } from "../json.js";
import {
  argumentsText,
  contentText,
  joinSystem,
  resultText,
  toolCallMessage,
  toolResultMessage,
  type NormalizedRequest,
} from "./content.js";

export function normalizeChat(body: JsonRecord): NormalizedRequest {
  const systemPieces: string[] = [];
  const messages: NormalizedMessage[] = [];
  for (const message of records(arrayField(body, "messages"))) {
    const role = stringField(message, "role");
    if ((role === "system" || role === "developer") && messages.length === 0) {
      const text = contentText(message["content"]);
      if (text !== undefined) systemPieces.push(text);
      continue;
    }
    messages.push(...chatMessage(role, message));
  }
  return {
    model: stringField(body, "model"),
    system: joinSystem(systemPieces),
    messages,
    toolNames: chatToolNames(body),
  };
}

function chatMessage(role: string | undefined, message: JsonRecord): NormalizedMessage[] {
  switch (role) {
    case "system":
    case "developer":
      return [{ role: "system", kind: "text", text: contentText(message["content"]) ?? "" }];
    case "user":
      return userParts(message["content"]);
    case "assistant":
      return assistantParts(message);
    case "tool":
    case "function":
      return [toolResult(message)];
    default:
      return [];
  }
}

function userParts(content: unknown): NormalizedMessage[] {
  if (typeof content === "string") return [{ role: "user", kind: "text", text: content }];
  const out: NormalizedMessage[] = [];
  for (const part of records(Array.isArray(content) ? content : [])) {
    const type = stringField(part, "type");
    if (type === "text") out.push({ role: "user", kind: "text", text: stringField(part, "text") ?? "" });
    if (type === "image_url" || type === "input_image") out.push({ role: "user", kind: "image" });
  }
  return out;
}

function assistantParts(message: JsonRecord): NormalizedMessage[] {
  const out: NormalizedMessage[] = [];
  const thinking = stringField(message, "reasoning_content") ?? stringField(message, "reasoning");
  if (thinking !== undefined && thinking !== "") out.push({ role: "assistant", kind: "thinking", text: thinking });
  const text = contentText(message["content"]);
  if (text !== undefined && text !== "") out.push({ role: "assistant", kind: "text", text });
  for (const call of records(arrayField(message, "tool_calls"))) {
    const fn = recordField(call, "function") ?? {};
    out.push(toolCallMessage(stringField(fn, "name") ?? "", argumentsText(fn["arguments"]), stringField(call, "id")));
  }
  return out;
}

function toolResult(message: JsonRecord): NormalizedMessage {
  return toolResultMessage(
    resultText(message["content"]),
    stringField(message, "tool_call_id"),
    stringField(message, "name"),
  );
}

function chatToolNames(body: JsonRecord): string[] {
  return records(arrayField(body, "tools"))
    .map((tool) => {
      const fn = tool["function"];
      return isRecord(fn) ? stringField(fn, "name") : stringField(tool, "name");
    })
    .filter((name): name is string => name !== undefined);
}
