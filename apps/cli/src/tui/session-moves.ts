/**
 * The chat moving from one session to another: `/resume` and `/fork` (switchTo: resume the
 * target from its trace, leave the current one), `/model` and `/clear` (replace: a new session
 * in the same workspace), `/undo` and `/rewind N` (rewind in place through the chat's rewind
 * hook, going on in the rewound session). The session left is disposed (its lease let go)
 * and named, so it can be resumed.
 */
import type { Session } from "@penguin/core";
import { describeError } from "../cli-error.js";
import type { RewindTarget } from "../chat/rewind-hook.js";
import { sanitizeForTerminal } from "../io/sanitize.js";
import { note, type ChatState } from "./chat-state.js";

export async function rewindInPlace(s: ChatState, target: RewindTarget, force: boolean): Promise<void> {
  const c = s.theme.c;
  const { rewindOpenSession, rewindSummary } = await import("../chat/rewind-hook.js");
  try {
    const { session, result } = await rewindOpenSession(s.agent, s.session, target, { force });
    s.session = session;
    session.setApprovalMode(s.mode);
    note(s, c.dim(rewindSummary(session.id, result).map(sanitizeForTerminal).join("\n")));
  } catch (error) {
    const again: unknown = Object(error).session;
    if (again !== undefined) s.session = again as Session;
    note(s, c.red(`error: ${(await describeError(error)).message}`));
  }
}

async function leave(s: ChatState, old: Session): Promise<void> {
  await old.dispose();
  note(s, s.theme.c.dim(`[session] left ${old.id}; resume it with: penguin chat --resume ${old.id}`));
}

export async function switchTo(s: ChatState, sessionId: string, why: string): Promise<void> {
  const next = await s.agent.resumeSession({ sessionId });
  await leave(s, s.session);
  s.session = next;
  note(s, s.theme.c.dim(`[session] ${why}: now in ${next.id} · ${next.provider}/${next.modelId}`));
}

export async function replaceSession(s: ChatState, ref: { provider: string; modelId: string }): Promise<void> {
  const old = s.session;
  let next: Session;
  try {
    next = await s.agent.createSession({ workspaceDir: old.workspace, provider: ref.provider, modelId: ref.modelId, thinkingLevel: old.thinkingLevel, approvalMode: s.mode });
  } catch (error) {
    note(s, s.theme.c.red(`error: ${(await describeError(error)).message}`));
    return;
  }
  await leave(s, old);
  s.session = next;
  note(s, s.theme.c.dim(`[session] new session ${next.id} · ${next.provider}/${next.modelId} · ${next.workspace}`));
}
