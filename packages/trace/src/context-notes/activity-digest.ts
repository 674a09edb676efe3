/**
 * The activity digest: which files a context read, wrote and edited, and which commands it
 * ran, extracted mechanically from its tool calls.
 *
 * It is appended to every compaction summary so the task's concrete state survives even a
 * poor summary (the top complaint about compaction in every peer harness is an agent that
 * forgets what it already did). Pure and deterministic: the live engine and trace resume
 * compute the same digest from the same calls.
 */
import type { OmniMessage, ToolCallPayload } from "@penguin/omnimessage";

const MAX_COMMANDS = 40;
const MAX_FILES = 200;

interface Activity {
  read: string[];
  written: string[];
  edited: string[];
  commands: string[];
}

function argsOf(call: ToolCallPayload): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(call.arguments);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function pushUnique(list: string[], value: unknown): void {
  if (typeof value !== "string" || value === "") return;
  const i = list.indexOf(value);
  if (i >= 0) list.splice(i, 1);
  list.push(value);
}

export function collectActivity(messages: readonly OmniMessage[]): Activity {
  const a: Activity = { read: [], written: [], edited: [], commands: [] };
  for (const m of messages) {
    if (m.type !== "model_msg" || m.payload.type !== "tool_call") continue;
    const call = m.payload;
    const args = argsOf(call);
    switch (call.name) {
      case "read_file":
        pushUnique(a.read, args.file_path);
        break;
      case "write_file":
        pushUnique(a.written, args.file_path);
        break;
      case "edit_file":
        pushUnique(a.edited, args.file_path);
        break;
      case "exec_command":
        if (typeof args.cmd === "string" && args.cmd !== "") a.commands.push(args.cmd.length > 300 ? `${args.cmd.slice(0, 300)}…` : args.cmd);
        break;
      default:
        break;
    }
  }
  return a;
}

function fileLine(label: string, files: string[]): string | undefined {
  if (files.length === 0) return undefined;
  const shown = files.slice(-MAX_FILES);
  const more = files.length - shown.length;
  return `${label}: ${shown.join(", ")}${more > 0 ? ` (and ${more} earlier)` : ""}`;
}

/** The digest as text, or "" when the context did nothing with files or commands. */
export function activityDigest(messages: readonly OmniMessage[]): string {
  const a = collectActivity(messages);
  const lines = [fileLine("Files read", a.read), fileLine("Files written", a.written), fileLine("Files edited", a.edited)].filter(
    (l): l is string => l !== undefined,
  );
  if (a.commands.length > 0) {
    const shown = a.commands.slice(-MAX_COMMANDS);
    const skipped = a.commands.length - shown.length;
    lines.push(`Commands run${skipped > 0 ? ` (last ${shown.length} of ${a.commands.length})` : ""}:`);
    for (const c of shown) lines.push(`- ${c.replace(/\n/g, "\\n")}`);
  }
  if (lines.length === 0) return "";
  return `Recorded activity before this summary (extracted from the trace, not written by the model):\n${lines.join("\n")}`;
}

/** Summary + digest: the body of the `[context_summary]` text. */
export function summaryWithDigest(summary: string, history: readonly OmniMessage[]): string {
  const digest = activityDigest(history);
  return digest === "" ? summary : `${summary}\n\n${digest}`;
}
