/**
 * Approvals: what happens to a complete `tool_call` before it may run.
 *
 * The command policy is checked first: a hit is `forbidden` and the Human is not asked. Then
 * the host's ApproveFn (the Human, or the host's approval mode) is asked; without one every
 * call is denied, and a throwing one means `deny`. Asking records `approval_requested` (a fact
 * of the session: a reload shows the open question), traced but not streamed. A denial is the
 * call's output (`[denied …]`), so the model hears why.
 *
 * An Effect service (`Approvals`, built by `ApprovalsLive(policy)`): the engine's ToolRunner
 * asks it once per call, in call order. The ApproveFn is a promise edge dropped on abort: the
 * run's interruption aborts the signal handed to it and the run does not wait for an answer.
 */
import { Context, Effect, Exit, Layer } from "effect";
import { approvalDecision, approvalRequested, type OmniMessage, type ToolCallOutputPayload, type ToolCallPayload } from "@penguin/omnimessage";
import { DENIED_BY_POLICY, DENIED_BY_USER } from "@penguin/trace";
import type { ApprovalResult, ApproveFn, PolicyCheck } from "../interfaces.js";
import { abandonEdge } from "./abort.js";

/** Where a decision is reported: an event (traced, streamed unless `stream` is false) or the call's output. */
export interface DecisionReport {
  emit(m: OmniMessage, stream?: boolean): void;
  record(output: ToolCallOutputPayload): void;
}

export interface ApprovalsShape {
  /** True when `call` may run; otherwise its output was recorded (or the run was aborted). */
  decide(call: ToolCallPayload, approve: ApproveFn | undefined, report: DecisionReport): Effect.Effect<boolean>;
}

export class Approvals extends Context.Tag("penguin/engine/Approvals")<Approvals, ApprovalsShape>() {}

const denial = (call: ToolCallPayload, output: string): ToolCallOutputPayload => ({
  type: "tool_call_output",
  role: "user",
  tool_call_id: call.tool_call_id,
  output,
  stop_reason: "aborted",
});

function normalize(answer: unknown): ApprovalResult {
  return answer === "allow" || answer === "deny" || answer === "forbidden" ? answer : "deny";
}

export function makeApprovals(policy: PolicyCheck | undefined): ApprovalsShape {
  return {
    decide: (call, approve, report) =>
      Effect.gen(function* () {
        const hit = policy?.(call);
        if (hit !== undefined) {
          report.emit(approvalDecision("forbidden", call.tool_call_id, { policyRule: hit.rule }));
          report.record(denial(call, DENIED_BY_POLICY));
          return false;
        }
        let decision: ApprovalResult = "deny";
        if (approve !== undefined) {
          report.emit(approvalRequested({ tool_call_id: call.tool_call_id, name: call.name }), false);
          const answer = yield* Effect.exit(abandonEdge((signal) => approve(call, { signal })));
          if (Exit.isInterrupted(answer)) return false;
          decision = Exit.isSuccess(answer) ? normalize(answer.value) : "deny";
        }
        report.emit(approvalDecision(decision, call.tool_call_id));
        if (decision === "allow") return true;
        report.record(denial(call, decision === "forbidden" ? DENIED_BY_POLICY : DENIED_BY_USER));
        return false;
      }),
  };
}

/** The Approvals service over a command policy (none: only the host decides). */
export const ApprovalsLive = (policy: PolicyCheck | undefined): Layer.Layer<Approvals> => Layer.succeed(Approvals, makeApprovals(policy));
