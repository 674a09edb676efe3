/**
 * Claude Code's hook protocol, both ways, so hook scripts written for it run unchanged.
 *
 * In (stdin, one JSON document): `session_id`, `transcript_path`, `cwd`, `hook_event_name`, plus
 * per event `tool_name`/`tool_input`/`tool_use_id` (PreToolUse), `tool_response` (PostToolUse),
 * `prompt` (UserPromptSubmit), `source` (SessionStart), `trigger`/`custom_instructions`
 * (PreCompact), `stop_hook_active` (Stop, SubagentStop).
 *
 * Out: exit 0 = success (stdout may be a JSON answer; for SessionStart and UserPromptSubmit
 * plain stdout is context for the model); exit 2 = block, stderr is the reason fed back; any
 * other code = a non-blocking error, the action goes on. A JSON answer may say
 * `decision: "block"` + `reason`, `continue: false` + `stopReason`, and in `hookSpecificOutput`
 * `permissionDecision` (allow/deny/ask) + `permissionDecisionReason` + `updatedInput`
 * (PreToolUse) or `additionalContext`. The older PreToolUse `decision: "approve" | "block"` is
 * read as allow / deny.
 *
 * Tool names: our tools keep their names, and the three whose Claude Code counterpart takes the
 * same arguments answer to that name too (a matcher `Bash` selects exec_command, whose input
 * also carries `command` beside `cmd`; `Write`, `Edit`, `Read` share `file_path`).
 */
import type { HookProcessResult } from "./hook-runner.js";

/** Our tool name → the Claude Code tool it stands for. */
export const CLAUDE_TOOL_ALIASES: Readonly<Record<string, string>> = {
  exec_command: "Bash",
  write_file: "Write",
  edit_file: "Edit",
  read_file: "Read",
};

export function toolNamesFor(name: string): string[] {
  const alias = CLAUDE_TOOL_ALIASES[name];
  return alias === undefined ? [name] : [name, alias];
}

/** A tool's arguments as a hook reads them: exec_command's `cmd` also as `command`. */
export function hookToolInput(name: string, args: Record<string, unknown>): Record<string, unknown> {
  if (name === "exec_command" && typeof args.cmd === "string" && args.command === undefined) return { ...args, command: args.cmd };
  return args;
}

/**
 * An `updatedInput` back into our arguments: laid over the original ones (a hook may answer
 * with only the fields it changes), and for exec_command a changed `command` is the new `cmd`.
 */
export function toolArgumentsFrom(name: string, original: Record<string, unknown>, updated: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...original, ...updated };
  if (name !== "exec_command") return merged;
  const { command, ...rest } = merged;
  if (typeof command === "string" && command !== original.cmd && rest.cmd === original.cmd) return { ...rest, cmd: command };
  return rest;
}

/** What the harness makes of one hook run. */
export interface HookVerdict {
  outcome: "ok" | "blocked" | "error" | "timeout";
  exitCode?: number;
  /** allow / deny / ask / block / approve, as the hook said it. */
  decision?: string;
  /** Why: the JSON reason, or stderr of an exit 2 or an error. */
  reason?: string;
  /** PreToolUse: the arguments to run the tool with instead. */
  updatedInput?: Record<string, unknown>;
  /** Text for the model (additionalContext, or plain stdout where it counts as context). */
  context?: string;
  /** `continue: false`: the task stops after this hook. */
  stopTask?: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v : undefined);

function parseJsonAnswer(stdout: string): Record<string, unknown> | undefined {
  const trimmed = stdout.trim();
  if (!trimmed.startsWith("{")) return undefined;
  try {
    const v: unknown = JSON.parse(trimmed);
    return isRecord(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Events whose plain stdout (exit 0, not JSON) is context for the model. */
const STDOUT_IS_CONTEXT = new Set(["SessionStart", "UserPromptSubmit"]);

export function verdictOf(event: string, result: HookProcessResult): HookVerdict {
  if (result.kind === "spawn-failed") return { outcome: "error", reason: `could not start: ${result.error}` };
  if (result.kind === "timeout") return { outcome: "timeout", reason: "the hook ran past its timeout and was stopped" };
  if (result.kind === "aborted") return { outcome: "error", reason: "the task was stopped while the hook ran" };
  const exitCode = result.code;
  if (exitCode === 2) return { outcome: "blocked", exitCode, decision: "block", reason: result.stderr.trim() || "blocked by a hook (exit code 2)" };
  if (exitCode !== 0) return { outcome: "error", exitCode, ...(text(result.stderr) === undefined ? {} : { reason: result.stderr.trim() }) };

  const answer = parseJsonAnswer(result.stdout);
  if (answer === undefined) {
    const plain = text(result.stdout);
    return { outcome: "ok", exitCode, ...(plain !== undefined && STDOUT_IS_CONTEXT.has(event) ? { context: plain.trim() } : {}) };
  }
  const verdict: HookVerdict = { outcome: "ok", exitCode };
  const specific = isRecord(answer.hookSpecificOutput) ? answer.hookSpecificOutput : {};
  const context = text(specific.additionalContext);
  if (context !== undefined) verdict.context = context;
  if (answer.continue === false) verdict.stopTask = text(answer.stopReason) ?? "stopped by a hook";

  if (event === "PreToolUse") {
    const permission = specific.permissionDecision;
    const legacy = answer.decision;
    const decision = permission === "allow" || permission === "deny" || permission === "ask" ? permission : legacy === "approve" ? "allow" : legacy === "block" ? "deny" : undefined;
    if (decision !== undefined) verdict.decision = decision;
    const reason = text(specific.permissionDecisionReason) ?? text(answer.reason);
    if (reason !== undefined) verdict.reason = reason;
    if (isRecord(specific.updatedInput)) verdict.updatedInput = specific.updatedInput;
    if (decision === "deny") verdict.outcome = "blocked";
  } else if (answer.decision === "block") {
    verdict.decision = "block";
    verdict.outcome = "blocked";
    verdict.reason = text(answer.reason) ?? "blocked by a hook";
  } else {
    const reason = text(answer.reason);
    if (reason !== undefined) verdict.reason = reason;
  }
  if (verdict.stopTask !== undefined) verdict.outcome = "blocked";
  return verdict;
}
