/**
 * `session/fork`'s params. The method is unstable in ACP v1 (the SDK's stable entry, which
 * `penguin acp` is built on, has no typed handler for it), so it is registered by name with
 * this parser, the way our extension methods are, and declared as `sessionCapabilities.fork`.
 * The parser keeps what the unstable schema gives the request: the source session, the cwd,
 * and the editor's MCP servers (checked later with the others, editor-mcp-servers.ts).
 */
import type * as acp from "@agentclientprotocol/sdk";
import { InvalidExtensionParams } from "./extensions.js";

export const SESSION_FORK = "session/fork";

export interface SessionForkParams {
  sessionId: string;
  cwd: string;
  mcpServers?: acp.McpServer[];
}

export function parseSessionFork(params: unknown): SessionForkParams {
  if (typeof params !== "object" || params === null || Array.isArray(params)) throw new InvalidExtensionParams(`${SESSION_FORK} takes an object of params: {"sessionId", "cwd", "mcpServers"?}`);
  const p = params as Record<string, unknown>;
  if (typeof p.sessionId !== "string" || p.sessionId === "") throw new InvalidExtensionParams(`${SESSION_FORK} needs "sessionId": the id of the session to fork (session/list gives them)`);
  if (typeof p.cwd !== "string" || !p.cwd.startsWith("/")) throw new InvalidExtensionParams(`${SESSION_FORK} needs "cwd": the absolute path of the source session's workspace`);
  if (p.mcpServers !== undefined && !Array.isArray(p.mcpServers)) throw new InvalidExtensionParams(`${SESSION_FORK} takes "mcpServers" as a list of MCP servers, as session/new does`);
  return { sessionId: p.sessionId, cwd: p.cwd, ...(p.mcpServers === undefined ? {} : { mcpServers: p.mcpServers as acp.McpServer[] }) };
}
