// The tool-call pairing invariant, checked on what the next request would send (history then
// carry-over): every tool_call is followed by exactly one tool_call_output with its id before
// the next assistant message that is not itself a tool call of the same turn, and no output
// answers a call that is not open. Stricter than the testkit's check (which accepts a result
// anywhere later), because providers reject a result that arrives after the next turn.
// Shared by the trace fuzz properties and the crash test, so both judge resume the same way.
import type { OmniMessage } from "@penguin/omnimessage";

/** Problems found, one readable line each; empty when the sequence is sound. */
export function pairingProblems(messages: readonly OmniMessage[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  let open = new Map<string, number>();
  let inAssistantTurn = false;
  const closeTurn = (at: number) => {
    for (const [id, callAt] of open) problems.push(`tool_call ${id} (message #${callAt}) has no output before message #${at}`);
    open = new Map();
  };
  messages.forEach((m, at) => {
    if (m.type !== "model_msg") return;
    const p = m.payload;
    if (p.type.startsWith("partial_")) {
      problems.push(`partial ${p.type} in the history (message #${at})`);
      return;
    }
    if (p.role === "assistant") {
      // A new assistant turn starts after user-side messages: every call before it must be answered.
      if (!inAssistantTurn) closeTurn(at);
      inAssistantTurn = true;
      if (p.type === "tool_call") {
        if (seen.has(p.tool_call_id)) problems.push(`tool_call id ${p.tool_call_id} used twice (message #${at})`);
        seen.add(p.tool_call_id);
        open.set(p.tool_call_id, at);
      }
      return;
    }
    inAssistantTurn = false;
    if (p.type === "tool_call_output") {
      if (!open.has(p.tool_call_id)) problems.push(`tool_call_output ${p.tool_call_id} (message #${at}) answers no open call`);
      open.delete(p.tool_call_id);
    }
  });
  closeTurn(messages.length);
  return problems;
}
