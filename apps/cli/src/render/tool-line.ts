/**
 * How a tool call reads on one line: `[tool-XYZ] name <- summary`, where XYZ is the last
 * three characters of the call id (enough to match a call with its output when tools run
 * concurrently) and the summary is `$ cmd` for exec_command or the few arguments that say
 * what the call touches (a path, a process id) for the others; the `description` every
 * builtin tool takes is prose and is shown only when nothing else identifies the call. Arguments are the model's
 * raw JSON string: unparseable arguments are shown cut short, as they are.
 */
import { shorten } from "./format.js";

const SUMMARY_MAX = 120;
/** Argument names that identify what a call acts on, most telling first. */
const KEY_ARGS = ["path", "file_path", "process_id", "url", "query", "pattern", "prompt"];
/** Arguments never worth a place on the line: prose, and file contents. */
const SKIP_ARGS = new Set(["description", "content", "new_string", "old_string", "text"]);

export function toolTag(toolCallId: string): string {
  return `[tool-${toolCallId.slice(-3)}]`;
}

function parseArgs(json: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? Object.fromEntries(Object.entries(value)) : undefined;
  } catch {
    return undefined;
  }
}

function scalar(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return undefined;
}

export function argumentSummary(name: string, argumentsJson: string): string {
  const args = parseArgs(argumentsJson);
  if (args === undefined) return shorten(argumentsJson, SUMMARY_MAX);
  const cmd = scalar(args["cmd"]) ?? scalar(args["command"]);
  if (name === "exec_command" && cmd !== undefined) return `$ ${shorten(cmd, SUMMARY_MAX - 2)}`;
  const key = KEY_ARGS.find((k) => scalar(args[k]) !== undefined);
  if (key !== undefined) {
    const rest = Object.entries(args).filter(([k, v]) => k !== key && scalar(v) !== undefined && !SKIP_ARGS.has(k));
    const extra = rest.length > 0 ? ` (${rest.map(([k, v]) => `${k}=${scalar(v)}`).join(", ")})` : "";
    return shorten(`${scalar(args[key])}${extra}`, SUMMARY_MAX);
  }
  const pairs = Object.entries(args).flatMap(([k, v]) => {
    const s = scalar(v);
    return s === undefined || SKIP_ARGS.has(k) ? [] : [`${k}=${s}`];
  });
  const description = scalar(args["description"]);
  if (pairs.length === 0 && description !== undefined) return shorten(description, SUMMARY_MAX);
  return shorten(pairs.join(", "), SUMMARY_MAX);
}

export function toolCallLine(name: string, argumentsJson: string, toolCallId: string): { tag: string; name: string; summary: string } {
  return { tag: toolTag(toolCallId), name, summary: argumentSummary(name, argumentsJson) };
}
