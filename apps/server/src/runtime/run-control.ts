/**
 * Steering a running task and stopping it: steering with recall (the engine's queue, under
 * server ids), abort (which denies pending approvals and hands queued follow-ups back), a
 * person's approval decision, "retry now", and the 409 a busy session answers. Module
 * functions over `ManagerParts`; the SessionManager's methods of the same names delegate here.
 */
import { randomBytes } from "node:crypto";
import { followupDequeued } from "@penguin/omnimessage";
import type { SessionRow } from "../db/sessions-store.js";
import { conflict, notFound, type ApiError } from "../http/api-error.js";
import type { HumanDecision } from "./approvals.js";
import type { SessionHub } from "./session-hub.js";
import type { ManagerParts } from "./session-manager-parts.js";
import { recordFact } from "./session-settings.js";
import type { TaskInputItem } from "./task-input.js";

export function steer(m: ManagerParts, row: SessionRow, text: string): { id: string; text: string } {
  const hub = m.hubs.get(row.sessionId);
  const coreId = hub?.core !== undefined && hub.state === "running" ? hub.core.queueSteering(text) : undefined;
  if (hub === undefined || coreId === undefined) throw conflict("not_running", "no task is running on this session; post a task instead");
  const id = `st_${randomBytes(6).toString("hex")}`;
  hub.steering.set(id, { id, coreId, text, status: "pending" });
  hub.publishTaskState();
  return { id, text };
}

/**
 * Takes back steering and returns its text: while the engine still holds it, or after the
 * run ended without delivering it. 409 `already_delivered` once the model has it.
 */
export function recallSteering(m: ManagerParts, row: SessionRow, id: string): { id: string; text: string } {
  const hub = m.hubs.get(row.sessionId);
  const note = hub?.steering.get(id);
  if (hub === undefined || note === undefined) throw notFound(`steering ${id}`);
  if (note.status === "pending") {
    const text = hub.core?.recallSteering(note.coreId);
    if (text === undefined) note.status = "delivered";
  }
  if (note.status === "delivered") throw conflict("already_delivered", "this steering has already reached the agent and cannot be taken back");
  hub.steering.delete(id);
  hub.publishTaskState();
  return { id, text: note.text };
}

/** Aborts the running task; queued follow-ups are handed back. Undefined when idle. */
export function abort(m: ManagerParts, row: SessionRow): { recalled: { id: string; input: TaskInputItem[] }[] } | undefined {
  const hub = m.hubs.get(row.sessionId);
  if (hub?.run === undefined) return undefined;
  const recalled = hub.followUps.splice(0).map((f) => ({ id: f.id, input: f.input }));
  // Handed back to the client: out of the trace's queue too.
  for (const { id } of recalled) void recordFact(m, row, followupDequeued(id, "aborted")).catch((error: unknown) => m.deps.report(error));
  hub.run.controller.abort();
  hub.approvals.denyAll();
  hub.publishTaskState();
  return { recalled };
}

export function decide(m: ManagerParts, row: SessionRow, toolCallId: string, decision: HumanDecision): void {
  const hub = m.hubs.get(row.sessionId);
  if (hub === undefined || !hub.approvals.decide(toolCallId, decision)) throw notFound(`pending approval ${toolCallId}`);
}

export function retryNow(m: ManagerParts, row: SessionRow): boolean {
  return m.hubs.get(row.sessionId)?.core?.skipReconnectWait() ?? false;
}

/** 409 for a session that is running a task or compacting, saying what to do instead. */
export function busyError(hub: SessionHub): ApiError {
  return hub.state === "compacting"
    ? conflict("compacting", "the session is compacting its context; try again when it is done, or queue the task")
    : conflict("task_in_progress", "a task is already running on this session; wait, steer it, abort it, or queue this one with queueIfBusy");
}
