/**
 * A Session as a SubagentHandle: how the runner hands a child session to the parent's tools.
 *
 * - `run` sends the task as a user text from `parent_agent` and yields the child's stream
 *   without `origin` (the parent's side adds the hop). The child's first task starts with its
 *   `session_meta` (SPEC §1: a child stream starts with it; a main stream never does), so the
 *   host learns the child's model and workspace when it appears.
 * - The child inherits nothing implicitly: the approval function and the abort signal come
 *   with each task.
 * - `provider` / `modelId` name the child's model, so a host can price its token usage.
 */
import { sessionMeta, userText } from "@penguin/omnimessage";
import type { ApproveFn, SubagentHandle } from "../interfaces.js";
import type { Session } from "../session.js";

export function sessionHandle(session: Session): SubagentHandle {
  let metaSent = false;
  return {
    sessionId: session.id,
    provider: session.provider,
    modelId: session.modelId,
    async *run(input) {
      if (!metaSent) {
        metaSent = true;
        yield sessionMeta({ ...session.meta, source: "subagent" });
      }
      // The parent's approvals see which child asks (tool-call ids are unique per session only).
      const parentApprove = input.approve;
      const approve: ApproveFn | undefined =
        parentApprove === undefined ? undefined : (call, ctx) => parentApprove(call, { ...ctx, origin: [session.id, ...(ctx.origin ?? [])] });
      const options = approve === undefined ? { signal: input.signal } : { signal: input.signal, approve };
      yield* session.run([userText(input.prompt, { sender: "parent_agent" })], options);
    },
    steer: (text) => session.steer(text),
    dispose: () => session.dispose(),
  };
}
