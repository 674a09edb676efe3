/**
 * TaskRunner: drives one run of a session (a task, or a manual compaction) through core
 * and renders it as events. Engine logic stays in core: this only calls `session.run` /
 * `session.compact` and publishes what they yield.
 *
 * For each run:
 * - the hub's state becomes `running` (or `compacting`), announced as `task_state` on the
 *   session stream and `session_state` on the users' feeds;
 * - the stream carries the trace records as they become durable (the Human's input too: core
 *   records it without yielding it) and what the run yields besides them (partials, subagent
 *   messages); SessionHub.publishYielded keeps the two in order. The LiveLog keeps the
 *   partials of the open segments for a reloading client (usage is not recorded here: it is
 *   a projection of the trace);
 * - approvals: the ApproveFn re-reads the session's approval mode from the database for
 *   every decision and hands "ask" cases to the hub's ApprovalRegistry;
 * - after the first completed request of an untitled session, a title is generated out of
 *   band (`session.generateTitle()`, never in the trace), falling back to the prompt;
 * - steering is marked delivered when its `[user_steering]` text streams by (the notes the
 *   engine no longer holds), and what is still pending when the run ends is dropped;
 * - a subagent's first message (its `session_meta`, with `origin`) indexes the child session
 *   (`onChildSession`), so `GET /api/sessions/<child>` resolves, and every child message is
 *   also handed to `mirrorChild`, which republishes it on the child's own stream.
 * When the run ends the state returns to `idle` and `onIdle` decides what runs next.
 */
import { APPROVAL_MODES, approveForMode, fallbackTitle, UNLIMITED, type ApproveFn, type Session } from "@penguin/core";
import { isEvent, isModel, startsWithMarker, type OmniMessage, type SessionMetaPayload } from "@penguin/omnimessage";
import type { ThinkingLevel } from "@penguin/models";
import type { Stores } from "../db/stores.js";
import type { GoalView } from "../services/session-trace-info.js";
import { LiveLog } from "./live-log.js";
import type { ActiveRun, SessionHub } from "./session-hub.js";
import type { UserEventHub } from "./user-events.js";

export type RunJob =
  | { kind: "task"; messages: OmniMessage[]; prompt: string; thinkingLevel: ThinkingLevel | undefined; goal?: { budget: number } | undefined }
  | { kind: "compact" };

export interface TaskRunnerDeps {
  stores: Stores;
  userEvents: UserEventHub;
  now: () => number;
  generateTitles: boolean;
  /** Aborted at shutdown: stops title generation. */
  lifetime: AbortSignal;
  /** A subagent of the session started (its `session_meta` streamed by). */
  onChildSession(parent: SessionHub, meta: SessionMetaPayload): void;
  /** A message from a subagent: republished on the child's own stream when someone follows it. */
  mirrorChild(m: OmniMessage): void;
  /** Called once the run has ended and the hub is idle again. */
  onIdle(hub: SessionHub): void;
  /** Errors that are bugs, not task outcomes. */
  report(error: unknown): void;
  /** Whether the session's trace records a title (`session_title`), read when a loaded fold lacks one. */
  hasRecordedTitle(hub: SessionHub): Promise<boolean>;
}

export class TaskRunner {
  readonly #deps: TaskRunnerDeps;

  constructor(deps: TaskRunnerDeps) {
    this.#deps = deps;
  }

  /** Starts a run on an idle hub whose core Session is loaded. Synchronous up to the first await. */
  start(hub: SessionHub, core: Session, job: RunJob): void {
    if (hub.busy) throw new Error(`session ${hub.sessionId} is busy: check hub.busy before starting a run`);
    const controller = new AbortController();
    const log = new LiveLog();
    hub.state = job.kind === "compact" ? "compacting" : "running";
    hub.lastActiveAt = this.#deps.now();
    const run: ActiveRun = { controller, log, done: Promise.resolve() };
    hub.run = run;
    this.#announce(hub);
    run.done = this.#drive(hub, core, job, controller.signal, log)
      .catch((error: unknown) => {
        this.#deps.report(error);
        hub.serverEvent({ type: "task_error", message: error instanceof Error ? error.message : String(error) });
      })
      .finally(() => this.#finish(hub));
  }

  async #drive(hub: SessionHub, core: Session, job: RunJob, signal: AbortSignal, log: LiveLog): Promise<void> {
    const titleRecorded =
      job.kind !== "task" || core.state.title !== undefined
        ? Promise.resolve(true)
        : this.#deps.hasRecordedTitle(hub).catch((error: unknown) => {
            this.#deps.report(error);
            return true;
          });
    const publish = (m: OmniMessage) => {
      hub.publishYielded(m);
      log.record(m);
      if (m.origin !== undefined && m.origin.length > 0) {
        if (m.type === "session_meta") this.#deps.onChildSession(hub, m.payload);
        this.#deps.mirrorChild(m);
        return;
      }
      if (job.kind === "task" && isEvent(m, "token_usage")) this.#maybeTitle(hub, core, job.prompt, titleRecorded);
      if (isModel(m, "text") && m.payload.role === "user" && startsWithMarker(m.payload.text, "user_steering") && hub.markDeliveredSteering(core.pendingSteering())) {
        hub.publishTaskState();
      }
    };
    if (job.kind === "compact") {
      for await (const m of core.compact({ signal })) publish(m);
      return;
    }
    const goal = job.goal === undefined ? undefined : this.#startGoal(hub, job.prompt, job.goal.budget);
    const run = core.run(job.messages, {
      approve: this.#approveFn(hub, core),
      signal,
      thinkingLevel: job.thinkingLevel ?? core.thinkingLevel,
      ...(job.goal === undefined ? {} : { goal: { budget: job.goal.budget } }),
    });
    for await (const m of run) {
      publish(m);
      if (goal === undefined) continue;
      const at = this.#deps.now();
      // Goal spending, as core counts it: Σ(request.total − cache_read), subagents included.
      if (isEvent(m, "token_usage")) {
        goal.used += Math.max(0, m.payload.request.total - m.payload.request.cache_read);
        goal.updatedAt = at;
      }
      if (m.origin !== undefined) continue;
      if (isModel(m, "text") && m.payload.sender === "harness" && startsWithMarker(m.payload.text, "goal")) {
        goal.rounds += 1;
        goal.updatedAt = at;
        hub.serverEvent({ type: "goal_round", round: goal.rounds, used: goal.used });
      }
      if (isEvent(m, "goal_finished")) {
        Object.assign(goal, { status: m.payload.outcome, used: m.payload.tokens_used, rounds: m.payload.rounds, updatedAt: at });
        hub.serverEvent({ type: "goal_finished", outcome: m.payload.outcome, rounds: m.payload.rounds, tokensUsed: goal.used });
      }
    }
  }

  /**
   * Announce a goal and count its progress on the hub; core records the goal's start and end in
   * the trace (`goal_started`, `goal_finished`), which the goal route reads once the hub is gone.
   */
  #startGoal(hub: SessionHub, objective: string, budget: number): GoalView {
    const now = this.#deps.now();
    const goal: GoalView = { objective, status: "active", budget: budget === UNLIMITED ? null : budget, used: 0, rounds: 0, createdAt: now, updatedAt: now };
    hub.goalProgress = goal;
    hub.serverEvent({ type: "goal_started", objective, budget: goal.budget });
    return goal;
  }

  /**
   * The approval mode is the one the session's trace records (its fold: the opening settings,
   * then every `settings_changed`, a PATCH's included), never a column of the server's own: a
   * session written by the SDK or the CLI with `deny-all` is run here with `deny-all`. A trace
   * that records no mode (written before modes were recorded) fails closed: every call asks.
   */
  #approveFn(hub: SessionHub, core: Session): ApproveFn {
    return async function approveByMode(toolCall, ctx) {
      const mode = APPROVAL_MODES.find((m) => m === core.recordedApprovalMode) ?? "always-ask";
      const decide = approveForMode(mode, {
        permissionOf: (name) => core.toolPermission(name),
        ask: (call, askCtx) => hub.approvals.ask(call, askCtx.signal),
      });
      return decide(toolCall, ctx);
    };
  }

  #finish(hub: SessionHub): void {
    const { now } = this.#deps;
    hub.flushHeld();
    hub.run = undefined;
    // Every partial of the run is in a record now: the ring drops them unless a client that left may come back for them.
    hub.channel.runEnded();
    hub.state = "idle";
    hub.dropPendingSteering();
    hub.lastActiveAt = now();
    this.#announce(hub);
    this.#deps.onIdle(hub);
  }

  #announce(hub: SessionHub): void {
    hub.publishTaskState();
    this.#deps.userEvents.toProject(hub.projectId, { type: "session_state", sessionId: hub.sessionId, state: hub.state });
  }

  /**
   * Titles a session whose trace records no title yet: `recorded` says whether it does (the
   * loaded fold, or the projection for a title recorded in a file before a compaction: asked
   * when the run starts, so it is known by the time the first answer is in). A title recorded
   * while the title model ran (a person's PATCH goes through the fold) wins.
   */
  #maybeTitle(hub: SessionHub, core: Session, prompt: string, recorded: Promise<boolean>): void {
    const { generateTitles, lifetime } = this.#deps;
    if (hub.titling || core.state.title !== undefined) return;
    hub.titling = true;
    const chooseAndRecord = async () => {
      if (await recorded) return;
      const title = generateTitles ? await core.generateTitle(lifetime).catch(() => undefined) : undefined;
      if (lifetime.aborted || core.state.title !== undefined) return;
      const chosen = title ?? fallbackTitle(prompt);
      if (chosen === "") return;
      core.recordTitle(chosen);
      hub.serverEvent({ type: "session_title", sessionId: hub.sessionId, title: chosen });
      this.#deps.userEvents.toProject(hub.projectId, { type: "session_title", sessionId: hub.sessionId, title: chosen });
    };
    void chooseAndRecord()
      .catch((error: unknown) => this.#deps.report(error))
      .finally(() => {
        hub.titling = false;
      });
  }
}
