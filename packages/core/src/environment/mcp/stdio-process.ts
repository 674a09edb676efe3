/**
 * StdioLaunch: the process to spawn for one stdio MCP server, as stdio-launch.ts plans it and
 * the stdio transport (stdio.ts) starts it. A type module of its own because the planner also
 * uses the transport's environment rule: kept in stdio-launch.ts the two imported each other.
 */

/** The process to spawn for one stdio server. */
export interface StdioLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string | undefined;
  sandboxed: boolean;
}
