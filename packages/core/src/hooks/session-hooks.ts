/**
 * A session's hooks: the configured commands of one event, run one after another (in the order
 * configured: system_config first, then the workspace's file), each recorded as a `hook_run`
 * event with what it decided. The first hook that blocks ends the event (the later ones would
 * judge an action that will not happen). The outcome of an event is the hooks' verdicts
 * combined: blocked by any, the last updated input, their contexts joined.
 *
 * The commands run in the session's sandbox (hook-runner.ts) with the sandbox's environment, in
 * the workspace, with CLAUDE_PROJECT_DIR (and PENGUIN_PROJECT_DIR) set to the workspace so
 * scripts written for Claude Code find their files.
 */
import { eventMessage, type OmniMessage } from "@penguin/omnimessage";
import type { HookRunPayload } from "@penguin/omnimessage";
import { childEnvironment, sandboxEnvironment } from "../environment/commands/child-env.js";
import type { CommandSandbox } from "../environment/commands/sandbox.js";
import { DEFAULT_HOOK_TIMEOUT_SECONDS, matcherSelects, type HookEventName, type HooksConfig } from "./hook-config.js";
import { verdictOf, type HookVerdict } from "./hook-protocol.js";
import { runHookProcess } from "./hook-runner.js";

export interface SessionHooksOptions {
  config: HooksConfig;
  sessionId: string;
  /** The session's trace file (Claude Code's `transcript_path`); inside the sandbox the data root is hidden. */
  transcriptPath: string;
  workspace: string;
  sandbox?: CommandSandbox;
  /** The host's environment the hook's is derived from (default process.env). */
  baseEnv?: NodeJS.ProcessEnv;
}

export interface EventOutcome {
  /** The `hook_run` records, in run order. */
  records: OmniMessage<"event_msg">[];
  blocked: boolean;
  /** The blocking hook's reason (stderr of an exit 2, or its JSON reason), or the last decision's. */
  reason?: string;
  decision?: string;
  updatedInput?: Record<string, unknown>;
  context?: string;
  stopTask?: string;
}

export interface EventRun {
  event: HookEventName;
  /** Event-specific input fields (tool_name, tool_input, prompt, …). */
  input: Record<string, unknown>;
  /** Tool events: the names the matcher is tried against. */
  toolNames?: readonly string[];
  toolCallId?: string;
  signal?: AbortSignal;
}

export class SessionHooks {
  readonly #options: SessionHooksOptions;

  constructor(options: SessionHooksOptions) {
    this.#options = options;
  }

  /** Whether `event` has any command for these tool names (no input is built otherwise). */
  has(event: HookEventName, toolNames?: readonly string[]): boolean {
    return (this.#options.config[event] ?? []).some((group) => group.hooks.length > 0 && (toolNames === undefined || matcherSelects(group.matcher, toolNames)));
  }

  async run(run: EventRun): Promise<EventOutcome> {
    const o = this.#options;
    const outcome: EventOutcome = { records: [], blocked: false };
    const contexts: string[] = [];
    const commands = (o.config[run.event] ?? []).filter((g) => run.toolNames === undefined || matcherSelects(g.matcher, run.toolNames)).flatMap((g) => g.hooks);
    const stdin = JSON.stringify({
      session_id: o.sessionId,
      transcript_path: o.transcriptPath,
      cwd: o.workspace,
      hook_event_name: run.event,
      ...run.input,
    });
    for (const hook of commands) {
      const result = await runHookProcess({
        command: hook.command,
        stdin,
        cwd: o.workspace,
        env: this.#env(),
        timeoutMs: Math.round((hook.timeout ?? DEFAULT_HOOK_TIMEOUT_SECONDS) * 1000),
        ...(o.sandbox === undefined ? {} : { sandbox: o.sandbox }),
        ...(run.signal === undefined ? {} : { signal: run.signal }),
      });
      const verdict = verdictOf(run.event, result);
      outcome.records.push(eventMessage(recordOf(run, hook.command, verdict)));
      if (verdict.context !== undefined) contexts.push(verdict.context);
      if (verdict.updatedInput !== undefined) outcome.updatedInput = verdict.updatedInput;
      if (verdict.decision !== undefined) {
        outcome.decision = verdict.decision;
        if (verdict.reason !== undefined) outcome.reason = verdict.reason;
      }
      if (verdict.stopTask !== undefined) outcome.stopTask = verdict.stopTask;
      if (verdict.outcome === "blocked") {
        outcome.blocked = true;
        if (verdict.reason !== undefined) outcome.reason = verdict.reason;
        break;
      }
    }
    if (contexts.length > 0) outcome.context = contexts.join("\n");
    return outcome;
  }

  #env(): Record<string, string> {
    const o = this.#options;
    const base = o.baseEnv ?? process.env;
    const env = o.sandbox === undefined ? childEnvironment(base, undefined) : sandboxEnvironment(base, undefined, base.HOME ?? "/root");
    env.CLAUDE_PROJECT_DIR = o.workspace;
    env.PENGUIN_PROJECT_DIR = o.workspace;
    return env;
  }
}

function recordOf(run: EventRun, command: string, verdict: HookVerdict): HookRunPayload {
  return {
    type: "hook_run",
    hook_event: run.event,
    command,
    outcome: verdict.outcome,
    ...(verdict.exitCode === undefined ? {} : { exit_code: verdict.exitCode }),
    ...(run.toolCallId === undefined ? {} : { tool_call_id: run.toolCallId }),
    ...(typeof run.input.tool_name === "string" ? { tool_name: run.input.tool_name } : {}),
    ...(verdict.decision === undefined ? {} : { decision: verdict.decision }),
    ...(verdict.reason === undefined ? {} : { reason: verdict.reason }),
    ...(verdict.updatedInput === undefined ? {} : { updated_input: JSON.stringify(verdict.updatedInput) }),
    ...(verdict.context === undefined ? {} : { context: verdict.context }),
  };
}
