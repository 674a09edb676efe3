/**
 * The live fold: the session's `SessionState`, advanced with `evolve` (@penguin/trace) on every
 * record its trace gets, and held in this one place. The engine, the Steering service and the
 * compaction read the session's state from here; none keeps a copy of its own, so what a
 * running session knows is, by construction, what `stateAt` folds from the trace on disk.
 *
 * Shaped as a small synchronous class (behind the `SessionFold` tag) rather than a `Ref`: the
 * engine records a message and reads the state in the same step, many times per turn, and a
 * fold step is one `evolve` call (O(1) per record, the growing lists shared structurally),
 * which a Ref or a PubSub would only add allocations to.
 *
 * Which records are folded, exactly as the trace holds them:
 * - a sink that reports its writes (`onWrite`, the TraceWriter; or `onAppend`) is followed:
 *   every line it writes is folded the moment it is written, before its sync, its file headers (`session_meta`, `tool_list_ready`)
 *   and the facts the host records straight to the writer (title, approval mode, goal) too;
 * - any other sink (a benchmark's, a test's) is wrapped: what the engine appends is folded
 *   after the sink took it, filtered as the writer filters (no partials, nothing forwarded
 *   from a child, no `session_meta`).
 */
import { isTraceable, type OmniMessage } from "@penguin/omnimessage";
import { evolve, initialSessionState, type SessionState } from "@penguin/trace";
import { Context, Layer } from "effect";
import type { TraceSink } from "./trace-sink.js";

export class LiveFold {
  #state: SessionState;
  readonly #followed: TraceSink;
  /** Where the session's records go: `append` traces a record and folds it. */
  readonly sink: TraceSink;

  /** Follow `trace` from `seed` (an empty session, or the state resume folded from the trace). */
  constructor(trace: TraceSink, seed: SessionState = initialSessionState) {
    this.#state = seed;
    this.#followed = trace;
    // Written, not published: a commit point is published only once its sync returns, and
    // the engine reads the state it has just recorded (the next request's trigger, the turn count).
    const follow = trace.onWrite?.bind(trace) ?? trace.onAppend?.bind(trace);
    if (follow !== undefined) {
      follow((m) => {
        this.#state = evolve(this.#state, m);
      });
      this.sink = trace;
    } else {
      this.sink = {
        append: (m) => {
          trace.append(m);
          if (m.type !== "session_meta" && isTraceable(m)) this.#state = evolve(this.#state, m);
        },
        setTools: (tools) => trace.setTools(tools),
        rotate: () => trace.rotate(),
      };
    }
  }

  /** The session's state after the last record. Immutable: a later record makes a new one. */
  get state(): SessionState {
    return this.#state;
  }

  /** Record one message: traced, then folded. */
  record(m: OmniMessage): void {
    this.sink.append(m);
  }

  /** True when this fold follows `trace` (the engine checks that its sink is the fold's). */
  follows(trace: TraceSink): boolean {
    return trace === this.#followed || trace === this.sink;
  }
}

/** The session's live fold, for Effect hosts and the services that read the session's state. */
export class SessionFold extends Context.Tag("penguin/engine/SessionFold")<SessionFold, LiveFold>() {}

/** A fold following `trace` from `seed` (default: an empty session). */
export const SessionFoldLive = (trace: TraceSink, seed?: SessionState): Layer.Layer<SessionFold> => Layer.sync(SessionFold, () => new LiveFold(trace, seed));
