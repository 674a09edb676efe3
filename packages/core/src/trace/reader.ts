/**
 * Core's view of the trace reader: the parsing lives in @penguin/trace; this module binds the
 * file lookups to an agent's paths (its traces directory) and is the one module the engine's
 * resume path reads through, so tests can observe and damage reading in one place.
 */
import { lastRecordLine, lastRecordsOf, listTracedSessionsIn, parseTraceBytes, parseTraceText, readTraceFile, readTraceFileLines, readTraceFileWithExtent, resumeSnapshotFile, traceFileIndex, traceFilesIn, type SessionTraceSummary, type TraceFileRef } from "@penguin/trace";
import type { AgentPaths } from "../state/paths.js";

export { lastRecordLine, lastRecordsOf, parseTraceBytes, parseTraceText, readTraceFile, readTraceFileLines, readTraceFileWithExtent, resumeSnapshotFile, traceFileIndex };
export type { CompleteExtent, SkippedLine, TraceContent, TraceFileRef, SessionTraceSummary } from "@penguin/trace";

/** A session's trace files, lowest index first. Empty when the session has none. */
export function sessionTraceFiles(paths: AgentPaths, sessionId: string): TraceFileRef[] {
  return traceFilesIn(paths.tracesDir, sessionId);
}

/** Every session with at least one trace file, most recently active first. */
export function listTracedSessions(paths: AgentPaths): SessionTraceSummary[] {
  return listTracedSessionsIn(paths.tracesDir);
}
