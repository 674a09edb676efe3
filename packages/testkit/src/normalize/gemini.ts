/**
 * Normalise a Gemini `generateContent` request: `systemInstruction` plus `contents[]` of
 * `user` / `model` turns whose parts are `text` (with `thought: true` for thinking),
 * `functionCall`, `functionResponse` and `inlineData` / `fileData`.
 *
 * Gemini usually sends no call ids, so calls and results come out without `toolCallId` unless
 * the client set the optional `id`; the pairing check then matches them by position and name.
 * The model id lives in the URL, not the body, so the caller passes it in.
 */
import type { NormalizedMessage } from "../script.js";
import { arrayField, isRecord, recordField, records, stringField, type JsonRecord } from "../json.js";
import { argumentsText, contentText, joinSystem, toolCallMessage, toolResultMessage, type NormalizedRequest } from "./content.js";

export function normalizeGemini(body: JsonRecord, model: string | undefined): NormalizedRequest {
  const instruction = body["systemInstruction"] ?? body["system_instruction"];
  const system = isRecord(instruction) ? contentText(instruction["parts"]) : contentText(instruction);
  const messages: NormalizedMessage[] = [];
  for (const content of records(arrayField(body, "contents"))) {
    const role = stringField(content, "role") === "model" ? "assistant" : "user";
    for (const part of records(arrayField(content, "parts"))) {
      const normalized = geminiPart(role, part);
      if (normalized !== undefined) messages.push(normalized);
    }
  }
  return {
    model,
    system: joinSystem(system === undefined ? [] : [system]),
    messages,
    toolNames: records(arrayField(body, "tools")).flatMap((tool) =>
      records(arrayField(tool, "functionDeclarations"))
        .map((declaration) => stringField(declaration, "name"))
        .filter((name): name is string => name !== undefined),
    ),
  };
}

function geminiPart(role: "user" | "assistant", part: JsonRecord): NormalizedMessage | undefined {
  const call = recordField(part, "functionCall");
  if (call !== undefined) {
    return toolCallMessage(stringField(call, "name") ?? "", argumentsText(call["args"]), stringField(call, "id"));
  }
  const response = recordField(part, "functionResponse");
  if (response !== undefined) {
    return toolResultMessage(JSON.stringify(response["response"] ?? {}), stringField(response, "id"), stringField(response, "name"));
  }
  if (part["inlineData"] !== undefined || part["fileData"] !== undefined) return { role, kind: "image" };
  const text = stringField(part, "text");
  if (text === undefined) return undefined;
  return { role, kind: part["thought"] === true ? "thinking" : "text", text };
}
