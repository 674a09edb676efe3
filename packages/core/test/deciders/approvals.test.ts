// The approvals decider as given (events) / when (command) / then (events appended), and
// properties over any sequence of proposals and answers: a question is open exactly from its
// `approval_requested` to its decision, every refused call gets exactly one output, and an
// answer to a question no longer open appends nothing.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { abortEvent, approvalDecision, approvalRequested, settingsChanged, type ToolCallPayload } from "@penguin/omnimessage";
import { DENIED_BY_POLICY, DENIED_BY_USER, foldTrace } from "@penguin/trace";
import { decideApproval, modeVerdict } from "../../src/deciders/approvals.js";
import { approveForMode } from "../../src/approvals/modes.js";
import * as core from "../../src/index.js";
import { AT, appended, given, lines } from "./given.js";

const call = (id: string, name = "exec_command"): ToolCallPayload => ({ type: "tool_call", role: "assistant", name, arguments: "{}", tool_call_id: id });
const output = (id: string, text: string) => ({ model_msg: { type: "tool_call_output", role: "user", tool_call_id: id, output: text, stop_reason: "aborted" } });

describe("approvals decider", () => {
  it("given nothing, when a call hits the command policy, then it is forbidden with the rule and its output says so, unasked", () => {
    const events = decideApproval(given(), { type: "propose", call: call("c1"), policyRule: "rm-root", asker: "host", at: AT });
    expect(lines(events)).toEqual([
      { event_msg: { type: "approval_decision", decision: "forbidden", tool_call_id: "c1", policy_rule: "rm-root" } },
      output("c1", DENIED_BY_POLICY),
    ]);
  });

  it("given nothing, when a call is proposed and nobody can answer, then it is denied", () => {
    const events = decideApproval(given(), { type: "propose", call: call("c1"), asker: "none", at: AT });
    expect(lines(events)).toEqual([{ event_msg: { type: "approval_decision", decision: "deny", tool_call_id: "c1" } }, output("c1", DENIED_BY_USER)]);
  });

  it("given nothing, when a call is proposed to a host, then the question is recorded and open in the fold", () => {
    const state = given();
    const events = decideApproval(state, { type: "propose", call: call("c1", "write_file"), asker: "host", at: AT });
    expect(lines(events)).toEqual([{ event_msg: { type: "approval_requested", tool_call_id: "c1", name: "write_file" } }]);
    expect(appended(state, events).pendingApprovals).toEqual([{ toolCallId: "c1", name: "write_file" }]);
  });

  it("given an open question, when the human allows, then one decision and no output", () => {
    const events = decideApproval(given(approvalRequested({ tool_call_id: "c1", name: "x" })), { type: "answer", toolCallId: "c1", answer: "allow", at: AT });
    expect(lines(events)).toEqual([{ event_msg: { type: "approval_decision", decision: "allow", tool_call_id: "c1" } }]);
  });

  it("given an open question, when the answer is no known decision, then it counts as deny and the call's output says so", () => {
    const events = decideApproval(given(approvalRequested({ tool_call_id: "c1", name: "x" })), { type: "answer", toolCallId: "c1", answer: "maybe", at: AT });
    expect(lines(events)).toEqual([{ event_msg: { type: "approval_decision", decision: "deny", tool_call_id: "c1" } }, output("c1", DENIED_BY_USER)]);
  });

  it("given a question an abort dropped, when the answer comes late, then nothing is appended", () => {
    const state = given(approvalRequested({ tool_call_id: "c1", name: "x" }), abortEvent("aborted by user"));
    expect(decideApproval(state, { type: "answer", toolCallId: "c1", answer: "allow", at: AT })).toEqual([]);
  });

  it("given the mode the trace recorded, when the same mode is set, then nothing; another mode is one settings_changed", () => {
    const state = given(settingsChanged({ approval_mode: "deny-all" }));
    expect(decideApproval(state, { type: "set_mode", mode: "deny-all", at: AT })).toEqual([]);
    expect(lines(decideApproval(state, { type: "set_mode", mode: "allow-all", at: AT }))).toEqual([{ event_msg: { type: "settings_changed", approval_mode: "allow-all" } }]);
  });

  it("given a question the decider opened, when a host records a decision itself, then the fold closes it as the decider's would", () => {
    const state = appended(given(), decideApproval(given(), { type: "propose", call: call("c9"), asker: "host", at: AT }));
    expect(appended(state, [approvalDecision("allow", "c9")]).pendingApprovals).toEqual([]);
  });

  it("the README's example: given an open question, when the host denies, then the decision and the call's output", () => {
    const state = foldTrace([approvalRequested({ tool_call_id: "c1", name: "write_file" })]);
    const events = core.decideApproval(state, { type: "answer", toolCallId: "c1", answer: "deny", at: "2026-01-02T03:04:05.000Z" });
    expect(lines(events)).toEqual([{ event_msg: { type: "approval_decision", decision: "deny", tool_call_id: "c1" } }, output("c1", "Tool call denied by user.")]);
  });

  it("the events carry the command's time, not the clock's", () => {
    const [event] = decideApproval(given(), { type: "propose", call: call("c1"), asker: "host", at: AT });
    expect(event!.timestamp).toBe(AT);
  });

  it("modes: the verdict table, and approveForMode follows it", async () => {
    const table = (["allow-all", "deny-all", "read-only", "always-ask"] as const).flatMap((mode) => (["r", "rw"] as const).map((p) => `${mode}/${p}=${modeVerdict(mode, () => p)}`));
    expect(table).toEqual(["allow-all/r=allow", "allow-all/rw=allow", "deny-all/r=deny", "deny-all/rw=deny", "read-only/r=allow", "read-only/rw=ask", "always-ask/r=ask", "always-ask/rw=ask"]);
    const signal = new AbortController().signal;
    const asked: string[] = [];
    const fn = approveForMode("read-only", { permissionOf: (n) => (n === "read_file" ? "r" : "rw"), ask: async (c) => (asked.push(c.name), "forbidden") });
    expect([await fn(call("a", "read_file"), { signal }), await fn(call("b", "write_file"), { signal })]).toEqual(["allow", "forbidden"]);
    expect(asked).toEqual(["write_file"]);
  });

  it("property: whatever is proposed and answered, in any order, the fold and the decisions agree", () => {
    const step = fc.oneof(
      fc.record({ type: fc.constant("propose" as const), id: fc.integer({ min: 1, max: 4 }), policy: fc.boolean(), asker: fc.constantFrom("host" as const, "none" as const) }),
      fc.record({ type: fc.constant("answer" as const), id: fc.integer({ min: 1, max: 4 }), answer: fc.constantFrom("allow", "deny", "forbidden", "later", 7) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        let state = given();
        const trace = [];
        for (const s of steps) {
          const id = `c${s.id}`;
          const wasOpen = state.pendingApprovals.some((a) => a.toolCallId === id);
          const events =
            s.type === "propose"
              ? decideApproval(state, { type: "propose", call: call(id), policyRule: s.policy ? "rule" : undefined, asker: s.asker, at: AT })
              : decideApproval(state, { type: "answer", toolCallId: id, answer: s.answer, at: AT });
          trace.push(...events);
          state = appended(state, events);
          const open = state.pendingApprovals.some((a) => a.toolCallId === id);
          const decisions = events.filter((m) => m.type === "event_msg" && m.payload.type === "approval_decision");
          const outputs = events.filter((m) => m.type === "model_msg" && m.payload.type === "tool_call_output");
          const refused = decisions.filter((m) => m.type === "event_msg" && m.payload.type === "approval_decision" && m.payload.decision !== "allow");
          // A question stays open exactly until a decision: a decision closes it, a host's proposal opens it.
          if (decisions.length > 0) expect(open).toBe(false);
          if (s.type === "propose" && !s.policy && s.asker === "host") expect(open).toBe(true);
          // An answer decides only an open question; every refusal is the call's one output.
          if (s.type === "answer" && !wasOpen) expect(events).toEqual([]);
          expect(decisions.length).toBeLessThanOrEqual(1);
          expect(outputs.length).toBe(refused.length);
        }
        // The live fold and a fold of the whole appended trace are the same state.
        expect(foldTrace(trace).pendingApprovals).toEqual(state.pendingApprovals);
      }),
      { numRuns: 300 },
    );
  });
});
