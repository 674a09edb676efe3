/**
 * One-shot session titles: an out-of-band model call (no tools, no system prompt, not in the
 * context and never in the trace) that names a conversation in at most 30 characters.
 *
 * It reads the first user text and the first assistant text of the history. A failure is
 * not an error for the session: the caller keeps its fallback title (the prompt's start).
 */
import { isCompleteModel, type OmniMessage } from "@penguin/omnimessage";
import { streamModel, type ModelEndpoint } from "@penguin/models";

export const TITLE_MAX_CHARS = 30;

function firstText(history: readonly OmniMessage[], role: "user" | "assistant"): string | undefined {
  for (const m of history) {
    if (isCompleteModel(m) && m.payload.type === "text" && m.payload.role === role && m.payload.sender === undefined) return m.payload.text;
  }
  return undefined;
}

/** Trims quotes, markdown and trailing punctuation, and caps the length. */
export function cleanTitle(raw: string): string {
  const line = raw.split("\n").map((l) => l.trim()).find((l) => l !== "") ?? "";
  const clean = line.replace(/^#+\s*/, "").replace(/^["'“”`*]+|["'“”`*]+$/g, "").replace(/[.。!！]+$/, "").trim();
  return clean.length <= TITLE_MAX_CHARS ? clean : `${clean.slice(0, TITLE_MAX_CHARS - 1).trimEnd()}…`;
}

/** A fallback title from the prompt itself. */
export function fallbackTitle(prompt: string): string {
  return cleanTitle(prompt.replace(/\s+/g, " "));
}

export async function generateTitle(endpoint: ModelEndpoint, history: readonly OmniMessage[], signal?: AbortSignal): Promise<string | undefined> {
  const prompt = firstText(history, "user");
  if (prompt === undefined) return undefined;
  const answer = firstText(history, "assistant") ?? "";
  const ask = `Write a title of at most ${TITLE_MAX_CHARS} characters for this conversation, in the language of the user's message. Reply with the title only.\n\nUser: ${prompt.slice(0, 2000)}\n\nAssistant: ${answer.slice(0, 1000)}`;
  const stream = streamModel({
    endpoint: { ...endpoint, fastMode: false, maxTokens: 64 },
    messages: [{ type: "text", role: "user", text: ask }],
    tools: [],
    thinkingLevel: "none",
    signal,
    timeoutMs: 30000,
  });
  let text = "";
  for (;;) {
    const step = await stream.next();
    if (step.done) {
      if (step.value.status !== "completed") return undefined;
      break;
    }
    if (step.value.type === "text") text += step.value.text;
  }
  const title = cleanTitle(text);
  return title === "" ? undefined : title;
}
