// @penguin/projections-runner: the projection contract, checkpoints, catch-up, live following and offline rebuild.
export { eventKind, positionText, checkProjections } from "./contract.js";
export type { Projection, TraceEvent } from "./contract.js";
export { readTraceChunk } from "./trace-lines.js";
export { rowWriter } from "./row-writer.js";
export type { RowWriter, UpsertRule } from "./row-writer.js";
export type { TraceChunk, PositionedLine } from "./trace-lines.js";
export { listTraceFiles, traceDirectories } from "./trace-folders.js";
export type { TraceFile } from "./trace-folders.js";
export { isBusy, openProjectionDatabase } from "./database.js";
export { ProjectionStore } from "./store.js";
export type { CatchUpProgress, CatchUpResult, Checkpoint, ProjectionStatus, OpenStoreOptions } from "./store.js";
export { rebuildProjections } from "./rebuild.js";
export type { RebuildOptions, RebuildSummary } from "./rebuild.js";
export { LiveProjectionRunner } from "./live-runner.js";
export type { LiveRunnerOptions } from "./live-runner.js";
export { projectionsFile, PROJECTIONS_DB } from "./location.js";
export { projectionSpec, traceEvents } from "./spec.js";
export type { ProjectionSpec, EventSource } from "./spec.js";
