// The Environment: builtin tools, their central close-out, background commands, and the
// hook through which MCP tools join. `createEnvironment` is the entry point.
export { createEnvironment, Environment, type EnvironmentConfig } from "./environment.js";
export type { ExtraTool, ExtraToolCallResult, ExtraToolProvider } from "./extra-tools.js";
export type { ProcessInfo } from "./commands/process-table.js";
export type { SubagentInfo } from "../subagents/subagent-info.js";
export { DEFAULT_LIMITS, TOOL_TIMEOUTS_MS, TOOL_OUTPUT_CHARS, type EnvironmentLimits } from "./limits.js";
export { localFileOperations, type FileInfo, type FileOperations } from "./file-operations.js";
export type { BuiltinTool, ToolContext, ToolResult } from "./tool.js";
export { NO_OUTPUT, INTERRUPTED_NOTE, type TimeoutScheduler } from "./close-out.js";
export { PINNED_ENV, SANDBOX_ENV_ALLOWLIST, sandboxEnvironment } from "./commands/child-env.js";
export { probeSandbox, probeSandboxAsync, bwrapArguments, type CommandSandbox, type ProbeOptions, type SandboxAvailability, type SandboxOptions } from "./commands/sandbox.js";
export { accessAt, mountTable, unconfinedTable, withReadOnly, type Access, type Mount, type MountTable, type SessionBoundary } from "./commands/mount-table.js";
export { realPathOf } from "./real-path.js";
export type { DescribeImageFn } from "./tools/describe-image.js";
