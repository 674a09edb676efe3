/**
 * The resume decider: given the folded state of a session whose process died, the events
 * that close what the crash left dangling, appended once the resumed session's fold follows
 * its trace.
 *
 * - A compaction without its end is recorded as failed (the old context is kept).
 * - Steering the crashed run never delivered is dropped, as a run that ends drops it; read
 *   after that end, since a manual compaction's end turns queued steering into input.
 *
 * (The request window a crash left open is closed in the seed itself, `closeDanglingWindow`
 * in @penguin/trace, since its input becomes the carry-over that seeds the fold. Whether the
 * trace continues in a new file follows from the fold, `contextClosed`, not from an event.)
 */
import { compactionEnd, type OmniMessage } from "@penguin/omnimessage";
import { evolve } from "@penguin/trace";
import type { Decider } from "./decider.js";
import { decideSteering } from "./steering.js";

export const CRASHED_DURING_COMPACTION = "the process exited during compaction";

export type ResumeCommand = { readonly type: "close_dangling"; readonly at: string };

export const decideResume: Decider<ResumeCommand> = (state, command) => {
  const at = command.at;
  const events: OmniMessage[] = [];
  let after = state;
  const span = state.compactionSpan;
  if (span !== undefined) {
    const end = compactionEnd({ reason: span.reason, mode: span.mode, status: "failed", error_message: CRASHED_DURING_COMPACTION }, { at });
    events.push(end);
    after = evolve(after, end);
  }
  events.push(...decideSteering(after, { type: "run_ended", at }));
  return events;
};

