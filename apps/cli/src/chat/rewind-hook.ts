/**
 * `/undo` and `/rewind N` for a chat (issue 29), as one hook a chat front end calls with its
 * open session: the chat's process holds the session's lease, so the hook disposes the
 * session (letting the lease go), rewinds files and conversation in place through core
 * (`agent.rewindSession`, undoable, refused over outside edits unless forced), and resumes
 * it. The chat goes on with the Session it returns. `/undo` goes back to just before the last
 * task: the record before the last prompt a person sent.
 */
import type { Agent, RewindResult, Session } from "@penguin/core";

export type RewindTarget = { kind: "undo" } | { kind: "record"; n: number };

/** The record before the session's last task (its last prompt from a person); undefined when it has none. */
export async function beforeLastTask(agent: Agent, sessionId: string): Promise<number | undefined> {
  const { parseTraceText, sessionTraceFiles } = await import("@penguin/core");
  const { readFileSync } = await import("node:fs");
  let n = 0;
  let last: number | undefined;
  for (const file of sessionTraceFiles(agent.paths, sessionId)) {
    for (const m of parseTraceText(readFileSync(file.file, "utf8")).messages) {
      n += 1;
      if (m.type === "model_msg" && m.payload.type === "text" && m.payload.role === "user" && m.payload.sender === undefined) last = n;
    }
  }
  return last === undefined || last <= 1 ? undefined : last - 1;
}

export async function rewindOpenSession(agent: Agent, session: Session, target: RewindTarget, options: { force?: boolean } = {}): Promise<{ session: Session; result: RewindResult }> {
  if (session.running) throw new Error("a task is running: wait for it to end (or interrupt it) before rewinding");
  const sessionId = session.id;
  const to = target.kind === "record" ? target.n : await beforeLastTask(agent, sessionId);
  if (to === undefined) throw new Error("nothing to undo: the session has no task yet");
  await session.dispose();
  try {
    const result = agent.rewindSession({ sessionId, to, what: "both", ...(options.force === true ? { force: true } : {}) });
    return { session: await agent.resumeSession({ sessionId }), result };
  } catch (error) {
    // Refused (outside edits, a bad record): the chat goes on with the session as it was.
    const again = await agent.resumeSession({ sessionId });
    throw Object.assign(error instanceof Error ? error : new Error(String(error)), { session: again });
  }
}

/**
 * What a chat prints after a rewind: the files written and removed, where the conversation
 * goes on, and how to undo it. Lines are plain (the caller colours and sanitizes).
 */
export function rewindSummary(sessionId: string, result: RewindResult): string[] {
  const lines: string[] = [];
  const files = result.files;
  if (files !== undefined) {
    lines.push(`[rewind] files back to record ${result.record} (checkpoint of record ${result.checkpointRecord ?? "?"}): ${files.written.length} written, ${files.removed.length} removed`);
    for (const p of files.written.slice(0, 20)) lines.push(`  restored ${p}`);
    for (const p of files.removed.slice(0, 20)) lines.push(`  removed  ${p}`);
    const more = Math.max(0, files.written.length - 20) + Math.max(0, files.removed.length - 20);
    if (more > 0) lines.push(`  … and ${more} more`);
    for (const n of files.notRestored) lines.push(`  left     ${n.path}: ${n.reason}`);
  } else {
    lines.push(`[rewind] no workspace checkpoint at or before record ${result.record}: files left as they are`);
  }
  if (result.conversationFile !== undefined) lines.push(`[rewind] conversation back to record ${result.record}: the next message goes on from there`);
  if (result.undoRecord !== undefined) lines.push(`undo the files with: /rewind ${result.undoRecord} (or penguin rewind ${sessionId} --to ${result.undoRecord} --files)`);
  return lines;
}
