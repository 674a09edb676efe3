// @penguin/trace: the write model. The durable append-only trace (writer, tolerant reader,
// positions, upcasting), `evolve` (the one reducer of session state) and `stateAt` (a fold to
// any position, served from snapshots), plus the TraceStore Effect service over them.
export * from "./position.js";
export * from "./state.js";
export { Sequence } from "./sequence.js";
export { evolve, foldTrace, carryOverOf, closeDanglingWindow, outputsForCalls } from "./evolve.js";
export { SessionFolds, stateAt, DEFAULT_SNAPSHOT_EVERY } from "./state-at.js";
export type { StateAtResult } from "./state-at.js";
export { initialInspectFacts, initialTimeTravelState, stepTimeTravel, stepFacts, foldTimeTravel, comparableFold } from "./time-travel.js";
export type { InspectFacts, TimeTravelState, FileToolCall } from "./time-travel.js";
export { SnapshotEncoder, SnapshotLineMismatch, TraceLineResolver, decodeItems, decodeSnapshot, decodeSnapshotWith, encodeItems, lineageItems, lineagesOf, SNAPSHOT_FORMAT } from "./snapshot-codec.js";
export type { ItemRef, LineageChunk, LineRefOf, RestoredSnapshot, TraceLineRef } from "./snapshot-codec.js";
export { foldFromSnapshot, describeRecord } from "./snapshot-source.js";
export type { SnapshotSource, SnapshotLookup, StoredSnapshot, FoldedTo } from "./snapshot-source.js";
export { recordView, replayTrace, resumeView } from "./replay.js";
export type { ReplayResult } from "./replay.js";
export { TraceWriter, TraceWriteError, isCommitPoint } from "./writer.js";
export type { TraceWriterOptions, TraceFileNamer, AppendListener, BackgroundSync } from "./writer.js";
export { PROJECT_OR_AGENT_ID } from "./folder-ids.js";
export { lastRecordLine, lastRecordsOf, parseTraceText, parseTraceBytes, readTraceFile, readTraceFileLines, readTraceFileMatching, readTraceFileTail, readTraceFileWithExtent, traceFileIndex, traceFilesIn, listTracedSessionsIn } from "./reader.js";
export type { CompleteExtent, SkippedLine, TraceContent, TraceFileRef, SessionTraceSummary } from "./reader.js";
export { TraceRecordIndexes } from "./record-index.js";
export { cutLongStrings, recordCutOf, placeCutRecord, DEFAULT_LINE_CUT } from "./cut-line.js";
export type { LineCutOptions, RecordCut } from "./cut-line.js";
export type { RecordIndexOptions, RecordPage } from "./record-index.js";
export { foldForResume, readForResume, readResumeSnapshot, writeResumeSnapshot, resumeSnapshotFile, RESUME_SNAPSHOT_FORMAT, RESUME_SNAPSHOT_MIN_LINES, RESUME_SNAPSHOT_REFRESH_LINES } from "./resume-snapshot.js";
export type { ResumeSnapshot, ResumeFold, ResumeFoldOptions, ResumeRead, ResumeReadOptions } from "./resume-snapshot.js";
export { FileLines } from "./file-lines.js";
export type { ReadFileLines, SnapshotThresholds } from "./file-lines.js";
export { sessionSettingsOfFiles, SETTINGS_RECORD_TYPES } from "./session-settings.js";
export { upcastLine, legacyThinkingLevel } from "./upcast.js";
export * from "./context-notes/turn-notes.js";
export * from "./context-notes/summary.js";
export * from "./context-notes/activity-digest.js";
export * from "./context-notes/compaction-rules.js";
export { acquireLease, describeLeaseHolder, liveLeaseHolder, readLease, releaseHeldLeases, LeaseHeldError, SessionLease } from "./lease.js";
export type { LeaseHolder, LeaseRead, LeaseRefusal } from "./lease.js";
