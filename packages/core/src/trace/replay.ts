/**
 * Resume's fold, as core uses it: `replayTrace` from @penguin/trace (the trace folded with
 * `evolve`, the one reducer, and what a crash left dangling closed). Kept as core's own module
 * so the resume path has one seam to observe in crash and fuzz tests.
 */
export { recordView, replayTrace, resumeView } from "@penguin/trace";
export type { ReplayResult } from "@penguin/trace";
