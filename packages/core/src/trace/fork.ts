/**
 * Forking a session: a new session that starts as a copy of another one, cut right after a
 * completed task, and then lives on its own.
 *
 * The cut must be at the final answer of a task: an assistant text in a request that
 * completed without calling tools (and not inside a compaction), so the copy ends in a
 * committed, idle state and resumes like any session. The copy keeps the source's files up
 * to the cut (earlier compaction shards included), with the session id rewritten wherever it
 * appears (the meta and scratchpad paths of attachments and archives), and drops
 * `source`: a fork is a plain user session. The scratchpad is copied too. The source is
 * never touched. Whether the source is idle is the host's to check.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { forkedFrom, parseEnvelope, type OmniMessage, type SessionClient } from "@penguin/omnimessage";
import { formatPosition } from "@penguin/trace";
import { PenguinError } from "../errors.js";
import { copyDir } from "../state/copy-dir.js";
import { sessionDate } from "../state/ids.js";
import { sessionScratchpad, traceFilePath, type AgentPaths } from "../state/paths.js";
import { sessionTraceFiles } from "./reader.js";
import { loadRecording, resolvePosition, type RecordedEvent } from "../replay/recording.js";
import { survivorsOfClosedContext } from "./survivors.js";

/** Where to cut: a trace file index and a 1-based line number in that file. */
export interface ForkPosition {
  fileIndex: number;
  line: number;
}

interface ParsedLine {
  raw: string;
  message: OmniMessage | undefined;
}

function parseLines(text: string): ParsedLine[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines.map((raw) => {
    let message: OmniMessage | undefined;
    try {
      message = parseEnvelope(JSON.parse(raw.replace(/\0/g, "")));
    } catch {
      message = undefined;
    }
    return { raw, message };
  });
}

const isEvent = (l: ParsedLine, type: string) => l.message?.type === "event_msg" && l.message.payload.type === type;

/**
 * The last line to keep when cutting at `line` (0-based), or a reason it is not a valid cut:
 * the request's `request_end` (completed) and the records right after it that close the task
 * (`token_usage`, a goal's `goal_finished`) are kept too.
 */
export function cutAfter(lines: readonly ParsedLine[], line: number): { end: number } | { error: string } {
  const at = lines[line]?.message;
  if (at === undefined || at.type !== "model_msg" || at.payload.type !== "text" || at.payload.role !== "assistant") {
    return { error: "the position is not an assistant answer" };
  }
  let depth = 0;
  for (let i = line; i >= 0; i--) {
    if (isEvent(lines[i]!, "compaction_end")) depth++;
    if (isEvent(lines[i]!, "compaction_begin")) {
      if (depth === 0) return { error: "the position is inside a compaction" };
      depth--;
    }
    if (isEvent(lines[i]!, "request_begin")) break;
  }
  for (let i = line + 1; i < lines.length; i++) {
    const m = lines[i]!.message;
    if (m === undefined) continue;
    if (m.type === "model_msg" && m.payload.type === "tool_call") return { error: "the task goes on with tool calls after this answer" };
    if (m.type === "model_msg" && m.payload.type === "text" && m.payload.role === "assistant") return { error: "this is not the last answer of its request" };
    if (m.type === "event_msg" && m.payload.type === "request_end") {
      if (m.payload.status !== "completed") return { error: `the request of this answer ended ${m.payload.status}` };
      // Keep the records that close the task: its token_usage, and a goal's goal_finished.
      let end = i;
      while (lines[end + 1] !== undefined && (isEvent(lines[end + 1]!, "token_usage") || isEvent(lines[end + 1]!, "goal_finished"))) end++;
      return { end };
    }
    if (m.type === "event_msg" && m.payload.type === "request_begin") break;
  }
  return { error: "the request of this answer never completed" };
}

/** The end of the last completed task in a file, as a 0-based line, if any. */
export function lastTaskEnd(lines: readonly ParsedLine[]): number | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = lines[i]!.message;
    if (m?.type === "model_msg" && m.payload.type === "text" && m.payload.role === "assistant" && "end" in cutAfter(lines, i)) return i;
  }
  return undefined;
}

/** A fork is a new session: its meta names who forked it (`client`), not who made the source. */
function rewrite(raw: string, from: string, to: string, isMeta: boolean, client: SessionClient): string {
  const replaced = raw.split(from).join(to);
  if (!isMeta) return replaced;
  const v: unknown = JSON.parse(replaced);
  const m = parseEnvelope(v);
  if (m === undefined || m.type !== "session_meta") return replaced;
  const { source: _dropped, replay_of: _replayOf, client: _client, ...payload } = m.payload;
  return JSON.stringify({ ...m, payload: { ...payload, client } });
}

/**
 * Copy `sourceId`'s trace (cut at `position`, or after its last completed task) and
 * scratchpad into a new session `newId`. Returns the files written.
 */
export function forkSessionFiles(paths: AgentPaths, sourceId: string, newId: string, position?: ForkPosition, client: SessionClient = "sdk"): string[] {
  const files = sessionTraceFiles(paths, sourceId);
  if (files.length === 0) throw new PenguinError("session_not_found", `no session ${sourceId} to fork`);
  const target = position?.fileIndex ?? files[files.length - 1]!.index;
  const cutFile = files.find((f) => f.index === target);
  if (cutFile === undefined) throw new PenguinError("invalid_argument", `session ${sourceId} has no trace file ${target}`);
  const cutLines = parseLines(readFileSync(cutFile.file, "utf8"));
  const at = position !== undefined ? position.line - 1 : lastTaskEnd(cutLines);
  if (at === undefined) throw new PenguinError("invalid_argument", `session ${sourceId} has no completed task to fork from`);
  const cut = cutAfter(cutLines, at);
  if ("error" in cut) throw new PenguinError("invalid_argument", `cannot fork ${sourceId} at file ${target} line ${at + 1}: ${cut.error}`);

  const date = sessionDate(newId);
  const written: string[] = [];
  for (const f of files.filter((x) => x.index <= target)) {
    const lines = f.index === target ? cutLines.slice(0, cut.end + 1) : parseLines(readFileSync(f.file, "utf8"));
    const out = lines.map((l, i) => rewrite(l.raw, sourceId, newId, i === 0 && l.message?.type === "session_meta", client));
    // The fork's own first record: where it came from (the source's id is not rewritten here).
    if (f.index === target) out.push(JSON.stringify(forkedFrom(sourceId, formatPosition({ file: target, line: cut.end + 1 }))));
    const file = traceFilePath(paths, date, newId, f.index);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${out.join("\n")}\n`, { mode: 0o600, flag: "wx" });
    written.push(file);
  }
  return written;
}

/** Copy the source's scratchpad to the fork's, when there is one. */
export async function forkScratchpad(paths: AgentPaths, sourceId: string, newId: string): Promise<void> {
  const from = sessionScratchpad(paths, sourceId);
  if (existsSync(from)) await copyDir(from, sessionScratchpad(paths, newId));
}

/**
 * The lines a context restarted at record `at` begins with: the lines of the file holding it,
 * up to it, with `marker` (its `at` set to the cut's position) and what the previous file's
 * closing compaction carried over placed after the session_meta. The session id is rewritten
 * to `newId` (the same id for an in-place rewind, which keeps its meta as it is).
 */
export function contextLinesAt(paths: AgentPaths, sourceId: string, newId: string, at: number | string, marker: OmniMessage<"event_msg"> | undefined, client: SessionClient = "sdk"): { lines: string[]; target: RecordedEvent } {
  const recording = loadRecording({ paths }, sourceId);
  let target = resolvePosition(recording.events, at);
  const isHeader = (e: RecordedEvent) => e.message.type === "session_meta" || (e.message.type === "event_msg" && e.message.payload.type === "tool_list_ready");
  const sameFile = recording.events.filter((e) => e.fileIndex === target.fileIndex && e.n <= target.n);
  if (target.fileIndex > recording.events[0]!.fileIndex && sameFile.every(isHeader)) {
    const previous = recording.events.filter((e) => e.fileIndex < target.fileIndex).at(-1);
    if (previous !== undefined) target = previous;
  }
  const source = sessionTraceFiles(paths, sourceId).find((f) => f.index === target.fileIndex);
  if (source === undefined) throw new PenguinError("session_not_found", `session ${sourceId} has no trace file ${target.fileIndex}`);
  const lines = parseLines(readFileSync(source.file, "utf8")).slice(0, target.line);
  const origin = marker === undefined ? [] : [JSON.stringify(marker.payload.type === "forked_from" ? { ...marker, payload: { ...marker.payload, at: target.position } } : marker)];
  const previousFile = recording.events.filter((e) => e.fileIndex === target.fileIndex - 1).map((e) => e.message);
  const carried = survivorsOfClosedContext(previousFile).map((m) => JSON.stringify(m));
  const out: string[] = [];
  lines.forEach((l, i) => {
    out.push(sourceId === newId ? l.raw : rewrite(l.raw, sourceId, newId, l.message?.type === "session_meta", client));
    if (i === 0) out.push(...origin, ...carried.map((raw) => raw.split(sourceId).join(newId)));
  });
  return { lines: out, target };
}

/**
 * Fork at any record (`at`: a 1-based record count across rotated files, or `NNN:LLLLLL`),
 * also in the middle of a turn. The fork gets only the context it needs: the lines of the
 * file holding record N, up to N, with a `forked_from` event after its session_meta; earlier
 * files stay with the parent, which the event names. Whatever N leaves open (a request in
 * flight, calls without outputs, a compaction without its end) is closed out by resume's own
 * rules when the fork is resumed, so its next request pairs every call with an output.
 * A record in the header of a rotated file (before its first record) forks from the end of
 * the previous file: that is the same state, and the summary that opens the next context is
 * decided there.
 */
export function forkSessionFilesAt(paths: AgentPaths, sourceId: string, newId: string, at: number | string, client: SessionClient = "sdk"): { files: string[]; at: number; position: string } {
  const { lines: out, target } = contextLinesAt(paths, sourceId, newId, at, forkedFrom(sourceId, ""), client);
  const file = traceFilePath(paths, sessionDate(newId), newId, 1);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${out.join("\n")}\n`, { mode: 0o600, flag: "wx" });
  return { files: [file], at: target.n, position: target.position };
}
