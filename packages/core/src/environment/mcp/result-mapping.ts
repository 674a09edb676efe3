/**
 * Turns an MCP `tools/call` result into what a tool call output carries: one output text,
 * images as data URLs, and whether the call failed.
 *
 * Rules (SPEC §4): text blocks are joined with newlines; image blocks become
 * `data:<mime>;base64,<data>` in `images`; an embedded resource gives its text, or a one-line
 * description when it is binary; audio and resource links become one-line descriptions
 * (the model cannot use their bytes); a result with `structuredContent` and no content is
 * its JSON; `isError` marks the call failed. A failed call never has an empty output, so
 * the model always learns why. Pure, one switch over the block types.
 */
import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";

export interface McpCallResult {
  output: string;
  /** Data URLs; absent when the tool returned no image. */
  images?: string[];
  isError: boolean;
}

/** Base64 length to decoded bytes, for the one-line descriptions. */
function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

type BlockPiece = { text: string } | { image: string };

function mapBlock(block: ContentBlock): BlockPiece {
  switch (block.type) {
    case "text":
      return { text: block.text };
    case "image":
      return { image: `data:${block.mimeType};base64,${block.data}` };
    case "audio":
      return { text: `[audio ${block.mimeType}, ${base64Bytes(block.data)} bytes, not shown]` };
    case "resource_link": {
      const about = block.description !== undefined ? `: ${block.description}` : "";
      return { text: `[resource link ${block.uri} (${block.name})${about}]` };
    }
    case "resource": {
      const resource = block.resource;
      if ("text" in resource) return { text: resource.text };
      const mime = resource.mimeType ?? "binary";
      return { text: `[resource ${resource.uri}, ${mime}, ${base64Bytes(resource.blob)} bytes, not shown]` };
    }
  }
}

export function mapCallResult(result: CallToolResult): McpCallResult {
  const texts: string[] = [];
  const images: string[] = [];
  for (const block of result.content) {
    const piece = mapBlock(block);
    if ("image" in piece) images.push(piece.image);
    else texts.push(piece.text);
  }
  let output = texts.join("\n");
  if (result.content.length === 0 && result.structuredContent !== undefined) {
    output = JSON.stringify(result.structuredContent, null, 2);
  }
  const isError = result.isError === true;
  if (isError && output === "") output = "The MCP tool reported an error without a message.";
  return images.length > 0 ? { output, images, isError } : { output, isError };
}

/** A failed call that never reached the tool (unknown name, bad arguments, lost server). */
export function errorResult(message: string): McpCallResult {
  return { output: message, isError: true };
}
