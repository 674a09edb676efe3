/**
 * Tasks and the follow-up queue of a loaded session: starting a task (or queueing it behind the
 * running one, recorded in the trace as `followup_queued` first), recalling a queued one,
 * restoring the queues a stopped server left in the traces, starting the next when a run ends,
 * and manual compaction (a run of its own). Module functions over `ManagerParts`; the
 * SessionManager's methods of the same names delegate here.
 */
import { randomBytes } from "node:crypto";
import { agentPaths, isThinkingLevel, sessionTraceFiles } from "@penguin/core";
import { eventMessage, followupDequeued, followupQueued } from "@penguin/omnimessage";
import type { SessionRow } from "../db/sessions-store.js";
import { ApiError, conflict, notFound } from "../http/api-error.js";
import { pendingFollowUps } from "./follow-up-queue.js";
import { busyError } from "./run-control.js";
import type { FollowUp, SessionHub } from "./session-hub.js";
import type { ManagerParts, TaskAccepted, TaskRequest } from "./session-manager-parts.js";
import { recordFact } from "./session-settings.js";
import { buildTaskMessages, type TaskInputItem } from "./task-input.js";

export async function startTask(m: ManagerParts, row: SessionRow, request: TaskRequest): Promise<TaskAccepted> {
  const { hub, core: opened } = await m.open(row);
  if (hub.busy && !request.queueIfBusy) throw busyError(hub);
  const now = m.deps.now();
  const built = await buildTaskMessages(request.input, opened.scratchpadDir, m.deps.attachmentLimits(), now, request.sender);
  // The session may have been unloaded (eviction, new models) while files were written:
  // open it again; from here on everything is synchronous, so the busy check holds.
  const { core } = await m.open(row);
  hub.lastActiveAt = now;
  if (hub.busy || hub.followUps.length > 0) {
    if (!request.queueIfBusy) throw busyError(hub);
    const followUp: FollowUp = { id: `fu_${randomBytes(6).toString("hex")}`, input: request.input, messages: built.messages, prompt: built.prompt, thinkingLevel: request.thinkingLevel, goal: request.goal, traceparent: request.traceparent, queuedAt: now };
    // Queued in the trace first: the queue is the trace's, and survives this server.
    core.recordFact(
      followupQueued({
        followup_id: followUp.id,
        input: request.input,
        ...(request.thinkingLevel === undefined ? {} : { thinking_level: request.thinkingLevel }),
        ...(request.goal === undefined ? {} : { goal_budget: request.goal.budget }),
        ...(request.traceparent === undefined ? {} : { traceparent: request.traceparent }),
      }),
    );
    hub.followUps.push(followUp);
    hub.publishTaskState();
    if (!hub.busy) onIdle(m, hub);
    return { status: "queued", followUpId: followUp.id };
  }
  recordTraceContext(core, request.traceparent);
  m.runner.start(hub, core, { kind: "task", messages: built.messages, prompt: built.prompt, thinkingLevel: request.thinkingLevel, goal: request.goal });
  return { status: "started" };
}

/** A task request's W3C traceparent, recorded right before the task: the parent of its spans (projections/otel). */
function recordTraceContext(core: { recordFact(m: ReturnType<typeof eventMessage>): void }, traceparent: string | undefined): void {
  if (traceparent !== undefined) core.recordFact(eventMessage({ type: "trace_context", traceparent }));
}

/** True while a follow-up waits in the session's queue. */
export function isQueued(m: Pick<ManagerParts, "hubs">, sessionId: string, followUpId: string): boolean {
  return m.hubs.get(sessionId)?.followUps.some((f) => f.id === followUpId) ?? false;
}

/** Removes a queued follow-up (recorded in the trace) and returns what the client sent. */
export async function recallFollowUp(m: ManagerParts, row: SessionRow, followUpId: string): Promise<TaskInputItem[]> {
  const hub = m.hubs.get(row.sessionId);
  const at = hub?.followUps.findIndex((f) => f.id === followUpId) ?? -1;
  if (hub === undefined || at < 0) throw notFound(`follow-up ${followUpId}`);
  const [removed] = hub.followUps.splice(at, 1);
  await recordFact(m, row, followupDequeued(followUpId, "recalled"));
  hub.publishTaskState();
  return removed?.input ?? [];
}

/**
 * At start: the follow-ups a stopped server left queued (the traces record them) go back to
 * their sessions' queues, in order, and the first runs once its session is idle.
 */
export async function restoreQueues(m: ManagerParts, restore: (row: SessionRow) => Promise<number> = (row) => restoreQueue(m, row)): Promise<number> {
  let restored = 0;
  for (const sessionId of await m.deps.queuedSessionIds()) {
    const row = m.deps.stores.sessions.get(sessionId);
    if (row === undefined) continue;
    try {
      restored += await restore(row);
    } catch (error) {
      // Another node of the cluster runs it (and so runs its queue): nothing to restore here.
      if (error instanceof ApiError && error.code === "session_busy") continue;
      m.deps.report(error);
    }
  }
  return restored;
}

/** Loads one session and puts the follow-ups its trace records as queued back in its queue; the first starts once it is idle. */
export async function restoreQueue(m: ManagerParts, row: SessionRow): Promise<number> {
  let restored = 0;
  const { hub, core } = await m.open(row);
  const queued = pendingFollowUps(sessionTraceFiles(agentPaths(m.deps.root, row.projectId, row.agentId), row.sessionId));
  for (const q of queued) {
    if (hub.followUps.some((f) => f.id === q.followupId)) continue;
    const input = q.input as TaskInputItem[];
    const built = await buildTaskMessages(input, core.scratchpadDir, m.deps.attachmentLimits(), m.deps.now());
    const thinkingLevel = q.thinkingLevel !== undefined && isThinkingLevel(q.thinkingLevel) ? q.thinkingLevel : undefined;
    hub.followUps.push({ id: q.followupId, input, messages: built.messages, prompt: built.prompt, thinkingLevel, goal: q.goalBudget === undefined ? undefined : { budget: q.goalBudget }, traceparent: q.traceparent, queuedAt: m.deps.now() });
    restored += 1;
  }
  hub.publishTaskState();
  if (!hub.busy) onIdle(m, hub);
  return restored;
}

export async function compact(m: ManagerParts, row: SessionRow): Promise<void> {
  const { hub, core } = await m.open(row);
  if (hub.busy) throw busyError(hub);
  const why = core.compactability();
  if (why === "empty") throw conflict("nothing_to_compact", "the context is empty: there is nothing to compact");
  if (why === "just_compacted") throw conflict("already_compacted", "the context was just compacted");
  m.runner.start(hub, core, { kind: "compact" });
}

/** A run ended (or a queue was filled while idle): reload a stale session first, then start the next follow-up. */
export function onIdle(m: ManagerParts, hub: SessionHub): void {
  if (hub.stale) {
    hub.stale = false;
    void m.unload(hub).then(() => startNext(m, hub));
    return;
  }
  startNext(m, hub);
}

function startNext(m: ManagerParts, hub: SessionHub): void {
  if (m.closing() || hub.busy) return;
  const next = hub.followUps.shift();
  if (next === undefined) return;
  const row = m.deps.stores.sessions.get(hub.sessionId);
  if (row === undefined) return;
  m.open(row).then(
    ({ core }) => {
      if (hub.busy) {
        hub.followUps.unshift(next);
        return;
      }
      core.recordFact(followupDequeued(next.id, "started"));
      // A follow-up posted with a traceparent: its task's spans get that parent too.
      recordTraceContext(core, next.traceparent);
      m.runner.start(hub, core, { kind: "task", messages: next.messages, prompt: next.prompt, thinkingLevel: next.thinkingLevel, goal: next.goal });
    },
    (error: unknown) => {
      hub.serverEvent({ type: "task_error", message: error instanceof Error ? error.message : String(error) });
      hub.publishTaskState();
    },
  );
}
