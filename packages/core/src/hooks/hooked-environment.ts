/**
 * The tool hooks around an Environment: PreToolUse before a call runs, PostToolUse (and
 * SubagentStop after `run_subagent`) once its output is known. Their `hook_run` records are
 * yielded as events of the call, so the tool batch traces them with it.
 *
 * - PreToolUse runs after the harness's own approval (command policy, approval mode, the
 *   host's answer): a hook can deny a call, rewrite its input, or ask the human again
 *   (`permissionDecision: ask` calls the host's approval function; with none, the call is
 *   denied), never waive a decision the harness already made. A denial becomes the call's
 *   `failed` output with the hook's reason, which is what the model reads.
 * - PostToolUse cannot undo a call: a block (exit 2 or `decision: block`) and any
 *   `additionalContext` are appended to the output the model reads.
 * - A replay with recorded tools never reaches this wrapper (the recording answers, and
 *   re-emits the recorded `hook_run` records); with rerun tools the hooks run again.
 */
import { modelMessage, type OmniMessage, type ToolCallOutputPayload, type ToolCallPayload } from "@penguin/omnimessage";
import type { EnvironmentInterface, ExecuteToolInput, ToolPermission } from "../interfaces.js";
import { hookToolInput, toolArgumentsFrom, toolNamesFor } from "./hook-protocol.js";
import type { SessionHooks } from "./session-hooks.js";

function parseArguments(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const failed = (call: ToolCallPayload, output: string): OmniMessage =>
  modelMessage({ type: "tool_call_output", role: "user", tool_call_id: call.tool_call_id, output, stop_reason: "failed" });

export class HookedEnvironment implements EnvironmentInterface {
  readonly #inner: EnvironmentInterface;
  readonly #hooks: SessionHooks;

  constructor(inner: EnvironmentInterface, hooks: SessionHooks) {
    this.#inner = inner;
    this.#hooks = hooks;
    if (inner.connect !== undefined) this.connect = (signal) => inner.connect!(signal);
    if (inner.drainNotices !== undefined) this.drainNotices = () => inner.drainNotices!();
    if (inner.listProcesses !== undefined) this.listProcesses = () => inner.listProcesses!();
    if (inner.listSubagents !== undefined) this.listSubagents = () => inner.listSubagents!();
    if (inner.dispose !== undefined) this.dispose = () => inner.dispose!();
    if (inner.prepareTool !== undefined) this.prepareTool = (call) => inner.prepareTool!(call);
  }

  connect?: EnvironmentInterface["connect"];
  drainNotices?: EnvironmentInterface["drainNotices"];
  listProcesses?: EnvironmentInterface["listProcesses"];
  listSubagents?: EnvironmentInterface["listSubagents"];
  dispose?: EnvironmentInterface["dispose"];
  prepareTool?: EnvironmentInterface["prepareTool"];

  listTools() {
    return this.#inner.listTools();
  }

  toolPermission(name: string): ToolPermission {
    return this.#inner.toolPermission(name);
  }

  async *executeTool(input: ExecuteToolInput): AsyncGenerator<OmniMessage, void> {
    let call = input.toolCall;
    const names = toolNamesFor(call.name);
    const args = parseArguments(call.arguments);
    const signal = input.signal;

    if (this.#hooks.has("PreToolUse", names)) {
      const pre = await this.#hooks.run({
        event: "PreToolUse",
        input: { tool_name: call.name, tool_input: hookToolInput(call.name, args), tool_use_id: call.tool_call_id },
        toolNames: names,
        toolCallId: call.tool_call_id,
        ...(signal === undefined ? {} : { signal }),
      });
      yield* pre.records;
      if (pre.blocked) {
        yield failed(call, `[blocked by a PreToolUse hook] ${pre.reason ?? "the hook denied this call"}`);
        return;
      }
      if (pre.decision === "ask") {
        const answer = input.approve === undefined ? "deny" : await input.approve(call, signal === undefined ? {} : { signal }).catch(() => "deny" as const);
        if (answer !== "allow") {
          yield failed(call, `[denied: a PreToolUse hook asked for confirmation${input.approve === undefined ? " and no one can approve here" : " and it was refused"}]${pre.reason === undefined ? "" : ` ${pre.reason}`}`);
          return;
        }
      }
      if (pre.updatedInput !== undefined) call = { ...call, arguments: JSON.stringify(toolArgumentsFrom(call.name, args, pre.updatedInput)) };
    }

    const after = this.#hooks.has("PostToolUse", names) || (call.name === "run_subagent" && this.#hooks.has("SubagentStop"));
    let output: ToolCallOutputPayload | undefined;
    for await (const m of this.#inner.executeTool({ ...input, toolCall: call })) {
      if (after && m.type === "model_msg" && m.payload.type === "tool_call_output" && m.origin === undefined) {
        output = m.payload;
        continue;
      }
      yield m;
    }
    if (output === undefined) return;
    const notes: string[] = [];
    if (this.#hooks.has("PostToolUse", names)) {
      const post = await this.#hooks.run({
        event: "PostToolUse",
        input: {
          tool_name: call.name,
          tool_input: hookToolInput(call.name, parseArguments(call.arguments)),
          tool_response: { output: output.output, stop_reason: output.stop_reason ?? "completed" },
          tool_use_id: call.tool_call_id,
        },
        toolNames: names,
        toolCallId: call.tool_call_id,
        ...(signal === undefined ? {} : { signal }),
      });
      yield* post.records;
      if (post.blocked) notes.push(`[PostToolUse hook] ${post.reason ?? "the hook flagged this output"}`);
      if (post.context !== undefined) notes.push(`[PostToolUse hook context] ${post.context}`);
    }
    if (call.name === "run_subagent" && this.#hooks.has("SubagentStop")) {
      const stop = await this.#hooks.run({ event: "SubagentStop", input: { stop_hook_active: false }, toolCallId: call.tool_call_id, ...(signal === undefined ? {} : { signal }) });
      yield* stop.records;
      if (stop.blocked) notes.push(`[SubagentStop hook] ${stop.reason ?? "the hook flagged the subagent's result"}`);
    }
    yield modelMessage(notes.length === 0 ? output : { ...output, output: `${output.output}\n\n${notes.join("\n")}` });
  }
}
