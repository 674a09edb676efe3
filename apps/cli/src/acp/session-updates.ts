/**
 * From OmniMessages to ACP `session/update`s: one mapping, used live (a prompt turn's stream)
 * and for `session/load` (the session's trace replayed), so an editor that loads a session sees
 * what it saw live. Live, text and thinking arrive as streamed partials and go out as chunks
 * as they come; the trace holds the complete messages only, which go out as one chunk each.
 * A message streamed live is not sent again when it completes, so both ways the chunks of one
 * message concatenate to the same text. Partial tool calls and partial tool outputs are not
 * sent (the complete call and output are), for the same reason. The one difference: text a
 * request streamed before it was cut off (and retried) was shown live but has no complete
 * message in the trace, so a load does not show it again.
 *
 * Each request's token usage becomes a `usage_update` (the context used of the model's window).
 *
 * Only the session's own messages are mapped: a subagent's (a non-empty `origin`) stay inside
 * its run_subagent call, as they do in the CLI.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { OmniMessage, ToolCallPayload } from "@penguin/omnimessage";
import { argumentSummary } from "../render/tool-line.js";

/** What kind of work a tool does, as ACP names it (an editor picks its icon from it). */
export function toolKind(name: string): acp.ToolKind {
  switch (name) {
    case "read_file":
    case "read_image":
    case "describe_image":
      return "read";
    case "write_file":
    case "edit_file":
      return "edit";
    case "exec_command":
    case "input_command":
    case "kill_command":
      return "execute";
    default:
      return "other";
  }
}

function parsedArguments(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return json;
  }
}

function filePathOf(call: ToolCallPayload, workspace: string): string | undefined {
  const args = parsedArguments(call.arguments);
  if (typeof args !== "object" || args === null || !("file_path" in args) || typeof args.file_path !== "string") return undefined;
  return args.file_path.startsWith("/") ? args.file_path : `${workspace.replace(/\/$/, "")}/${args.file_path}`;
}

/** The `tool_call` update announcing a complete call (pending until it is approved and runs). */
export function toolCallUpdate(call: ToolCallPayload, workspace: string): acp.SessionUpdate {
  const path = filePathOf(call, workspace);
  return {
    sessionUpdate: "tool_call",
    toolCallId: call.tool_call_id,
    title: `${call.name} ${argumentSummary(call.name, call.arguments)}`.trim(),
    kind: toolKind(call.name),
    status: "pending",
    rawInput: parsedArguments(call.arguments),
    ...(path === undefined ? {} : { locations: [{ path }] }),
  };
}

const text = (value: string): acp.ContentBlock => ({ type: "text", text: value });

/**
 * The updates of one session's messages, in order. Keeps what it needs across messages (which
 * text and thinking were streamed, the workspace for relative paths), so one instance follows
 * one stream: a live turn, or a whole trace.
 */
export class SessionUpdateMapper {
  #workspace: string;
  #contextWindow: number | "unknown";
  #streamedText = false;
  #streamedThinking = false;

  constructor(workspace: string, contextWindow: number | "unknown" = "unknown") {
    this.#workspace = workspace;
    this.#contextWindow = contextWindow;
  }

  map(m: OmniMessage): acp.SessionUpdate[] {
    if (m.origin !== undefined && m.origin.length > 0) return [];
    if (m.type === "session_meta") {
      this.#workspace = m.payload.workspace;
      this.#contextWindow = m.payload.model_context_window;
      return [];
    }
    if (m.type === "event_msg") {
      const p = m.payload;
      if (p.type === "approval_decision" && p.decision === "allow") return [{ sessionUpdate: "tool_call_update", toolCallId: p.tool_call_id, status: "in_progress" }];
      // How full the context is after each request (an editor shows it as a meter), when the window is known.
      if (p.type === "token_usage") return this.#contextWindow === "unknown" ? [] : [{ sessionUpdate: "usage_update", used: p.request.total, size: this.#contextWindow }];
      if (p.type === "request_begin") {
        this.#streamedText = false;
        this.#streamedThinking = false;
      }
      return [];
    }
    const p = m.payload;
    switch (p.type) {
      case "partial_text":
        if (p.text === "") return [];
        this.#streamedText = true;
        return [{ sessionUpdate: "agent_message_chunk", content: text(p.text) }];
      case "partial_thinking":
        if (p.thinking === "") return [];
        this.#streamedThinking = true;
        return [{ sessionUpdate: "agent_thought_chunk", content: text(p.thinking) }];
      case "text": {
        if (p.role === "user") {
          // The person's own prompts; texts the harness adds (steering notes, notices) are not theirs.
          if (p.sender !== undefined && p.sender !== "user") return [];
          return [{ sessionUpdate: "user_message_chunk", content: text(p.text) }];
        }
        const streamed = this.#streamedText;
        this.#streamedText = false;
        return streamed || p.text === "" ? [] : [{ sessionUpdate: "agent_message_chunk", content: text(p.text) }];
      }
      case "thinking": {
        const streamed = this.#streamedThinking;
        this.#streamedThinking = false;
        return streamed || p.thinking === "" ? [] : [{ sessionUpdate: "agent_thought_chunk", content: text(p.thinking) }];
      }
      case "tool_call":
        return [toolCallUpdate(p, this.#workspace)];
      case "tool_call_output":
        return [
          {
            sessionUpdate: "tool_call_update",
            toolCallId: p.tool_call_id,
            status: p.stop_reason === undefined || p.stop_reason === "completed" ? "completed" : "failed",
            content: [{ type: "content", content: text(p.output) }],
          },
        ];
      default:
        return [];
    }
  }
}

/** The updates that replay a whole recorded session (its trace, every file in order). */
export function replayUpdates(messages: readonly OmniMessage[], workspace: string): acp.SessionUpdate[] {
  const mapper = new SessionUpdateMapper(workspace);
  return messages.flatMap((m) => mapper.map(m));
}
