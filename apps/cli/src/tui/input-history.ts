/**
 * The editor's ↑/↓ history, kept per workspace: one JSON string per line in
 * `<agent dir>/chat-history/<hash of the workspace path>.jsonl`, oldest first, at most
 * HISTORY_LIMIT entries (the file is rewritten shorter when it grows past twice that). A
 * missing or damaged file is an empty history; a failed write never disturbs the chat.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";

export const HISTORY_LIMIT = 500;

export function historyFile(agentDir: string, workspace: string): string {
  return join(agentDir, "chat-history", `${createHash("sha256").update(workspace).digest("hex").slice(0, 16)}.jsonl`);
}

export function readHistory(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const entries: string[] = [];
  for (const line of text.split("\n")) {
    try {
      const v: unknown = JSON.parse(line);
      if (typeof v === "string" && v.trim() !== "") entries.push(v);
    } catch {
      // a torn or foreign line: skipped
    }
  }
  return entries.slice(-HISTORY_LIMIT);
}

export function appendHistory(file: string, entry: string): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    // After a torn last line (a crash mid-write) the entry starts a line of its own.
    const torn = existsSync(file) && !readFileSync(file, "utf8").endsWith("\n") && statSync(file).size > 0;
    appendFileSync(file, `${torn ? "\n" : ""}${JSON.stringify(entry)}\n`);
    const all = readHistory(file);
    if (all.length >= HISTORY_LIMIT) {
      const text = readFileSync(file, "utf8");
      if (text.split("\n").length > HISTORY_LIMIT * 2) writeFileSync(file, all.map((e) => JSON.stringify(e)).join("\n") + "\n");
    }
  } catch {
    // history is a convenience: never an error
  }
}
