/**
 * An ACP prompt (content blocks) as the task text our engine takes. The capabilities say what
 * we accept: text, and embedded context (`resource` blocks with text, which the editor sends
 * for files the user attached, so they go in as fenced blocks naming their URI); a
 * `resource_link` is named so the model can read it with its tools. Images and audio are not
 * offered (promptCapabilities), so a block of another kind is refused with a message that says
 * which one and what to send instead, rather than silently dropped.
 */
import type * as acp from "@agentclientprotocol/sdk";

/** Bad prompt content: the connection answers it as an `invalid params` error with this message. */
export class InvalidPrompt extends Error {}

export function promptText(blocks: readonly acp.ContentBlock[]): string {
  const parts: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "resource_link":
        parts.push(`[file: ${block.uri}]`);
        break;
      case "resource":
        if ("text" in block.resource) parts.push(`<context uri="${block.resource.uri}">\n${block.resource.text}\n</context>`);
        else throw new InvalidPrompt(`the embedded resource ${block.resource.uri} is binary; penguin acp takes text resources only`);
        break;
      default:
        throw new InvalidPrompt(`penguin acp takes text, resource and resource_link prompt blocks, not ${block.type} (see promptCapabilities)`);
    }
  }
  const text = parts.join("\n\n");
  if (text.trim() === "") throw new InvalidPrompt("the prompt is empty: send at least one non-empty text block");
  return text;
}
