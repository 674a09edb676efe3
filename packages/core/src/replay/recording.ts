/**
 * A recorded session, read whole: every record of every rotated trace file in order, each
 * with its public position, plus the recorded child sessions (subagents) it points to.
 *
 * Replay, time travel and fork all count records the same way, so the numbering lives here:
 * record N (1-based) is the N-th line counted from the session's first file across rotations,
 * session_meta lines included; its position is `NNN:LLLLLL` (file index, line in that file),
 * which stays stable however the session grows. Unreadable lines (torn, malformed) keep their
 * line number but are not records.
 *
 * A recording comes from a data root (by session id) or from a folder of trace files (the
 * shipped fixtures under `fixtures/traces/<name>/`), where the root session is the one whose
 * meta does not say `source: "subagent"`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseEnvelope, type OmniMessage, type SessionMetaPayload } from "@penguin/omnimessage";
import { foldCache, upcastLine } from "@penguin/trace";
import { PenguinError } from "../errors.js";
import type { AgentPaths } from "../state/paths.js";
import { isSessionId } from "../state/ids.js";
import { sessionTraceFiles, traceFileIndex, type TraceFileRef } from "../trace/reader.js";

export interface RecordedEvent {
  /** 1-based count from the session's start, across rotated files. */
  n: number;
  fileIndex: number;
  /** 1-based line in its file. */
  line: number;
  /** `NNN:LLLLLL`. */
  position: string;
  message: OmniMessage;
}

export interface RecordedSession {
  sessionId: string;
  meta: SessionMetaPayload;
  events: RecordedEvent[];
  /** Child sessions this one spawned, by their recorded id, when their traces are available. */
  children: Map<string, RecordedSession>;
}

/** Where a recording's trace files are found. */
export type RecordingSource = { paths: AgentPaths } | { folder: string };

export function formatPosition(fileIndex: number, line: number): string {
  return `${String(fileIndex).padStart(3, "0")}:${String(line).padStart(6, "0")}`;
}

function readEvents(files: TraceFileRef[]): RecordedEvent[] {
  const events: RecordedEvent[] = [];
  for (const f of files) {
    const lines = readFileSync(f.file, "utf8").split("\n");
    if (lines.at(-1) === "") lines.pop();
    lines.forEach((raw, i) => {
      let message: OmniMessage | undefined;
      try {
        // Most lines are clean: pay for NUL stripping only where a crash left padding.
        // Older line shapes read as today's, as every trace reader does (@penguin/trace upcast).
        message = parseEnvelope(upcastLine(JSON.parse(raw.includes("\0") ? raw.replace(/\0/g, "").trim() : raw)));
      } catch {
        message = undefined;
      }
      if (message === undefined) return;
      events.push({ n: events.length + 1, fileIndex: f.index, line: i + 1, position: formatPosition(f.index, i + 1), message });
    });
  }
  return events;
}

function folderFiles(folder: string): Map<string, TraceFileRef[]> {
  if (!existsSync(folder)) throw new PenguinError("session_not_found", `no recorded sessions in ${folder}: the folder does not exist`);
  const bySession = new Map<string, TraceFileRef[]>();
  for (const name of readdirSync(folder)) {
    const index = traceFileIndex(name);
    if (index === undefined) continue;
    const sessionId = name.slice(0, name.lastIndexOf("_"));
    const list = bySession.get(sessionId) ?? [];
    list.push({ file: join(folder, name), index });
    bySession.set(sessionId, list);
  }
  for (const list of bySession.values()) list.sort((a, b) => a.index - b.index);
  return bySession;
}

function filesOf(source: RecordingSource, sessionId: string): TraceFileRef[] {
  if ("paths" in source) return sessionTraceFiles(source.paths, sessionId);
  return folderFiles(source.folder).get(sessionId) ?? [];
}

/*
 * Parsed sessions are kept while their files are unchanged (same sizes and modification times)
 * in the process's fold cache (@penguin/trace `foldCache.remember`), under its one eviction
 * rule: time travel over a long session reads it once, then only folds.
 */

function stampOf(files: TraceFileRef[]): string {
  return files
    .map((f) => {
      const s = statSync(f.file);
      return `${f.file}:${s.size}:${s.mtimeMs}`;
    })
    .join("|");
}

/** Load a recorded session and, recursively, the children its `subagent` events name. */
export function loadRecording(source: RecordingSource, sessionId: string): RecordedSession {
  const files = isSessionId(sessionId) ? filesOf(source, sessionId) : [];
  const key = `${"paths" in source ? source.paths.tracesDir : source.folder}\n${sessionId}`;
  // No files: nothing to keep, and readRecording says what is missing.
  if (files.length === 0) return readRecording(source, sessionId);
  return foldCache.remember(`recording\u0000${key}`, stampOf(files), () => readRecording(source, sessionId));
}

function readRecording(source: RecordingSource, sessionId: string): RecordedSession {
  if (!isSessionId(sessionId)) {
    throw new PenguinError("session_not_found", `"${sessionId}" is not a session id (expected session-YYYY-MM-DD-HH-mm-ss-<8hex>)`);
  }
  const files = filesOf(source, sessionId);
  const where = "paths" in source ? source.paths.tracesDir : source.folder;
  if (files.length === 0) throw new PenguinError("session_not_found", `no session ${sessionId} in ${where}`);
  const events = readEvents(files);
  const meta = events.find((e) => e.message.type === "session_meta")?.message;
  if (meta === undefined || meta.type !== "session_meta") {
    throw new PenguinError("session_unreadable", `the trace of ${sessionId} has no readable session_meta line`);
  }
  const children = new Map<string, RecordedSession>();
  for (const e of events) {
    const m = e.message;
    if (m.type !== "event_msg" || m.payload.type !== "subagent" || m.origin !== undefined) continue;
    const childId = m.payload.session_id;
    if (filesOf(source, childId).length > 0) children.set(childId, loadRecording(source, childId));
  }
  return { sessionId, meta: meta.payload, events, children };
}

/** The root session of a folder of recorded traces: the one session not started by a parent. */
export function folderRootSession(folder: string): string {
  const roots: string[] = [];
  for (const [sessionId, files] of folderFiles(folder)) {
    const first = readEvents(files.slice(0, 1))[0]?.message;
    if (first?.type === "session_meta" && first.payload.source !== "subagent") roots.push(sessionId);
  }
  if (roots.length !== 1) {
    throw new PenguinError("invalid_argument", `${folder} should hold exactly one top-level recorded session, found ${roots.length === 0 ? "none" : roots.join(", ")}`);
  }
  return roots[0]!;
}

/**
 * Record N of a session from a CLI-style position: a count (`17`) or `NNN:LLLLLL`.
 * Throws a message naming the valid range when the position is not in the session.
 */
export function resolvePosition(events: readonly RecordedEvent[], at: number | string): RecordedEvent {
  const last = events.at(-1);
  if (last === undefined) throw new PenguinError("invalid_argument", "the session has no records");
  if (typeof at === "string" && /^\d+:\d+$/.test(at)) {
    const [file, line] = at.split(":").map(Number) as [number, number];
    const hit = events.find((e) => e.fileIndex === file && e.line === line);
    if (hit === undefined) throw new PenguinError("invalid_argument", `no record at position ${at}: positions run from ${events[0]!.position} to ${last.position}`);
    return hit;
  }
  const n = typeof at === "number" ? at : /^\d+$/.test(at) ? Number(at) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > events.length) {
    throw new PenguinError("invalid_argument", `--at ${String(at)} is not a record of this session: give a number from 1 to ${events.length}, or a position NNN:LLLLLL`);
  }
  return events[n - 1]!;
}
