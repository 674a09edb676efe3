/**
 * The server settings the admin edits (`/api/admin/settings`). The server replaces the whole
 * value on PUT (missing keys take their defaults), so a form that edits one part reads the
 * settings, changes its part and sends everything back; the other keys pass through untouched.
 */
import { get, put } from "./http";
import { asRecord, type Json } from "./read";

/** Which stdio MCP servers owners may run (server settings `mcp`). */
export interface McpCommandSettings {
  stdioCommands: string[];
  allowUnsandboxedStdio: boolean;
}

export async function getServerSettings(): Promise<Json> {
  return asRecord(await get("/api/admin/settings"));
}

export function mcpCommandSettings(settings: Json): McpCommandSettings {
  const mcp = asRecord(settings.mcp);
  const list = Array.isArray(mcp.stdioCommands) ? mcp.stdioCommands.filter((c): c is string => typeof c === "string") : [];
  return { stdioCommands: list, allowUnsandboxedStdio: mcp.allowUnsandboxedStdio === true };
}

export async function saveMcpCommandSettings(mcp: McpCommandSettings): Promise<Json> {
  const current = await getServerSettings();
  return asRecord(await put("/api/admin/settings", { ...current, mcp }));
}

/** The folders under which session workspaces may lie (server settings `workspaceRoots`; empty: the server's start-up roots). */
export function workspaceRoots(settings: Json): string[] {
  return Array.isArray(settings.workspaceRoots) ? settings.workspaceRoots.filter((r): r is string => typeof r === "string") : [];
}

export async function saveWorkspaceRoots(roots: string[]): Promise<Json> {
  const current = await getServerSettings();
  return asRecord(await put("/api/admin/settings", { ...current, workspaceRoots: roots }));
}
