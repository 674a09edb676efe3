/**
 * Rebuilding a session's starting workspace from its recording, where the recording says
 * enough: a replay that runs the tools again needs the files as they were before the first
 * task, and a live session's workspace has usually moved on since.
 *
 * Two facts are read from the tool calls, in order, for each workspace-relative path:
 * - a complete `read_file` of a path the session had not written yet gives its content
 *   (the numbered lines, without the numbers; a partial or capped read gives nothing);
 * - a `write_file` answered `Created …` for a path the session had not read says the file
 *   did not exist at the start.
 * Everything else (what commands saw, files never read) stays as the copy has it. The
 * trailing newline of a file is not in a read's output; a rebuilt file always ends with one.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import type { RecordedSession } from "./recording.js";

export interface StartingFiles {
  /** Path (relative to the workspace) → content at the start. */
  contents: Map<string, string>;
  /** Paths that did not exist at the start. */
  absent: Set<string>;
}

const NUMBERED = /^ *\d+\t(.*)$/;

function workspacePath(workspace: string, path: unknown): string | undefined {
  if (typeof path !== "string" || path === "") return undefined;
  const abs = isAbsolute(path) ? path : resolve(workspace, path);
  const rel = relative(workspace, abs);
  return rel === "" || rel.startsWith("..") || isAbsolute(rel) ? undefined : rel;
}

/** The content a complete read_file output shows, or undefined when it shows only part. */
function readContent(output: string, shownPath: string): string | undefined {
  if (output === `[${shownPath} is empty]`) return "";
  const lines = output.endsWith("\n") ? output.slice(0, -1).split("\n") : output.split("\n");
  const texts: string[] = [];
  for (const line of lines) {
    const m = NUMBERED.exec(line);
    if (m === null) return undefined;
    texts.push(m[1]!);
  }
  return texts.length === 0 ? undefined : `${texts.join("\n")}\n`;
}

export function startingFiles(recording: RecordedSession): StartingFiles {
  const workspace = recording.meta.workspace;
  const calls = new Map<string, { name: string; args: Record<string, unknown> }>();
  const contents = new Map<string, string>();
  const absent = new Set<string>();
  const touched = new Set<string>();
  for (const { message: m } of recording.events) {
    if (m.type !== "model_msg" || m.origin !== undefined) continue;
    const p = m.payload;
    if (p.type === "tool_call") {
      try {
        calls.set(p.tool_call_id, { name: p.name, args: JSON.parse(p.arguments) as Record<string, unknown> });
      } catch {
        // Arguments that do not parse never ran a tool.
      }
      continue;
    }
    if (p.type !== "tool_call_output" || p.stop_reason !== "completed") continue;
    const call = calls.get(p.tool_call_id);
    if (call === undefined) continue;
    const path = workspacePath(workspace, call.args.file_path);
    if (path === undefined || touched.has(path)) continue;
    if (call.name === "read_file") {
      const offset = call.args.offset;
      const content = offset === undefined || offset === 1 ? readContent(p.output, String(call.args.file_path)) : undefined;
      if (content !== undefined) contents.set(path, content);
      touched.add(path);
    } else if (call.name === "write_file" || call.name === "edit_file") {
      if (call.name === "write_file" && p.output.startsWith("Created ")) absent.add(path);
      touched.add(path);
    }
  }
  return { contents, absent };
}

/** Puts the starting files into `dir` (a fresh copy of the workspace, or an empty folder). */
export function applyStartingFiles(dir: string, files: StartingFiles): number {
  for (const [path, content] of files.contents) {
    const file = join(dir, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  for (const path of files.absent) rmSync(join(dir, path), { force: true });
  return files.contents.size + files.absent.size;
}
