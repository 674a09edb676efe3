/**
 * The follow-up queue as the trace records it. A task queued behind the running one is a
 * `followup_queued` event (what the person sent, as received), and it leaves the queue with a
 * `followup_dequeued` (started, recalled, or handed back by an abort). Folding those events in
 * trace order gives the queue a session had when its server stopped, in order, so a restarted
 * server (even one that was SIGKILLed) runs what was still waiting.
 *
 * Only files that hold one of those records are parsed (found by the type name with its
 * quotes), so a long session without follow-ups costs a scan, not a decode.
 */
import { readFileSync } from "node:fs";
import { parseTraceText } from "@penguin/core";
import type { OmniMessage } from "@penguin/omnimessage";

export interface QueuedInTrace {
  followupId: string;
  input: unknown[];
  thinkingLevel: string | undefined;
  goalBudget: number | undefined;
  traceparent: string | undefined;
}

const NEEDLES = ['"followup_queued"', '"followup_dequeued"'];

/** The follow-ups still queued after every record of the session's files (lowest index first), oldest first. */
export function pendingFollowUps(files: readonly { file: string }[]): QueuedInTrace[] {
  const queue = new Map<string, QueuedInTrace>();
  for (const ref of files) {
    const text = readFileSync(ref.file, "utf8");
    if (!NEEDLES.some((n) => text.includes(n))) continue;
    for (const m of parseTraceText(text).messages) foldQueue(queue, m);
  }
  return [...queue.values()];
}

function foldQueue(queue: Map<string, QueuedInTrace>, m: OmniMessage): void {
  if (m.type !== "event_msg") return;
  const p = m.payload;
  if (p.type === "followup_queued") queue.set(p.followup_id, { followupId: p.followup_id, input: p.input, thinkingLevel: p.thinking_level, goalBudget: p.goal_budget, traceparent: p.traceparent });
  else if (p.type === "followup_dequeued") queue.delete(p.followup_id);
}
