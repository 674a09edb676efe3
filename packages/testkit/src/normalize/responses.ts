/**
 * Normalise an OpenAI Responses request: `instructions` plus `input`, which is either a plain
 * string or a list of items — `message` (role + content parts), `reasoning` (summary text),
 * `function_call` / `function_call_output` (paired by `call_id`), and their `custom_tool_call`
 * twins. Items other tools use (`item_reference`, hosted tool results) are skipped.
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

export function normalizeResponses(body: JsonRecord): NormalizedRequest {
  const systemPieces: string[] = [];
  const instructions = stringField(body, "instructions");
  if (instructions !== undefined) systemPieces.push(instructions);
  const messages: NormalizedMessage[] = [];
  const input = body["input"];
  if (typeof input === "string") messages.push({ role: "user", kind: "text", text: input });
  for (const item of records(Array.isArray(input) ? input : [])) {
    const role = stringField(item, "role");
    const isSystem = role === "system" || role === "developer";
    if (isSystem && messages.length === 0) {
      const text = contentText(item["content"]);
      if (text !== undefined) systemPieces.push(text);
      continue;
    }
    messages.push(...responsesItem(item));
  }
  return {
    model: stringField(body, "model"),
    system: joinSystem(systemPieces),
    messages,
    toolNames: records(arrayField(body, "tools"))
      .map((tool) => stringField(tool, "name"))
      .filter((name): name is string => name !== undefined),
  };
}

function responsesItem(item: JsonRecord): NormalizedMessage[] {
  const type = stringField(item, "type") ?? (item["role"] !== undefined ? "message" : undefined);
  switch (type) {
    case "message":
      return messageItem(item);
    case "reasoning": {
      const summary = contentText(arrayField(item, "summary")) ?? "";
      return [{ role: "assistant", kind: "thinking", text: summary }];
    }
    case "function_call":
      return [toolCallMessage(stringField(item, "name") ?? "", argumentsText(item["arguments"]), stringField(item, "call_id"))];
    case "custom_tool_call":
      return [toolCallMessage(stringField(item, "name") ?? "", argumentsText(item["input"]), stringField(item, "call_id"))];
    case "function_call_output":
    case "custom_tool_call_output":
      return [toolResultMessage(resultText(item["output"]), stringField(item, "call_id"), undefined)];
    default:
      return [];
  }
}

function messageItem(item: JsonRecord): NormalizedMessage[] {
  const role = messageRole(stringField(item, "role"));
  const content = item["content"];
  if (typeof content === "string") return [{ role, kind: "text", text: content }];
  const out: NormalizedMessage[] = [];
  for (const part of records(Array.isArray(content) ? content : [])) {
    const type = stringField(part, "type");
    if (type === "input_text" || type === "output_text" || type === "text") {
      out.push({ role, kind: "text", text: stringField(part, "text") ?? "" });
    } else if (type === "refusal") {
      out.push({ role, kind: "text", text: stringField(part, "refusal") ?? "" });
    } else if (type === "input_image") {
      out.push({ role, kind: "image" });
    }
  }
  return out;
}

function messageRole(role: string | undefined): NormalizedMessage["role"] {
  if (role === "assistant") return "assistant";
  if (role === "system" || role === "developer") return "system";
  return "user";
}
