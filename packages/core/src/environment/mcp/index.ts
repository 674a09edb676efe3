/**
 * The MCP client, as the Environment uses it: parse `tools.mcpServers`, then one McpHub
 * per session (connect once, list the frozen tools, call them, close). Everything else in
 * this folder is an implementation detail; the pure helpers are exported for tests and
 * for callers that render MCP results elsewhere.
 */
export {
  parseMcpServers,
  transportOf,
  DEFAULT_CONNECT_TIMEOUT_MS,
  type McpServerEntry,
  type McpServerConfig,
  type McpStdioConfig,
  type McpHttpConfig,
  type McpSseConfig,
  type McpPermissionSetting,
  type McpTransportKind,
} from "./config.js";
export { McpHub, parseToolArguments, type McpHubOptions, type McpTool } from "./hub.js";
export { mapCallResult, type McpCallResult } from "./result-mapping.js";
export { resolvePermission } from "./catalog.js";
export { exposedToolName, sanitizeNamePart, MCP_TOOL_PREFIX, MAX_TOOL_NAME_LENGTH } from "./tool-names.js";
export { stdioEnvironment, type StderrMode } from "./stdio.js";
export { findExecutable, existingRealPath } from "./executable.js";
export { McpStdioLaunchError, resolveStdioCommand, type McpStdioLaunchRequest, type McpStdioPolicy } from "./stdio-launch.js";
