/**
 * Resume: a session rebuilt from its trace. Two steps, split so that everything resume writes
 * goes through the session's live fold like any other record:
 *
 * - `seed`: fold the records of the file the session continues (`replayTrace`: `evolve`, the
 *   one reducer) and close the request window a crash left open (its input and a
 *   `[turn_aborted]` note become pending input). The result seeds the session's `LiveFold`
 *   (whose history is the context the next request continues: the model adapter keeps
 *   none) and gives the id allocator the ids already used. The seed
 *   holds the carry-over as resume hands it over (the open calls' outputs, a placeholder for
 *   each one the crash cut short, then the pending input) as pending input: what the next
 *   request sends first, fixed at resume (the calls' processes are gone, so no output of
 *   theirs can arrive any more).
 * - `close`: once the fold follows the session's trace, record what the crash left dangling,
 *   as the resume decider (deciders/resume.ts) decides it from the fold: a compaction without
 *   its end is recorded as failed (the old context is kept), steering the crashed run never
 *   delivered is dropped (as a run that ends drops it). A context closed by a completed
 *   compaction then continues in a new file.
 *
 * The settings (approval mode, thinking level) are the session's, not the file's: a rotated
 * file does not repeat them, so the caller passes what the whole trace records, and the level
 * the session runs with when the trace never recorded one (older traces).
 */
import type { OmniMessage, SessionMetaPayload } from "@penguin/omnimessage";
import { Sequence, type SessionSettings, type SessionState } from "@penguin/trace";
import { Context, Effect, Layer } from "effect";
import { replayTrace } from "../trace/replay.js";
import { CRASHED_DURING_COMPACTION, decideResume } from "../deciders/resume.js";
import type { LiveFold } from "./session-fold.js";

export interface ResumeSeed {
  /** What the session's live fold starts from. */
  readonly state: SessionState;
  readonly meta: SessionMetaPayload | undefined;
  /** Every tool_call id the file mentions, for the session's id allocator. */
  readonly toolCallIds: readonly string[];
}

export interface ResumeOptions {
  /** The session's settings, replacing the file's (see the module comment). */
  settings?: SessionSettings;
  /**
   * The fold of `messages` when the caller already has it (`readForResume`, which starts from
   * the file's resume snapshot, and then leaves out of `messages` the lines the snapshot
   * stands for); without it, `seed` folds `messages` itself.
   */
  folded?: SessionState;
}

export interface ResumeShape {
  seed(messages: readonly OmniMessage[], options?: ResumeOptions): Effect.Effect<ResumeSeed>;
  /** Record, through `fold`, what the seed left dangling. */
  close(fold: LiveFold): Effect.Effect<void>;
}

export class Resume extends Context.Tag("penguin/engine/Resume")<Resume, ResumeShape>() {}

export { CRASHED_DURING_COMPACTION };

export function makeResume(): ResumeShape {
  return {
    seed: Effect.fn("Resume.seed")(function* (messages: readonly OmniMessage[], options: ResumeOptions = {}) {
      const replayed = replayTrace(messages, options.folded);
      const state: SessionState = {
        ...replayed.state,
        lastCalls: [],
        outputs: new Map(),
        pending: Sequence.from(replayed.carryOver),
        ...(options.settings === undefined ? {} : { settings: options.settings }),
      };
      return {
        state,
        meta: replayed.meta,
        toolCallIds: replayed.toolCallIds,
      };
    }),
    close: Effect.fn("Resume.close")(function* (fold: LiveFold) {
      for (const m of decideResume(fold.state, { type: "close_dangling", at: new Date().toISOString() })) fold.record(m);
      if (fold.state.contextClosed) fold.sink.rotate();
    }),
  };
}

export const ResumeLive: Layer.Layer<Resume> = Layer.sync(Resume, makeResume);
