/**
 * Which stdio MCP servers may run on this server: the admin's list (`mcp.stdioCommands` in the
 * server settings) and the unsandboxed switch (`mcp.allowUnsandboxedStdio`), as the policy core
 * applies before it spawns anything (core's McpStdioPolicy, for sessions and the mcp-test probe).
 *
 * A stdio server may start when both hold:
 *   - it runs inside the session's bwrap sandbox, or the admin allowed unsandboxed stdio servers
 *     (where bwrap is missing or the server runs with --no-sandbox, an MCP server would otherwise
 *     run as the server's own user, with every project's keys and traces in reach);
 *   - the file its command resolves to is a file the list names. Matching is by file, never by
 *     spelling: core resolves the command as it will run it (a bare name through the PATH the
 *     server gets, its own `env.PATH` included; a path against its working directory; symlinks
 *     followed), and each entry is resolved the same way on the server's PATH. So `npx` on the
 *     list allows `npx` and `/usr/bin/npx`; a listed command that is not installed gets core's
 *     "command not found" (nothing unresolved is ever spawned). The list is read on every start, so an edit applies to the next session.
 * The refusal names the command and who can change it (the server admin, in Settings → MCP
 * commands), and points at `url` servers, which need no list.
 */
import { findExecutable, existingRealPath, type McpStdioPolicy } from "@penguin/core";
import type { ServerSettings } from "./server-settings.js";
import type { SandboxStatus } from "./sandbox-status.js";

/** The real path of each entry that names an installed executable. */
export function allowedStdioFiles(entries: readonly string[], searchPath: string | undefined = process.env.PATH): Set<string> {
  const files = new Set<string>();
  for (const entry of entries) {
    const file = existingRealPath(findExecutable(entry, "/", searchPath));
    if (file !== undefined) files.add(file);
  }
  return files;
}

/** Why commands run unsandboxed on this server, in words for a refusal message. */
function unsandboxedBecause(sandbox: SandboxStatus): string {
  if (!sandbox.available) return `the command sandbox cannot run here (${sandbox.reason ?? "bwrap is unavailable"})`;
  return "the server runs with --no-sandbox";
}

export function serverMcpStdioPolicy(settings: () => ServerSettings, sandbox: SandboxStatus): McpStdioPolicy {
  return (request) => {
    const mcp = settings().mcp;
    if (!request.sandboxed && !mcp.allowUnsandboxedStdio) {
      return (
        `MCP server "${request.server}" was not started: stdio MCP servers are off on this server because ${unsandboxedBecause(sandbox)}, ` +
        `so it would run as the server's own user. A server admin can turn on "Run stdio MCP servers without a sandbox" ` +
        `(mcp.allowUnsandboxedStdio) in Settings → MCP commands, knowingly; or use a url (http) MCP server.`
      );
    }
    // Listed but not installed: let core say "command not found" (it never spawns an unresolved command).
    if (request.resolvedPath === undefined && mcp.stdioCommands.includes(request.command)) return undefined;
    if (request.resolvedPath !== undefined && allowedStdioFiles(mcp.stdioCommands).has(request.resolvedPath)) return undefined;
    const list = mcp.stdioCommands.length === 0 ? "the list is empty" : `allowed: ${mcp.stdioCommands.join(", ")}`;
    return (
      `MCP server "${request.server}" was not started: the command "${request.command}" is not on this server's list of ` +
      `stdio MCP commands (${list}). A server admin can add it in Settings → MCP commands (mcp.stdioCommands); ` +
      `or use a url (http) MCP server.`
    );
  };
}
