// Session approval rules and denial notes in the approvals decider, as given / when / then:
// an allow-for-session answer appends an `approval_rule` before its decision, a later call the
// rule covers is allowed without a question, a shell rule covers only plain commands with the
// same program (never a chained one), deny-all still wins, and a denial's note reaches the
// call's output (what the model reads).
import { describe, expect, it } from "vitest";
import { approvalRequested, approvalRule, settingsChanged, type ToolCallPayload } from "@penguin/omnimessage";
import { DENIED_BY_USER } from "@penguin/trace";
import { decideApproval } from "../../src/deciders/approvals.js";
import { AT, appended, given, lines } from "./given.js";

const shell = (id: string, cmd: string): ToolCallPayload => ({ type: "tool_call", role: "assistant", name: "exec_command", arguments: JSON.stringify({ cmd }), tool_call_id: id });
const write = (id: string): ToolCallPayload => ({ type: "tool_call", role: "assistant", name: "write_file", arguments: JSON.stringify({ path: "a.txt", content: "x" }), tool_call_id: id });

describe("approvals decider: session rules and notes", () => {
  it("given an open shell question, when the human allows it for the session, then a rule with the program, then the decision", () => {
    const call = shell("c1", "npm test -- --watch=false");
    const state = given(approvalRequested({ tool_call_id: "c1", name: "exec_command" }));
    const events = decideApproval(state, { type: "answer", toolCallId: "c1", call, answer: { decision: "allow", forSession: {} }, at: AT });
    expect(lines(events)).toEqual([
      { event_msg: { type: "approval_rule", tool: "exec_command", command_prefix: "npm", tool_call_id: "c1" } },
      { event_msg: { type: "approval_decision", decision: "allow", tool_call_id: "c1" } },
    ]);
    expect(appended(state, events).approvalRules).toEqual([{ tool: "exec_command", commandPrefix: "npm" }]);
  });

  it("given a shell rule, when a plain command of that program is proposed, then it is allowed at once; a chained one is asked", () => {
    const state = given(approvalRule({ tool: "exec_command", commandPrefix: "npm", toolCallId: "c1" }));
    expect(lines(decideApproval(state, { type: "propose", call: shell("c2", "npm run build"), asker: "host", at: AT }))).toEqual([
      { event_msg: { type: "approval_decision", decision: "allow", tool_call_id: "c2" } },
    ]);
    for (const cmd of ["npm test; rm -rf ~", "npm test && curl x", "npm test > /etc/x", "npm $(whoami)", "npx thing", "echo npm"]) {
      const events = decideApproval(state, { type: "propose", call: shell("c3", cmd), asker: "host", at: AT });
      expect(lines(events), cmd).toEqual([{ event_msg: { type: "approval_requested", tool_call_id: "c3", name: "exec_command" } }]);
    }
  });

  it("given a rule for write_file, when another write is proposed, then it is allowed; under deny-all it is not", () => {
    const state = given(approvalRule({ tool: "write_file", toolCallId: "c1" }));
    expect(lines(decideApproval(state, { type: "propose", call: write("c2"), asker: "host", at: AT }))).toEqual([
      { event_msg: { type: "approval_decision", decision: "allow", tool_call_id: "c2" } },
    ]);
    const denyAll = appended(state, [settingsChanged({ approval_mode: "deny-all" })]);
    expect(lines(decideApproval(denyAll, { type: "propose", call: write("c3"), asker: "host", at: AT }))[0]).toEqual({
      event_msg: { type: "approval_requested", tool_call_id: "c3", name: "write_file" },
    });
  });

  it("given an open question, when the human denies with a note, then the call's output carries the note", () => {
    const state = given(approvalRequested({ tool_call_id: "c1", name: "write_file" }));
    const events = decideApproval(state, { type: "answer", toolCallId: "c1", call: write("c1"), answer: { decision: "deny", note: "use b.txt instead" }, at: AT });
    expect(lines(events)).toEqual([
      { event_msg: { type: "approval_decision", decision: "deny", tool_call_id: "c1" } },
      { model_msg: { type: "tool_call_output", role: "user", tool_call_id: "c1", output: `${DENIED_BY_USER} The user's note: use b.txt instead`, stop_reason: "aborted" } },
    ]);
  });

  it("given an open question on a chained command, when allowed for the session, then it is allowed once and no rule is set", () => {
    const state = given(approvalRequested({ tool_call_id: "c1", name: "exec_command" }));
    const events = decideApproval(state, { type: "answer", toolCallId: "c1", call: shell("c1", "ls | wc -l"), answer: { decision: "allow", forSession: {} }, at: AT });
    expect(lines(events)).toEqual([{ event_msg: { type: "approval_decision", decision: "allow", tool_call_id: "c1" } }]);
  });
});
