/**
 * Small readers over trace files that the server needs beyond core's reader: the first
 * line alone (a session's meta, without reading a long trace), a file's lines with their
 * 1-based line numbers (for paging positions), and finding a session's traces in any agent
 * of a project (a subagent may run as another agent). Tolerant like core's reader: a line
 * that does not parse is skipped, never fatal.
 */
import { closeSync, openSync, readdirSync, readSync } from "node:fs";
import { agentPaths, parseTraceText, PROJECT_OR_AGENT_ID, sessionTraceFiles, type ProjectPaths } from "@penguin/core";
import { findMarkers, isCompleteModel, sessionMetaOf, type OmniMessage, type SessionMetaPayload } from "@penguin/omnimessage";

const CHUNK = 64 * 1024;
const MAX_FIRST_LINE = 16 * 1024 * 1024;

/** The first line of a file (without its newline), read in chunks; undefined when empty or unreadable. */
export function readFirstLine(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return undefined;
  }
  try {
    const parts: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.alloc(CHUNK);
      const n = readSync(fd, buf, 0, CHUNK, total);
      if (n === 0) break;
      const nl = buf.subarray(0, n).indexOf(10);
      if (nl >= 0) {
        parts.push(buf.subarray(0, nl));
        break;
      }
      parts.push(buf.subarray(0, n));
      total += n;
      if (total > MAX_FIRST_LINE) return undefined;
    }
    const line = Buffer.concat(parts).toString("utf8");
    return line === "" ? undefined : line;
  } finally {
    closeSync(fd);
  }
}

export function readSessionMeta(file: string): SessionMetaPayload | undefined {
  const line = readFirstLine(file);
  if (line === undefined) return undefined;
  const m = parseTraceText(`${line}\n`).messages[0];
  return m === undefined ? undefined : sessionMetaOf(m);
}

/** How much of a trace's start `readFirstPrompt` reads: the first prompt is near the top. */
const FIRST_PROMPT_WINDOW = 1024 * 1024;

/**
 * The first thing a person asked in a trace (a user text not written by the harness, with
 * harness blocks such as skills or goal rounds cut out), from the first MiB of the file;
 * undefined when there is none there. Used to title sessions started outside the server.
 */
export function readFirstPrompt(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return undefined;
  }
  let text: string;
  try {
    const buf = Buffer.allocUnsafe(FIRST_PROMPT_WINDOW);
    const n = readSync(fd, buf, 0, FIRST_PROMPT_WINDOW, 0);
    const chunk = buf.subarray(0, n);
    const lastNewline = chunk.lastIndexOf(10);
    text = chunk.subarray(0, lastNewline + 1).toString("utf8");
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
  for (const m of parseTraceText(text).messages) {
    if (!isCompleteModel(m) || m.payload.type !== "text" || m.payload.role !== "user" || m.payload.sender === "harness") continue;
    let rest = "";
    let at = 0;
    for (const block of findMarkers(m.payload.text)) {
      rest += m.payload.text.slice(at, block.start);
      at = block.end;
    }
    rest = (rest + m.payload.text.slice(at)).trim();
    if (rest !== "") return rest;
  }
  return undefined;
}

/** The agents of a project, as found on disk. */
export function agentIdsOnDisk(project: ProjectPaths): string[] {
  try {
    return readdirSync(project.agentsDir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && PROJECT_OR_AGENT_ID.test(d.name))
      .map((d) => d.name)
      .sort();
  } catch {
    return [];
  }
}

/** The first trace file of a session in any agent of the project. */
export function findSessionFirstTrace(project: ProjectPaths, sessionId: string): string | undefined {
  for (const agentId of agentIdsOnDisk(project)) {
    const first = sessionTraceFiles(agentPaths(project.root, project.projectId, agentId), sessionId)[0];
    if (first !== undefined) return first.file;
  }
  return undefined;
}
