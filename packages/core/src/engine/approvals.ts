/**
 * Approvals: what happens to a complete `tool_call` before it may run.
 *
 * The command policy is checked first: a hit is `forbidden` and the Human is not asked. Then
 * the host's ApproveFn (the Human, or the host's approval mode) is asked; without one every
 * call is denied, and a throwing one means `deny`. Asking records `approval_requested` (a fact
 * of the session: a reload shows the open question), traced but not streamed. A denial is the
 * call's output (`[denied …]`), so the model hears why.
 *
 * The rules are the approvals decider's (deciders/approvals.ts): this service proposes the call,
 * appends what the decider returns, asks the host when the decider left a question open, and
 * appends the decider's answer to it.
 *
 * An Effect service (`Approvals`, built by `ApprovalsLive(policy)`): the engine's ToolRunner
 * asks it once per call, in call order. The ApproveFn is a promise edge dropped on abort: the
 * run's interruption aborts the signal handed to it and the run does not wait for an answer.
 */
import { Context, Effect, Exit, Layer } from "effect";
import type { OmniMessage, ToolCallOutputPayload, ToolCallPayload } from "@penguin/omnimessage";
import { foldTrace, initialSessionState, type SessionState } from "@penguin/trace";
import type { ApproveFn, PolicyCheck } from "../interfaces.js";
import { decideApproval } from "../deciders/approvals.js";
import { abandonEdge } from "./abort.js";

/** Where a decision is reported: an event (traced, streamed unless `stream` is false) or the call's output. */
export interface DecisionReport {
  emit(m: OmniMessage, stream?: boolean): void;
  record(output: ToolCallOutputPayload): void;
  /** The session's state when the call is proposed (the live fold); without it, an empty session. */
  state?(): SessionState;
}

export interface ApprovalsShape {
  /** True when `call` may run; otherwise its output was recorded (or the run was aborted). */
  decide(call: ToolCallPayload, approve: ApproveFn | undefined, report: DecisionReport): Effect.Effect<boolean>;
}

export class Approvals extends Context.Tag("penguin/engine/Approvals")<Approvals, ApprovalsShape>() {}

/**
 * Append what the decider decided: outputs as the call's output, the open question traced
 * but not streamed, the rest traced and streamed. True when the events allow the call.
 */
function append(events: readonly OmniMessage[], report: DecisionReport): boolean {
  let allowed = false;
  for (const m of events) {
    if (m.type === "model_msg" && m.payload.type === "tool_call_output") report.record(m.payload);
    else if (m.type === "event_msg" && m.payload.type === "approval_requested") report.emit(m, false);
    else {
      if (m.type === "event_msg" && m.payload.type === "approval_decision" && m.payload.decision === "allow") allowed = true;
      report.emit(m);
    }
  }
  return allowed;
}

const now = () => new Date().toISOString();

/**
 * Approvals over `decideApproval` (deciders/approvals.ts): the call is proposed (the policy's
 * rule, whether a host can answer); an open question goes to the host's ApproveFn, and its
 * answer is decided on the state with the question folded in (`fold(given ++ asked)`).
 */
export function makeApprovals(policy: PolicyCheck | undefined): ApprovalsShape {
  return {
    decide: (call, approve, report) =>
      Effect.gen(function* () {
        const given = report.state?.() ?? initialSessionState;
        const asked = decideApproval(given, { type: "propose", call, policyRule: policy?.(call)?.rule, asker: approve === undefined ? "none" : "host", at: now() });
        const allowedAtOnce = append(asked, report);
        const open = asked.some((m) => m.type === "event_msg" && m.payload.type === "approval_requested");
        if (!open || approve === undefined) return allowedAtOnce;
        const answer = yield* Effect.exit(abandonEdge((signal) => approve(call, { signal })));
        if (Exit.isInterrupted(answer)) return false;
        const state = foldTrace(asked, given);
        return append(decideApproval(state, { type: "answer", toolCallId: call.tool_call_id, call, answer: Exit.isSuccess(answer) ? answer.value : "deny", at: now() }), report);
      }),
  };
}
/** The Approvals service over a command policy (none: only the host decides). */
export const ApprovalsLive = (policy: PolicyCheck | undefined): Layer.Layer<Approvals> => Layer.succeed(Approvals, makeApprovals(policy));
