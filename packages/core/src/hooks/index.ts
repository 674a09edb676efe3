/**
 * Lifecycle hooks: configuration (system_config.yaml's `hooks:` and a trusted workspace
 * file), the Claude Code protocol, running a hook in the session's sandbox, and the wrappers
 * that call them around tools and tasks.
 */
export { HOOK_EVENTS, DEFAULT_HOOK_TIMEOUT_SECONDS, hasHooks, mergeHooks, type HookEventName, type HooksConfig, type HookMatcherGroup, type HookCommand } from "./hook-config.js";
export { CLAUDE_TOOL_ALIASES } from "./hook-protocol.js";
export { SessionHooks, type EventOutcome } from "./session-hooks.js";
export { HookedEnvironment } from "./hooked-environment.js";
export { loadWorkspaceHooks, trustWorkspaceHooks, parseWorkspaceHooks, WORKSPACE_HOOKS_FILE, TRUSTED_HOOKS_FILE, type WorkspaceHooks } from "./workspace-hooks.js";
