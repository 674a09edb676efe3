/**
 * `agent.replay(...)`: re-execute a recorded session through the real engine and say whether
 * it came out the same.
 *
 * The replay is a new session of the agent (`source: "replay"`, `replay_of` the original)
 * built from the recording's own invariants (model pair, context window, system prompt)
 * with two parts swapped: the model is a ReplayLLM answering from the recording, and with
 * `tools: "recorded"` the Environment answers tool calls from it too. Everything between
 * (the engine, approvals policy, compaction, the trace writer) is the code a live run uses.
 * The Human is re-enacted from the recording: each task's input is sent again (a goal as a
 * goal, with its budget), approvals get the recorded answers, steering is queued where it
 * was delivered, the host's settings are set where they were (the starting ones open the
 * trace; an approval-mode change once the replay has written every record before it; each
 * task runs at its recorded thinking level), and a user abort is triggered once the replay
 * has written every record that preceded it. With `tools: "recorded"` no tool edits a
 * goal's GOAL.yaml, so the replay writes, as each round starts, the file the harness read
 * after that round in the recording.
 *
 * With `tools: "rerun"` the tools run for real in a fresh workspace: a copy of
 * `workspaceDir` when given, else the recording folder's `workspace/` (shipped fixtures), else
 * the recorded workspace put back to the recording's first workspace checkpoint, else (a
 * recording from before checkpoints) as it is now with the files the recording shows as they were put
 * back (reconstruct.ts; what it cannot show may have changed since, and the verdict will
 * say where). Subagents run again as child replays of their own recordings, in spawn order,
 * and their traces are compared too. With `tools: "recorded"` the workspace is an empty
 * folder nothing touches.
 *
 * The verdict compares the new trace with the recording record by record (compare.ts) and
 * adds the first context mismatch the ReplayLLM saw; the earlier of the two is reported.
 */
import { existsSync, mkdirSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type OmniMessage, type SessionClient, type SessionMetaPayload } from "@penguin/omnimessage";
import type { ApprovalContext, ApprovalResult, SubagentHandle, SubagentRunner } from "../interfaces.js";
import { PenguinError } from "../errors.js";
import { copyDir } from "../state/copy-dir.js";
import { newSessionId, newTmpWorkspaceName } from "../state/ids.js";
import type { AgentPaths } from "../state/paths.js";
import { PackStore } from "@penguin/trace";
import { isCheckpoint, openCheckpoints } from "../trace/workspace-files.js";
import type { Session } from "../session.js";
import { sessionHandle } from "../subagents/session-handle.js";
import { compareRecords, Identities, type Verdict } from "./compare.js";
import { compareCheckpoints, eventsWithoutCheckpoints, isCheckpointMessage, withoutCheckpoints } from "./compare-files.js";
import { buildPlan, type RecordedTask, type ReplayPlan } from "./plan.js";
import { folderRootSession, loadRecording, type RecordedSession, type RecordingSource } from "./recording.js";
import { RecordedEnvironment } from "./recorded-environment.js";
import { ReplayLLM } from "./replay-llm.js";
import { RecordSequencer } from "./sequencer.js";
import { applyStartingFiles, startingFiles } from "./reconstruct.js";
import type { ReplayParts } from "../agent-options.js";
import { THINKING_LEVELS, type ThinkingLevel } from "@penguin/models";
import { goalFilePath } from "../goal/goal-file.js";

export type ReplayToolsMode = "rerun" | "recorded";

const isLevel = (value: string): value is ThinkingLevel => THINKING_LEVELS.some((l) => l === value);

export interface ReplayOptions {
  /** A session of this agent's data root… */
  sessionId?: string;
  /** …or a folder of recorded trace files (a `fixtures/traces/<name>/`). */
  folder?: string;
  /** Default `rerun`. */
  tools?: ReplayToolsMode;
  /** rerun: the workspace to copy before the tools run again. */
  workspaceDir?: string;
  /** Milliseconds between streamed pieces of text (a readable pace); default 0. */
  pace?: number;
  /** Every message of the replayed tasks, as `session.run` yields it (partials included). */
  onMessage?: (m: OmniMessage) => void;
  /** Called as each recorded task starts, with the input sent again. */
  onTask?: (task: RecordedTask, index: number, session: Session) => void;
  /** The program starting the replay, recorded in its session_meta (default `sdk`). */
  client?: SessionClient;
}

export interface ReplayReport {
  /** The replay's own session id. */
  sessionId: string;
  replayOf: string;
  tools: ReplayToolsMode;
  workspace: string;
  /** Where the workspace came from. */
  workspaceSource: "given" | "recording" | "checkpoint" | "reconstructed" | "recorded-workspace-now" | "empty";
  tracePath: string;
  verdict: Verdict;
  /** `identical` or `diverged at N: <what differs>`. */
  summary: string;
}

/** What the agent lends a replay: its paths and a way to build a session with swapped parts. */
export interface ReplayHost {
  paths: AgentPaths;
  buildReplaySession(meta: SessionMetaPayload, parts: ReplayParts, vision: boolean): Promise<Session>;
}

function recordedTools(recording: RecordedSession): string[] {
  for (const e of recording.events) {
    const m = e.message;
    if (m.type === "event_msg" && m.payload.type === "tool_list_ready") return m.payload.tools.map((t) => t.name);
  }
  return [];
}

async function prepareWorkspace(host: ReplayHost, recording: RecordedSession, options: ReplayOptions): Promise<{ path: string; source: ReplayReport["workspaceSource"] }> {
  const path = resolve(host.paths.workspacesDir, newTmpWorkspaceName());
  mkdirSync(path, { recursive: true });
  const tools = options.tools ?? "rerun";
  const copyFrom = async (dir: string) => {
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
      throw new PenguinError("workspace_not_found", `workspace ${dir} does not exist or is not a directory; give an existing folder to --workspace`);
    }
    await copyDir(dir, path);
  };
  if (tools === "recorded") return { path: realpathSync(path), source: "empty" };
  if (options.workspaceDir !== undefined) {
    await copyFrom(resolve(options.workspaceDir));
    return { path: realpathSync(path), source: "given" };
  }
  const shipped = options.folder !== undefined ? join(options.folder, "workspace") : undefined;
  if (shipped !== undefined && existsSync(shipped)) {
    await copyFrom(shipped);
    return { path: realpathSync(path), source: "recording" };
  }
  // A session of the data root: its workspace as it is now, put back to the recording's first
  // checkpoint when it has one (the files before its first change: what the rerun's tools must
  // start from for their checkpoints to compare); else with the files the recording shows as
  // they were put back (reconstruct.ts).
  if (existsSync(recording.meta.workspace)) await copyFrom(recording.meta.workspace);
  const first = recording.events.map((e) => e.message).find(isCheckpoint);
  if (first !== undefined) {
    openCheckpoints(host.paths, path).restore(first.payload.tree);
    return { path: realpathSync(path), source: "checkpoint" };
  }
  const rebuilt = applyStartingFiles(path, startingFiles(recording));
  return { path: realpathSync(path), source: rebuilt > 0 ? "reconstructed" : existsSync(recording.meta.workspace) ? "recorded-workspace-now" : "empty" };
}

/** One session's replay: its LLM, its Human re-enactment, and the comparison afterwards. */
class SessionReplay {
  /** The recording without its workspace checkpoints (compare-files.ts), renumbered. */
  readonly recording: RecordedSession;
  /** The recording as it is, checkpoints included. */
  readonly original: RecordedSession;
  /** A record number of `recording` as the original numbers it. */
  readonly recordedN: (n: number) => number;
  readonly plan: ReplayPlan;
  readonly ids = new Identities();
  readonly llm: ReplayLLM;
  readonly children: SessionReplay[] = [];
  readonly sequencer = new RecordSequencer();
  session: Session | undefined;
  #abortAt: (() => void) | undefined;
  /** `recorded`: the goal files to write as each round's block is written, by record number. */
  readonly #goalFiles = new Map<number, string>();

  readonly tools: ReplayToolsMode;

  constructor(original: RecordedSession, pace: number, tools: ReplayToolsMode = "rerun") {
    const { recording, recordedN } = withoutCheckpoints(original);
    this.original = original;
    this.recordedN = recordedN;
    this.tools = tools;
    this.recording = recording;
    this.plan = buildPlan(recording);
    this.llm = new ReplayLLM({
      requests: this.plan.requests,
      contextWindow: recording.meta.model_context_window,
      ids: this.ids,
      pace,
      sequencer: this.sequencer,
      // Older traces show steering only where it was delivered: queue it one request early.
      ...(this.plan.steeringActions.length === 0 ? { steer: (text: string) => void this.session?.steer(text) } : {}),
    });
    if (tools === "recorded") {
      for (const task of this.plan.tasks) {
        if (task.kind !== "goal") continue;
        for (const round of task.rounds) if (round.after !== undefined) this.#goalFiles.set(round.blockAt, round.after);
      }
    }
  }

  #nextSteering = 0;
  #nextApprovalMode = 0;
  #nextTitle = 0;
  #nextTaskHook = 0;

  /** Set the host's approval mode once the replay has written every record before the change. */
  #settingsOnTime(): void {
    const changes = this.plan.approvalModeChanges;
    while (this.#nextApprovalMode < changes.length && changes[this.#nextApprovalMode]!.at - 1 <= this.sequencer.written) {
      this.session?.setApprovalMode(changes[this.#nextApprovalMode++]!.mode);
    }
    // A title the host recorded mid-task (the server's, after the first answer) comes at its record too.
    this.titlesBefore(this.sequencer.written + 2);
  }

  /**
   * Record the host's titles that the recording has before record `at`, in order. Before a
   * task starts this places a title the host recorded ahead of the task (the CLI's, at the
   * first prompt), which no record of the replay's own would trigger: the file's header is
   * written only with its first record.
   */
  titlesBefore(at: number): void {
    const titles = this.plan.titles;
    const hooks = this.plan.taskHooks;
    for (;;) {
      const title = titles[this.#nextTitle];
      const hook = hooks[this.#nextTaskHook];
      const titleDue = title !== undefined && title.at < at;
      const hookDue = hook !== undefined && hook.n < at;
      if (titleDue && (!hookDue || title.at < hook.n)) {
        this.#nextTitle++;
        this.session?.recordTitle(title.title);
      } else if (hookDue && hook.message.type === "event_msg") {
        // A task hook's record, as recorded: replays never run hooks for tasks.
        this.#nextTaskHook++;
        this.session?.recordFact({ ...hook.message, timestamp: new Date().toISOString() });
      } else if (hookDue) {
        this.#nextTaskHook++;
      } else {
        return;
      }
    }
  }

  /** `recorded`: a round's block is written; GOAL.yaml becomes what the harness will read after the round. */
  #goalFileOnTime(): void {
    const text = this.#goalFiles.get(this.sequencer.written);
    if (text === undefined || this.session === undefined) return;
    writeFileSync(goalFilePath(this.session.scratchpadDir), text, { mode: 0o600 });
  }

  /** Queue or recall steering once the replay has written every record before it. */
  #steerOnTime(): void {
    const actions = this.plan.steeringActions;
    while (this.#nextSteering < actions.length && actions[this.#nextSteering]!.at - 1 <= this.sequencer.written) {
      const action = actions[this.#nextSteering++]!;
      if (action.kind === "queue") this.session?.queueSteering(action.text);
      else this.session?.recallSteering(action.id);
    }
  }

  /** The writer's line hook: count records; fire the pending abort when its record is next. */
  onLine = (m: OmniMessage): void => {
    // Checkpoints are set aside on both sides: the sequence counts conversation records.
    if (isCheckpointMessage(m)) return;
    this.sequencer.recorded();
    this.#goalFileOnTime();
    this.#settingsOnTime();
    this.#steerOnTime();
    const fire = this.#abortAt;
    if (fire !== undefined) setImmediate(fire);
  };

  /** Arms the abort for the next abort point of the recording, if it falls in this task. */
  armAbort(controller: AbortController, taskEnd: number): void {
    const point = this.plan.abortPoints.find((n) => n > this.sequencer.written && n <= taskEnd);
    this.#abortAt = undefined;
    if (point === undefined) return;
    const check = () => {
      if (this.sequencer.written >= point - 1 && !controller.signal.aborted) {
        this.#abortAt = undefined;
        controller.abort();
      }
    };
    this.#abortAt = check;
    check();
  }

  approve = async (call: { tool_call_id: string }, ctx: ApprovalContext): Promise<ApprovalResult> => {
    const owner = ctx.origin !== undefined && ctx.origin.length > 0 ? this.children.find((c) => c.session?.id === ctx.origin![0]) : this;
    const recorded = owner?.plan.approvals.get(call.tool_call_id);
    if (recorded === "allow") return "allow";
    if (recorded === undefined && ctx.signal !== undefined && this.plan.abortPoints.length > 0) {
      // Never decided live: the user aborted while this approval was pending.
      return new Promise((done) => ctx.signal!.addEventListener("abort", () => done("deny"), { once: true }));
    }
    return "deny";
  };
}

function verdictOf(replay: SessionReplay, replayedId: string, paths: AgentPaths, workspace: string): Verdict {
  const replayed = loadRecording({ paths }, replayedId);
  let verdict = compareRecords(replay.recording.events, eventsWithoutCheckpoints(replayed.events), replay.ids);
  if (!verdict.identical) verdict = { ...verdict, at: replay.recordedN(verdict.at) };
  const mismatch = replay.llm.contextMismatch;
  if (mismatch !== undefined) {
    const request = replay.plan.requests[mismatch.request];
    const at = request?.beginAt ?? replay.recording.events.length;
    if (verdict.identical || verdict.at > at) {
      verdict = { identical: false, at: replay.recordedN(at), position: replay.recording.events[at - 1]?.position ?? "", what: mismatch.what };
    }
  }
  if (verdict.identical && replay.tools === "rerun") {
    const files = compareCheckpoints(replay.original.events, replayed.events, checkpointStore(paths), () => {
      try {
        return openCheckpoints(paths, workspace).take()?.tree;
      } catch {
        return undefined;
      }
    });
    if (!files.identical) verdict = files;
  }
  if (verdict.identical) {
    for (const child of replay.children) {
      if (child.session === undefined) continue;
      const childVerdict = verdictOf(child, child.session.id, paths, workspace);
      if (!childVerdict.identical) {
        const pointer = replay.recording.events.find((e) => e.message.type === "event_msg" && e.message.payload.type === "subagent" && e.message.payload.session_id === child.recording.sessionId);
        return { identical: false, at: pointer?.n ?? 1, position: pointer?.position ?? "", what: `subagent ${child.recording.sessionId}, its record ${childVerdict.at}: ${childVerdict.what}` };
      }
    }
  }
  return verdict;
}

function checkpointStore(paths: AgentPaths): PackStore | undefined {
  try {
    return new PackStore(paths.checkpointsDir);
  } catch {
    return undefined;
  }
}

export function describeVerdict(verdict: Verdict): string {
  return verdict.identical ? "identical" : `diverged at ${verdict.at}: ${verdict.what}`;
}

export async function runReplay(host: ReplayHost, options: ReplayOptions): Promise<ReplayReport> {
  if ((options.sessionId === undefined) === (options.folder === undefined)) {
    throw new PenguinError("invalid_argument", "replay needs exactly one of sessionId (a session of this data root) or folder (recorded trace files)");
  }
  const source: RecordingSource = options.folder !== undefined ? { folder: resolve(options.folder) } : { paths: host.paths };
  const rootId = options.sessionId ?? folderRootSession(resolve(options.folder!));
  const recording = loadRecording(source, rootId);
  if (recording.meta.source === "subagent") {
    throw new PenguinError("invalid_argument", `${rootId} is a subagent session: it replays with its parent; replay the session that started it`);
  }
  const tools = options.tools ?? "rerun";
  const pace = options.pace ?? 0;
  const workspace = await prepareWorkspace(host, recording, options);
  const vision = recordedTools(recording).includes("read_image");

  const build = async (replay: SessionReplay, source: SessionMetaPayload["source"], subagents: SubagentRunner | undefined): Promise<Session> => {
    const meta: SessionMetaPayload = {
      ...replay.recording.meta,
      session_id: newSessionId(new Date()),
      workspace: workspace.path,
      agent_state: host.paths.agentState,
      replay_of: replay.recording.sessionId,
    };
    if (source === undefined) delete meta.source;
    else meta.source = source;
    // The replay is a new session: it names the program that started it, not the recording's.
    meta.client = source === "subagent" ? "subagent" : (options.client ?? "sdk");
    const parts: ReplayParts = { llm: replay.llm, onLine: replay.onLine, checkpoints: tools === "rerun" };
    if (subagents !== undefined) parts.subagents = subagents;
    if (replay.plan.startingSettings !== undefined) parts.startingSettings = replay.plan.startingSettings;
    if (replay.plan.thinkingBaseline !== undefined) parts.thinkingBaseline = replay.plan.thinkingBaseline;
    parts.wrapEnvironment = (env) => new RecordedEnvironment(env, replay.plan, replay.sequencer, tools === "rerun", replay.ids);
    const session = await host.buildReplaySession(meta, parts, vision);
    replay.session = session;
    replay.ids.add(session.id, replay.recording.sessionId);
    replay.ids.add(workspace.path, replay.recording.meta.workspace);
    // A goal's file lives in the scratchpad; its recorded path is in the rounds' blocks.
    const recordedScratchpad = replay.plan.tasks.find((t) => t.kind === "goal" && t.scratchpadDir !== undefined);
    if (recordedScratchpad?.kind === "goal" && recordedScratchpad.scratchpadDir !== undefined) replay.ids.add(session.scratchpadDir, recordedScratchpad.scratchpadDir);
    return session;
  };

  const root = new SessionReplay(recording, pace, tools);
  const spawnOrder = [...root.plan.spawned.values()].flat().map((e) => e.message).flatMap((m) => (m.type === "event_msg" && m.payload.type === "subagent" ? [m.payload.session_id] : []));
  const subagents: SubagentRunner = {
    async spawn(): Promise<SubagentHandle> {
      const childId = spawnOrder[root.children.length];
      const childRecording = childId !== undefined ? recording.children.get(childId) : undefined;
      if (childRecording === undefined) throw new Error(`replay: the recording has no trace for subagent number ${root.children.length + 1}`);
      const child = new SessionReplay(childRecording, 0, tools);
      root.children.push(child);
      const session = await build(child, "subagent", undefined);
      root.ids.add(session.id, childRecording.sessionId);
      return sessionHandle(session);
    },
  };
  const session = await build(root, "replay", subagents);

  try {
    for (const [index, task] of root.plan.tasks.entries()) {
      const next = root.plan.tasks[index + 1];
      const controller = new AbortController();
      root.titlesBefore(task.at);
      root.armAbort(controller, next === undefined ? Number.POSITIVE_INFINITY : next.at - 1);
      options.onTask?.(task, index, session);
      const level = task.kind === "compact" ? undefined : task.thinkingLevel;
      const runOptions = { approve: root.approve, signal: controller.signal, ...(level !== undefined && isLevel(level) ? { thinkingLevel: level } : {}) };
      const input = task.kind === "compact" ? [] : task.input.map((m) => ({ ...m, timestamp: new Date().toISOString() }));
      const stream =
        task.kind === "run"
          ? session.run(input, runOptions)
          : task.kind === "goal"
            ? session.run(input, { ...runOptions, goal: { budget: task.budget } })
            : session.compact({ signal: controller.signal });
      for await (const m of stream) options.onMessage?.(m);
    }
  } finally {
    await session.dispose();
    for (const child of root.children) await child.session?.dispose();
  }

  const verdict = verdictOf(root, session.id, host.paths, workspace.path);
  return {
    sessionId: session.id,
    replayOf: recording.sessionId,
    tools,
    workspace: workspace.path,
    workspaceSource: workspace.source,
    tracePath: session.tracePath,
    verdict,
    summary: describeVerdict(verdict),
  };
}
