/**
 * The line an approval question adds under a call's one-line summary when the summary does
 * not show what the call will do: a write's size (its content is never on the tool line), an
 * edit's sizes, and a command cut short on the line, given here in full (a command must not
 * hide its tail behind an ellipsis when the user is asked to run it). A call whose line
 * already says everything gets no extra line, so the question reads as before.
 */
import { sanitizeForTerminal } from "../io/sanitize.js";
import { argumentSummary } from "./tool-line.js";

function args(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? Object.fromEntries(Object.entries(value)) : {};
  } catch {
    return {};
  }
}

function size(text: string): string {
  const bytes = Buffer.byteLength(text, "utf8");
  const lines = text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  return `${bytes} byte${bytes === 1 ? "" : "s"}, ${lines} line${lines === 1 ? "" : "s"}`;
}

export function approvalDetail(name: string, argumentsJson: string): string | undefined {
  const a = args(argumentsJson);
  const named = a["file_path"] ?? a["path"];
  const path = typeof named === "string" ? sanitizeForTerminal(named) : undefined;
  if (name === "write_file" && typeof a["content"] === "string") return `  writes ${size(a["content"])} to ${path ?? "(no path)"}`;
  if (name === "edit_file" && typeof a["old_string"] === "string" && typeof a["new_string"] === "string") {
    return `  replaces ${size(a["old_string"])} with ${size(a["new_string"])} in ${path ?? "(no path)"}`;
  }
  const cmd = typeof a["cmd"] === "string" ? a["cmd"] : undefined;
  if (name === "exec_command" && cmd !== undefined && argumentSummary(name, argumentsJson) !== `$ ${cmd}`) return `  full command: ${sanitizeForTerminal(cmd)}`;
  return undefined;
}
