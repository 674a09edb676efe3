// @penguin/projections-timeline: event positions, requests, tool calls, compactions and subagent pointers per session.
export { timelineProjection } from "./projection.js";
export type { TimelineTables, TimelineRequestRow, TimelineToolCallRow, TimelineCompactionRow, TimelineSubagentRow } from "./projection.js";
export { sessionEventCount, sessionEvents, BLOCK_LINES } from "./event-blocks.js";
export type { TimelineEventRow, TimelineEventBlockRow } from "./event-blocks.js";
export { sessionTimeline } from "./queries.js";
export type { SessionTimeline } from "./queries.js";
export { timelineSnapshots, SNAPSHOT_EVERY } from "./snapshots.js";
export type { SnapshotTables, TimelineSnapshotRow, TimelineStateChunkRow, TimelineFoldHeadRow } from "./snapshots.js";
export { sessionAnalysis, renderAnalysis } from "./analysis.js";
export type { RenderedAnalysis, RequestAnalysis, AnalysisState, TimelineAnalysisRow } from "./analysis.js";
