/**
 * The names the model sees for MCP tools: `mcp__<server>__<tool>`.
 *
 * Provider APIs accept tool names of `[A-Za-z0-9_-]`, at most 64 characters, so both parts
 * are sanitised (any other character becomes `_`) and an over-long name is cut and given a
 * short hash of the original server and tool names. The hash (not a counter) keeps a name
 * the same from one session to the next whatever order servers list their tools in, so
 * a resumed Trace still matches. Two tools that sanitise to the same name also get the hash.
 * The hub keeps the map back to the server's own tool name; nothing parses these names.
 */
import { createHash } from "node:crypto";

export const MCP_TOOL_PREFIX = "mcp__";
export const MAX_TOOL_NAME_LENGTH = 64;

const HASH_LENGTH = 8;

/** One part of a tool name, reduced to the characters every provider accepts. */
export function sanitizeNamePart(part: string): string {
  const cleaned = part.replace(/[^A-Za-z0-9_-]/g, "_");
  return cleaned === "" ? "_" : cleaned;
}

function shortHash(server: string, tool: string, attempt: number): string {
  return createHash("sha256").update(`${server}\u0000${tool}\u0000${attempt}`).digest("hex").slice(0, HASH_LENGTH);
}

/** The prefix every tool of `server` starts with (before any hashing). */
export function serverToolPrefix(server: string): string {
  return `${MCP_TOOL_PREFIX}${sanitizeNamePart(server)}__`;
}

/**
 * The exposed name for `tool` on `server`, unique against `taken` (names already handed
 * out). Pure: the caller adds the result to `taken`.
 */
export function exposedToolName(server: string, tool: string, taken: ReadonlySet<string>): string {
  const plain = serverToolPrefix(server) + sanitizeNamePart(tool);
  if (plain.length <= MAX_TOOL_NAME_LENGTH && !taken.has(plain)) return plain;
  const head = plain.slice(0, MAX_TOOL_NAME_LENGTH - HASH_LENGTH - 1);
  for (let attempt = 0; ; attempt++) {
    const hashed = `${head}_${shortHash(server, tool, attempt)}`;
    if (!taken.has(hashed)) return hashed;
  }
}
