/**
 * Subagents: the live children of one parent session, as an Effect service whose children are
 * resources in a Scope.
 *
 * - Acquiring a child (`start`) spawns it through the SubagentRunner and registers it in a
 *   Scope of its own, forked from the service's Scope; that Scope's finalizer releases the
 *   child: its running task is aborted, then its session is disposed, which reaps every
 *   process the child started. Stopping a child (`stop`, kill_subagent), releasing an idle
 *   one to make room, and closing the service's Scope all go through that one finalizer, so
 *   there is no other path by which a child can be left running. The SDK's Environment owns
 *   the service's Scope and closes it on dispose: the parent session's dispose and the
 *   server's shutdown (which disposes every session) release every live child, in parallel.
 * - Ids are the child session ids: the same string is the `subagent_id` the model types back,
 *   the `origin` hop on forwarded messages and the `subagent` pointer in the trace.
 * - At most `maxLive` children are alive. A start beyond that releases the least recently
 *   used idle child (its trace stays); when every child is running it is refused.
 * - `input` gives an idle child its next task, or steers the running one; `wait` waits for the
 *   running task's end at most a window, on the Clock; interrupting it is the waiting call's
 *   abort (the tool decides what that does to the child, subagents/outcome.ts).
 * - A child started with `run_in_background` queues a notice each time a task ends, unless the
 *   task was killed or a tool output already showed the parent's model how it ended;
 *   `drainNotices` hands the texts over once; the engine delivers them at a turn boundary.
 * - Refusals are values (`SubagentRefused`) with a message the model can act on: a runner
 *   that rejects is a refused start.
 *
 * The subagent tools are promise code (tools' I/O is an edge); they run these effects with
 * `runAtToolEdge`, which bridges the call's AbortSignal to the fiber's interruption.
 */
import { Context, Data, Duration, Effect, ExecutionStrategy, Exit, Layer, Scope } from "effect";
import type { ApproveFn, SubagentRunner, SubagentSpawnOptions } from "../interfaces.js";
import { Child, type WaitOutcome } from "./child.js";
import { MAX_LIVE_SUBAGENTS } from "./limits.js";
import { subagentNotice } from "./notice.js";
import type { TaskReport } from "./task-report.js";
import type { SubagentInfo } from "./subagent-info.js";

export type { SubagentInfo } from "./subagent-info.js";

/** Why a subagent operation did not happen, worded for the parent's model. */
export class SubagentRefused extends Data.TaggedError("SubagentRefused")<{ readonly message: string }> {}

export interface SubagentsShape {
  readonly maxLive: number;
  /** Acquire a child: spawned, registered, released when stopped or when the service's Scope closes. */
  start(options: SubagentSpawnOptions): Effect.Effect<Child, SubagentRefused>;
  /** A live child by id (marked as just used), or why there is none. */
  find(id: string): Effect.Effect<Child, SubagentRefused>;
  /** Remember what a child's task is for (listing). */
  label(child: Child, label: string): Effect.Effect<void>;
  /** Give an idle child a task (`label` says what for), or steer the task it is running. */
  input(child: Child, prompt: string, approve: ApproveFn | undefined, label: string): Effect.Effect<void, SubagentRefused>;
  /** Wait for the running task to end, at most `window` (on the Clock). Interruptible. */
  wait(child: Child, window: Duration.DurationInput): Effect.Effect<"ended" | "window">;
  /** Stop a child for good (no notice follows) and forget it; returns once it is released. */
  stop(child: Child): Effect.Effect<void>;
  /** The live children, for hosts. */
  readonly list: Effect.Effect<SubagentInfo[]>;
  /** Notices of ended background tasks the parent's model has not seen end; once each. */
  readonly drainNotices: Effect.Effect<string[]>;
}

export class Subagents extends Context.Tag("penguin/subagents/Subagents")<Subagents, SubagentsShape>() {}

export interface SubagentsOptions {
  runner: SubagentRunner;
  maxLive?: number;
}

interface LiveChild {
  child: Child;
  scope: Scope.CloseableScope;
}

/** The service in the current Scope: closing it releases every live child. */
export const makeSubagents = (options: SubagentsOptions): Effect.Effect<SubagentsShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    const maxLive = options.maxLive ?? MAX_LIVE_SUBAGENTS;
    const runner = options.runner;
    // Children are released in parallel when the service's Scope closes.
    const childrenScope = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.parallel);
    let closed = false;
    // Added after the children's Scope, so it runs first: no start succeeds once closing began.
    yield* Effect.addFinalizer(() => Effect.sync(() => (closed = true)));
    const live = new Map<string, LiveChild>();
    /** Why an id is no longer live, for errors the model can act on. */
    const gone = new Map<string, string>();
    const labels = new Map<string, string>();
    let notices: { child: Child; report: TaskReport }[] = [];
    let pending = 0;
    let clock = 0;

    const shuttingDown = new SubagentRefused({ message: "The session is shutting down; no new subagents start." });
    const touch = (child: Child) => {
      child.lastUsed = ++clock;
    };
    const release = (entry: LiveChild, why: string) =>
      Effect.suspend(() => {
        gone.set(entry.child.id, why);
        live.delete(entry.child.id);
        return Scope.close(entry.scope, Exit.void);
      });
    const taskEnded = (child: Child, report: TaskReport) => {
      if (child.notify && report.status !== "killed") notices.push({ child, report });
    };

    const start = (spawn: SubagentSpawnOptions): Effect.Effect<Child, SubagentRefused> =>
      Effect.gen(function* () {
        if (closed) return yield* shuttingDown;
        if (live.size + pending >= maxLive) {
          const idle = [...live.values()].filter((e) => !e.child.running).sort((a, b) => a.child.lastUsed - b.child.lastUsed)[0];
          if (idle === undefined) {
            const running = [...live.keys()].join(", ");
            return yield* new SubagentRefused({
              message: `Too many subagents: the limit is ${maxLive} per session and all of them are running (${running}). Wait for one with input_subagent or stop one with kill_subagent first.`,
            });
          }
          yield* release(idle, `it was released to make room for a new subagent (limit ${maxLive} per session)`);
        }
        pending += 1;
        const handle = yield* Effect.tryPromise({
          try: () => runner.spawn(spawn),
          catch: (err) => new SubagentRefused({ message: `The subagent could not start: ${err instanceof Error ? err.message : String(err)}` }),
        }).pipe(Effect.ensuring(Effect.sync(() => (pending -= 1))));
        const child = new Child(handle, { onTaskEnd: taskEnded });
        if (closed) {
          yield* Effect.promise(() => child.kill());
          return yield* shuttingDown;
        }
        const scope = yield* Scope.fork(childrenScope, ExecutionStrategy.sequential);
        yield* Scope.addFinalizer(scope, Effect.promise(() => child.kill()));
        touch(child);
        live.set(child.id, { child, scope });
        return child;
      }).pipe(Effect.uninterruptible);

    const unknown = (id: string): SubagentRefused => {
      const why = gone.get(id);
      if (why !== undefined) return new SubagentRefused({ message: `Subagent ${id} is no longer available: ${why}. Start a new one with run_subagent.` });
      const known = [...live.keys()];
      return new SubagentRefused({
        message: `Unknown subagent_id ${id}.${known.length > 0 ? ` Live subagents: ${known.join(", ")}.` : " No subagents are alive."}`,
      });
    };

    const shape: SubagentsShape = {
      maxLive,
      start,
      find: (id) =>
        Effect.suspend(() => {
          const entry = live.get(id);
          if (entry === undefined) return Effect.fail(unknown(id));
          touch(entry.child);
          return Effect.succeed(entry.child);
        }),
      label: (child, label) => Effect.sync(() => void labels.set(child.id, label)),
      input: (child, prompt, approve, label) =>
        Effect.suspend(() => {
          if (child.running) {
            if (child.steer(prompt)) return Effect.void;
            return Effect.fail(
              new SubagentRefused({
                message: `Subagent ${child.id} is running a task and cannot take steering now. Wait for it with an empty prompt, or stop it with kill_subagent.`,
              }),
            );
          }
          labels.set(child.id, label);
          const started = child.start(prompt, approve, label);
          return started.ok ? Effect.void : Effect.fail(new SubagentRefused({ message: started.error }));
        }),
      wait: (child, window) =>
        Effect.suspend(() => {
          const ended = child.taskEnded;
          if (ended === undefined) return Effect.succeed("ended" as const);
          return Effect.raceFirst(
            Effect.as(Effect.promise(() => ended), "ended" as const),
            Effect.as(Effect.sleep(window), "window" as const),
          );
        }),
      stop: (child) =>
        Effect.suspend(() => {
          const entry = live.get(child.id);
          if (entry !== undefined) return release(entry, "it was killed");
          gone.set(child.id, "it was killed");
          return Effect.promise(() => child.kill());
        }).pipe(Effect.uninterruptible),
      list: Effect.sync(() =>
        [...live.values()].map(({ child: c }) => ({
          id: c.id,
          provider: c.handle.provider,
          modelId: c.handle.modelId,
          status: c.running ? ("running" as const) : ("idle" as const),
          label: labels.get(c.id),
          started: c.startedAt.toISOString(),
          ...c.totals(),
        })),
      ),
      drainNotices: Effect.sync(() => {
        const ready = notices.filter((n) => !n.report.reported && !n.child.killed);
        notices = [];
        return ready.map((n) => {
          n.report.reported = true;
          return subagentNotice(n.child.id, n.report);
        });
      }),
    };
    // Closing the service's Scope releases every live child (the children's Scope closes):
    // they are forgotten with the reason the model would be told.
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        for (const id of live.keys()) gone.set(id, "the session was closed");
        live.clear();
      }),
    );
    return shape;
  });

/** The Subagents service of one parent session; its Scope is the Layer's. */
export const SubagentsLive = (options: SubagentsOptions): Layer.Layer<Subagents> => Layer.scoped(Subagents, makeSubagents(options));

/**
 * Run a subagent effect from a tool (promise code): the call's abort interrupts it. A wait
 * that was interrupted answers `aborted`.
 */
export function waitAtToolEdge(subagents: SubagentsShape, child: Child, windowMs: number, signal: AbortSignal | undefined): Promise<WaitOutcome> {
  if (signal?.aborted === true) return Promise.resolve("aborted");
  return Effect.runPromiseExit(subagents.wait(child, Duration.millis(windowMs)), signal === undefined ? undefined : { signal }).then((exit) =>
    Exit.isSuccess(exit) ? exit.value : "aborted",
  );
}

/** Run a subagent effect from a tool: its value, or the refusal's message. */
export function runAtToolEdge<A>(effect: Effect.Effect<A, SubagentRefused>): Promise<{ ok: true; value: A } | { ok: false; error: string }> {
  return Effect.runPromise(
    effect.pipe(
      Effect.map((value) => ({ ok: true as const, value })),
      Effect.catchAll((refused) => Effect.succeed({ ok: false as const, error: refused.message })),
    ),
  );
}
