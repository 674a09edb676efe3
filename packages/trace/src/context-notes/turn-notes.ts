/**
 * The texts the harness writes into the model's context when a turn did not end normally.
 *
 * One module for both writers of these texts, the live engine and trace resume, so the
 * model reads the same words whichever path built its context:
 * - `[turn_aborted]`: the user (or a crash) cut the turn short; what the model had produced
 *   so far, so it can pick up instead of starting over.
 * - `[turn_retried]`: the provider failed mid-turn and the request is being sent again; what
 *   was already produced and which tools already ran (they are not run again).
 * - Placeholder outputs for tool calls that never finished, and the denial outputs.
 */
import { wrapMarker, type CompleteModelPayload, type ToolCallOutputPayload } from "@penguin/omnimessage";

export const INTERRUPTED_BY_USER = "[interrupted: tool aborted by user]";
export const INTERRUPTED_BY_EXIT = "[interrupted: process exited before the tool finished]";
export const DENIED_BY_USER = "Tool call denied by user.";
export const DENIED_BY_POLICY = "Tool call denied by policy.";

const MAX_THINKING = 4000;
const MAX_TEXT = 8000;
const MAX_TOOL_OUTPUT = 2000;

function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max)}… [${s.length - max} more chars]`;
}

/**
 * A readable account of a partial turn: its thinking, text and tool calls (with their
 * outputs when they ran). `outputs` maps tool_call_id to the output the call produced.
 */
export function describePartialTurn(
  produced: readonly CompleteModelPayload[],
  outputs: ReadonlyMap<string, ToolCallOutputPayload>,
): string {
  const parts: string[] = [];
  const thinking = produced.flatMap((p) => (p.type === "thinking" && p.thinking !== "" ? [p.thinking] : [])).join("\n");
  const text = produced.flatMap((p) => (p.type === "text" && p.role === "assistant" ? [p.text] : [])).join("\n");
  if (thinking !== "") parts.push(`Thinking so far:\n${clip(thinking, MAX_THINKING)}`);
  if (text !== "") parts.push(`Text so far:\n${clip(text, MAX_TEXT)}`);
  const calls = produced.flatMap((p) => (p.type === "tool_call" ? [p] : []));
  if (calls.length > 0) {
    const lines = calls.map((c) => {
      const out = outputs.get(c.tool_call_id);
      const result = out === undefined ? "not run" : `output: ${clip(out.output, MAX_TOOL_OUTPUT)}`;
      return `- ${c.name} ${clip(c.arguments, 1000)} → ${result}`;
    });
    parts.push(`Tool calls:\n${lines.join("\n")}`);
  }
  if (parts.length === 0) parts.push("(nothing had been produced yet)");
  return parts.join("\n\n");
}

export function turnAbortedText(
  cause: "user" | "exit" | "failure",
  produced: readonly CompleteModelPayload[],
  outputs: ReadonlyMap<string, ToolCallOutputPayload>,
): string {
  const why =
    cause === "user"
      ? "The user interrupted the previous turn before it finished."
      : cause === "exit"
        ? "The previous turn was cut short because the harness process exited."
        : "The previous turn failed before it finished.";
  return wrapMarker(
    "turn_aborted",
    `${why} Tool calls listed here are not part of the conversation; call them again if they are still needed.\n\n${describePartialTurn(produced, outputs)}`,
  );
}

export function turnRetriedText(
  attempt: number,
  errorMessage: string | undefined,
  produced: readonly CompleteModelPayload[],
  outputs: ReadonlyMap<string, ToolCallOutputPayload>,
): string {
  const reason = errorMessage ? ` (${errorMessage})` : "";
  return wrapMarker(
    "turn_retried",
    `Attempt ${attempt} of this turn failed${reason} and the request is being sent again. Tools listed as having run already ran: do not repeat them unless needed.\n\n${describePartialTurn(produced, outputs)}`,
  );
}
