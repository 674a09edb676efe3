/**
 * What `run` and `chat` do with a tool call that would be asked when there is no terminal to
 * ask on (a pipe, a script, CI): deny it. The first such denial in the process also prints one
 * line on stderr saying how to allow writes and commands, so a script that silently got
 * nothing done learns why once, and a `--json` stdout stays pure JSON. Later denials show only
 * in the usual `✗ [denied]` lines.
 */
import type { ApproveFn } from "@penguin/core";
import { sanitizeForTerminal } from "../io/sanitize.js";

let hintPrinted = false;

export function howToAllowLine(toolName: string): string {
  return (
    `penguin: denied ${sanitizeForTerminal(toolName)} (no terminal to ask): pass --approve allow-all to let the model ` +
    "write and run commands, or run penguin on a terminal to be asked before each one"
  );
}

export function denyWithoutTerminal(writeLine: (line: string) => void): ApproveFn {
  return async function denyUnasked(call) {
    if (!hintPrinted) {
      hintPrinted = true;
      writeLine(howToAllowLine(call.name));
    }
    return "deny";
  };
}
