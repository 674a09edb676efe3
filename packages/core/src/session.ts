/**
 * Session: one conversation of an agent in one workspace, with its model fixed at creation.
 *
 * A thin stateful shell over the ContextEngine: it holds the parts the engine works with
 * (the LLM context, the Environment, the Trace writer) and exposes the Human boundary,
 * `session.run(messages, {approve, signal})`. Everything it does is recorded in the trace,
 * which is also the only thing `agent.resumeSession` needs to rebuild it.
 *
 * Created by `Agent.createSession` / `Agent.resumeSession` (agent.ts); not constructed by hosts.
 */
import type { ProjectInstructions } from "./state/project-instructions.js";
import { sessionArchived, sessionTitle, userText, type OmniMessage, type SessionMetaPayload, type TokenCounts } from "@penguin/omnimessage";
import type { ModelEndpoint, Pricing, ThinkingLevel } from "@penguin/models";
import { Effect, Exit, Layer, Scope, Stream } from "effect";
import type { Compactability, ContextEngine } from "./engine/context-engine.js";
import { clockFromSleep, type SleepFn } from "./engine/reconnect.js";
import { runGoal } from "./goal/goal-loop.js";
import { decideApproval } from "./deciders/approvals.js";
import { engineGoalSession, goalRequest, Goals, makeGoals, type GoalsShape } from "./goal/goals.js";
import type { ApproveFn, EnvironmentInterface, LLMInterface, ToolPermission } from "./interfaces.js";
import { isCommitPoint, type AppendListener, type FileLines, type SessionLease, type SessionState, type TracePosition, type TraceWriter } from "@penguin/trace";
import type { ProcessInfo } from "./environment/commands/process-table.js";
import { Environment } from "./environment/environment.js";
import type { SubagentInfo } from "./subagents/subagent-info.js";
import type { AgentPaths } from "./state/paths.js";
import { generateTitle } from "./session-title.js";
import type { SessionHooks } from "./hooks/session-hooks.js";
import { hookedCompaction, hookedGoal, hookedTask } from "./hooks/task-hooks.js";
import { markToolTurn } from "./engine/turn-timing.js";

export interface SessionRunOptions {
  /** Asked once per tool call; without it every call is denied. */
  approve?: ApproveFn;
  signal?: AbortSignal;
  /** This task's thinking level; defaults to the session's. */
  thinkingLevel?: ThinkingLevel;
  /**
   * Run the input as a goal: rounds until the agent marks it complete or blocked, the budget
   * (tokens, `500k`, `2m`; -1 or absent = unlimited) is spent, or the task is stopped. Ends
   * with a `goal_finished` event.
   */
  goal?: { budget?: number | string };
}

export interface SessionParts {
  /** The session's invariants, as its trace files record them. */
  meta: SessionMetaPayload;
  id: string;
  paths: AgentPaths;
  workspace: string;
  provider: string;
  modelId: string;
  systemPrompt: string;
  thinkingLevel: ThinkingLevel;
  scratchpadDir: string;
  /** The resolved model entry (its key is never exposed by the session). */
  endpoint: ModelEndpoint;
  engine: ContextEngine;
  llm: LLMInterface;
  env: EnvironmentInterface;
  writer: TraceWriter;
  /** Follows the writer's file, for its resume snapshot when the session ends. */
  fileLines?: FileLines | undefined;
  /** True when the session was rebuilt from its trace. */
  resumed: boolean;
  /** The approval mode last recorded in the trace (resume), if any. */
  approvalMode?: string | undefined;
  /** The reconnect wait the engine was given (the promise facade's goal rounds use it too). */
  sleep?: SleepFn | undefined;
  /** The session's lease (one writer per session): let go when the session is disposed. */
  lease?: SessionLease | undefined;
  /** Lifecycle hooks run around its tasks (hooks/task-hooks.ts); absent: none, or a replay. */
  hooks?: SessionHooks | undefined;
  /** Workspace checkpoints (their file watch is closed when the session is disposed). */
  checkpoints?: { close(): void } | undefined;
}

export class Session {
  /** The session's invariants (model, system prompt, workspace, source), as in its trace. */
  readonly meta: SessionMetaPayload;
  readonly id: string;
  readonly paths: AgentPaths;
  readonly workspace: string;
  readonly provider: string;
  readonly modelId: string;
  readonly systemPrompt: string;
  readonly scratchpadDir: string;
  readonly resumed: boolean;
  /**
   * The workspace's AGENTS.md/CLAUDE.md files this session's system prompt took in, and those it
   * skipped (set by createSession; a resumed session's prompt is the recorded one: none read).
   */
  projectInstructions: ProjectInstructions = { loaded: [], skipped: [] };
  /** Prices of the session's model, when known (cost is computed from usage × prices). */
  readonly pricing: Pricing | undefined;
  readonly clientType: ModelEndpoint["clientType"];
  thinkingLevel: ThinkingLevel;
  readonly #engine: ContextEngine;
  readonly #llm: LLMInterface;
  readonly #env: EnvironmentInterface;
  readonly #writer: TraceWriter;
  readonly #fileLines: FileLines | undefined;
  readonly #endpoint: ModelEndpoint;
  readonly #lease: SessionLease | undefined;
  #disposed = false;
  /**
   * What the session holds open: its Environment (child processes, MCP connections, live
   * subagents) and its running task. Closing it (dispose) aborts the task, waits for it to
   * record its end, then releases the Environment.
   */
  readonly #scope: Scope.CloseableScope;
  #recordedApprovalMode: string | undefined;
  /** Goal mode (goal/goals.ts) over this session's engine and trace. */
  readonly #goals: GoalsShape;
  readonly #sleep: SleepFn | undefined;
  readonly #hooks: SessionHooks | undefined;
  /** SessionStart hooks run before the first task this Session object runs. */
  #sessionStartDue = true;

  constructor(parts: SessionParts) {
    this.meta = parts.meta;
    this.id = parts.id;
    this.paths = parts.paths;
    this.workspace = parts.workspace;
    this.provider = parts.provider;
    this.modelId = parts.modelId;
    this.systemPrompt = parts.systemPrompt;
    this.scratchpadDir = parts.scratchpadDir;
    this.thinkingLevel = parts.thinkingLevel;
    this.resumed = parts.resumed;
    this.pricing = parts.endpoint.pricing;
    this.clientType = parts.endpoint.clientType;
    this.#engine = parts.engine;
    this.#llm = parts.llm;
    this.#env = parts.env;
    this.#writer = parts.writer;
    this.#fileLines = parts.fileLines;
    this.#endpoint = parts.endpoint;
    this.#recordedApprovalMode = parts.approvalMode;
    this.#sleep = parts.sleep;
    this.#lease = parts.lease;
    this.#hooks = parts.hooks;
    this.#goals = makeGoals(engineGoalSession({ scratchpadDir: parts.scratchpadDir, engine: parts.engine, trace: parts.writer, usage: () => this.usage }));
    const env = parts.env;
    const engine = parts.engine;
    this.#scope = Effect.runSync(Scope.make());
    // Finalizers run last-added first: the task ends before its Environment goes.
    Effect.runSync(Scope.addFinalizer(this.#scope, Effect.promise(async () => env.dispose?.())));
    // After the task ended (its last checkpoint is taken): the workspace's file watch closes.
    const checkpoints = parts.checkpoints;
    if (checkpoints !== undefined) Effect.runSync(Scope.addFinalizer(this.#scope, Effect.sync(() => checkpoints.close())));
    Effect.runSync(Scope.addFinalizer(this.#scope, engine.abortRunning));
  }

  /** The approval mode recorded for this session (its baseline or last change), if any. */
  get recordedApprovalMode(): string | undefined {
    return this.#recordedApprovalMode;
  }

  /**
   * The approval mode the host runs this session with (the mode itself is the host's: core
   * only sees its ApproveFn). Recorded as `settings_changed` when it differs from what the
   * trace last recorded (so the first mode of a session is recorded once, and a resumed
   * session run with another mode records the change); the same mode again records nothing.
   */
  setApprovalMode(mode: string): void {
    // The given is the mode last recorded: a new session's opening settings are written (and
    // folded) only with its first line, so the fold may not hold them yet.
    const given = { pendingApprovals: [], settings: { approvalMode: this.#recordedApprovalMode } };
    const events = decideApproval(given, { type: "set_mode", mode, at: new Date().toISOString() });
    if (events.length === 0) return;
    this.#recordedApprovalMode = mode;
    for (const m of events) this.#writer.append(m);
  }

  /** Record a fact the host decided about this session (its title, its archive flag…). */
  recordFact(fact: OmniMessage<"event_msg">): void {
    this.#writer.append(fact);
  }

  /** Record the title the host chose for this session. */
  recordTitle(title: string): void {
    this.#writer.append(sessionTitle(title));
  }

  /** Record that the host archived (or unarchived) this session. */
  recordArchived(archived: boolean): void {
    this.#writer.append(sessionArchived(archived));
  }

  /**
   * A short title for the conversation (≤ 30 chars), from an out-of-band model call that is
   * neither in the context nor in the trace. Undefined when there is nothing to name yet or
   * the call failed.
   */
  generateTitle(signal?: AbortSignal): Promise<string | undefined> {
    return generateTitle(this.#endpoint, this.history(), signal);
  }

  /**
   * Run one task. `messages` are the Human's new messages (a string is a user text). The
   * generator yields every message of the task (partials, complete messages, events) and
   * ends after the last; an interrupted task ends with an `abort` event.
   */
  run(messages: OmniMessage[] | string, options: SessionRunOptions = {}): AsyncGenerator<OmniMessage, void> {
    if (this.#disposed) throw new Error(`session ${this.id} is disposed; resume it with agent.resumeSession to continue`);
    const runOptions = { approve: options.approve, signal: options.signal, thinkingLevel: options.thinkingLevel ?? this.thinkingLevel };
    const input = typeof messages === "string" ? [userText(messages)] : messages;
    const hooks = this.#hooks;
    if (options.goal === undefined && hooks !== undefined) {
      const sessionStart = this.#sessionStartDue ? (this.resumed ? "resume" : "startup") : undefined;
      this.#sessionStartDue = false;
      return this.#afterDurable(
        hookedTask({
          hooks,
          input,
          ...(sessionStart === undefined ? {} : { sessionStart }),
          record: (m) => this.#writer.append(m),
          runEngine: (next) => this.#engine.run(next, runOptions),
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        }),
      );
    }
    if (options.goal === undefined) return this.#afterDurable(this.#engine.run(input, runOptions));
    const request = goalRequest(messages, options.goal.budget, { approve: options.approve, thinkingLevel: runOptions.thinkingLevel });
    const clock = this.#sleep === undefined ? undefined : clockFromSleep(this.#sleep);
    // The hooks' context goes with round 1's input; the objective stays the Human's words.
    const goal = (extraInput: OmniMessage[]) => {
      const withExtra = extraInput.length === 0 ? request : { ...request, input: [...request.input, ...extraInput] };
      return runGoal((deliver) => this.#goals.run(withExtra, deliver), { signal: options.signal, clock });
    };
    if (hooks === undefined) return this.#afterDurable(goal([]));
    const sessionStart = this.#sessionStartDue ? (this.resumed ? "resume" : "startup") : undefined;
    this.#sessionStartDue = false;
    return this.#afterDurable(
      hookedGoal({
        hooks,
        input,
        ...(sessionStart === undefined ? {} : { sessionStart }),
        record: (m) => this.#writer.append(m),
        runGoal: goal,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      }),
    );
  }

  /**
   * The trace syncs commit points off the event loop (writer.ts), so the engine may go on
   * before one is durable. The host must not: a commit point it is handed (a `request_end`, a
   * tool output, a compaction event) is on disk, and its listeners have had it, by then; and
   * the task ends only once everything it recorded is published. Then the file's resume
   * snapshot is refreshed if the task took it far enough past the last one.
   */
  async *#afterDurable(messages: AsyncGenerator<OmniMessage, void>): AsyncGenerator<OmniMessage, void> {
    markToolTurn("task-start");
    for await (const m of messages) {
      if (isCommitPoint(m) && m.origin === undefined) {
        await this.#writer.published();
        this.#afterCommit();
      }
      yield m;
    }
    await this.#writer.published();
    this.#checkpoint();
    markToolTurn("task-end");
  }

  /** A commit point is durable: after a resume, the first one writes the snapshot the resume read left due (file-lines.ts). */
  #afterCommit(): void {
    if (this.#disposed) return;
    try {
      this.#fileLines?.afterCommit(this.#engine.fold.state);
    } catch {
      // not written
    }
  }

  /**
   * A task has ended: a session that is killed from here on resumes from this point, not from
   * the file's start (file-lines.ts). A cache: one that cannot be written is simply not there.
   */
  #checkpoint(): void {
    if (this.#disposed) return;
    try {
      this.#fileLines?.checkpoint(this.#engine.fold.state);
    } catch {
      // not written
    }
  }

  /**
   * The task as an Effect Stream for Effect hosts, run in the caller's context (its Clock
   * drives the reconnect waits; a TestClock in tests). Interrupting the stream aborts the task.
   */
  runStream(messages: OmniMessage[] | string, options: Omit<SessionRunOptions, "signal" | "goal"> = {}): Stream.Stream<OmniMessage> {
    if (this.#disposed) throw new Error(`session ${this.id} is disposed; resume it with agent.resumeSession to continue`);
    const input = typeof messages === "string" ? [userText(messages)] : messages;
    const published = Effect.promise(() => this.#writer.published());
    return this.#engine.stream(input, { approve: options.approve, thinkingLevel: options.thinkingLevel ?? this.thinkingLevel }).pipe(
      // As in `run`: a commit point reaches the host once it is durable, and the task ends once all is published.
      Stream.tap((m) => (isCommitPoint(m) && m.origin === undefined ? Effect.andThen(published, Effect.sync(() => this.#afterCommit())) : Effect.void)),
      Stream.concat(Stream.drain(Stream.fromEffect(Effect.andThen(published, Effect.sync(() => this.#checkpoint()))))),
    );
  }

  /** Goal mode as an Effect service (`Goals`) over this session, for Effect hosts. */
  get goalsLayer(): Layer.Layer<Goals> {
    return Layer.succeed(Goals, this.#goals);
  }

  /**
   * Compact the context now (the `manual` trigger). Yields compaction_begin, the summary as it
   * streams, token_usage and compaction_end. Throws before starting when there is nothing to
   * compact (see `compactability()`).
   */
  compact(options: { signal?: AbortSignal } = {}): AsyncGenerator<OmniMessage, void> {
    if (this.#disposed) throw new Error(`session ${this.id} is disposed; resume it with agent.resumeSession to continue`);
    const hooks = this.#hooks;
    if (hooks !== undefined) {
      // Made now: what cannot be compacted throws here, before any hook runs, as without hooks.
      const compaction = this.#engine.compact(options);
      return this.#afterDurable(
        hookedCompaction({ hooks, record: (m) => this.#writer.append(m), compact: () => compaction, ...(options.signal === undefined ? {} : { signal: options.signal }) }),
      );
    }
    return this.#afterDurable(this.#engine.compact(options));
  }

  /** `ok`, `empty` (nothing to compact) or `just_compacted`. */
  compactability(): Compactability {
    return this.#engine.compactability();
  }

  /** Steer the running task; false when no task is running. */
  steer(text: string): boolean {
    return this.#engine.steer(text);
  }

  /** Steer with an id for `recallSteering`; undefined when no task is running. */
  queueSteering(text: string): string | undefined {
    return this.#engine.queueSteering(text);
  }

  /** Take back steering not yet delivered; its text, or undefined. */
  recallSteering(id: string): string | undefined {
    return this.#engine.recallSteering(id);
  }

  pendingSteering(): { id: string; text: string }[] {
    return this.#engine.pendingSteering();
  }

  /** End a reconnect wait now ("Retry now"); false when not waiting. */
  skipReconnectWait(): boolean {
    return this.#engine.skipReconnectWait();
  }

  get running(): boolean {
    return this.#engine.running;
  }

  /** Token counts summed over the session. */
  get usage(): TokenCounts {
    return { ...this.#engine.state.sessionUsage };
  }

  /** Usage of the last completed request, if any. */
  get lastRequestUsage(): TokenCounts | undefined {
    return this.#engine.state.lastRequest;
  }

  get contextWindow(): number | "unknown" {
    return this.#llm.contextWindow;
  }

  /** The session's state, as the live fold of its trace holds it after the last record. */
  get state(): SessionState {
    return this.#engine.fold.state;
  }

  /** Committed requests in the current model context. */
  get turns(): number {
    return this.#engine.state.turns;
  }

  /**
   * Listen to the trace: every record once it is written (and synced when it is a commit
   * point), with its position. A host streaming the session uses it to send each record with
   * the position a reader of the file finds it at. Returns the unsubscribe function.
   */
  onTraceAppend(listener: AppendListener): () => void {
    return this.#writer.onAppend(listener);
  }

  /**
   * Listen to the trace's durable position: after each sync, the position of the last record it
   * made durable (while anyone listens, every record is synced in the background, not only
   * commit points). A cluster node announces it, so other nodes never read a line a crash could
   * take back. Returns the unsubscribe function.
   */
  onTraceDurable(listener: (through: TracePosition) => void): () => void {
    return this.#writer.onDurable(listener);
  }

  /** The trace file being written. */
  get tracePath(): string {
    return this.#writer.file;
  }

  /**
   * The history the model will see on the next request (committed messages): the session
   * fold's context, the one copy there is (the model adapter keeps none). A new array each call.
   */
  history(): readonly OmniMessage[] {
    return this.#engine.fold.state.history.mapToArray((m) => m);
  }

  /** Input waiting for the next request (tool outputs, interrupted turns). */
  carryOver(): readonly OmniMessage[] {
    return this.#engine.state.carryOver;
  }

  /** The session's child sessions (subagents), live and finished. */
  subagents(): SubagentInfo[] {
    return this.#env.listSubagents?.() ?? [];
  }

  /** Background commands started by this session's tools. */
  processes(): ProcessInfo[] {
    return this.#env.listProcesses?.() ?? [];
  }

  /** Stops a background command (see Environment.killProcess); `missing` without a process table. */
  killProcess(id: string): Promise<"killed" | "exited" | "missing"> {
    return this.#env instanceof Environment ? this.#env.killProcess(id) : Promise.resolve("missing");
  }

  /** Forgets a finished background command; `running` refuses. */
  removeProcess(id: string): "removed" | "running" | "missing" {
    return this.#env instanceof Environment ? this.#env.removeProcess(id) : "missing";
  }

  /** The tail of a background command's output, if the session has one by that id. */
  processOutputTail(id: string): string | undefined {
    return this.#env instanceof Environment ? this.#env.processOutputTail(id) : undefined;
  }

  toolPermission(name: string): ToolPermission {
    return this.#env.toolPermission(name);
  }

  /** Write the trace header now (see CreateSessionOptions.persist); resolves once it is durable. */
  persist(): Promise<void> {
    this.#writer.start();
    return this.#writer.flush();
  }

  /**
   * Abort the running task (if any), stop every process the session started, close its MCP
   * connections and subagents, close the trace, and let the session's lease go (once the last
   * line is written: another process may run it from then on). Idempotent.
   */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    try {
      await Effect.runPromise(Scope.close(this.#scope, Exit.void));
      this.#writer.close();
      // The next resume of a long session then folds nothing it has already seen. A cache: a
      // snapshot that cannot be written is simply not there (resume folds the file instead).
      try {
        this.#fileLines?.writeSnapshot(this.#engine.fold.state);
      } catch {
        // not written
      }
    } finally {
      this.#lease?.release();
    }
  }
}
