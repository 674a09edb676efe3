// An independent reading of a trace for the resume properties: which turns it has committed.
// Written apart from src/trace/replay.ts on purpose (a window is committed when its
// `request_end` says completed; a completed compaction closes the context), so the fuzz
// properties and the crash test can check replay against something it does not share.
import type { OmniMessage } from "@penguin/omnimessage";

export interface Committed {
  texts: string[];
  callIds: string[];
  outputs: Map<string, string>;
}

/**
 * An independent reading of the newest trace file: the turns committed in its current
 * context (request windows outside compaction spans that ended `completed`, since the last
 * completed compaction), and every recorded tool output.
 */
export function committedTurns(messages: OmniMessage[]): Committed {
  let committed: { texts: string[]; callIds: string[] } = { texts: [], callIds: [] };
  let window: { texts: string[]; callIds: string[] } | undefined;
  let compacting = false;
  const outputs = new Map<string, string>();
  for (const m of messages) {
    if (m.type === "model_msg") {
      const p = m.payload;
      if (p.type === "tool_call_output") outputs.set(p.tool_call_id, p.output);
      else if (window !== undefined && !compacting && p.role === "assistant") {
        if (p.type === "text") window.texts.push(p.text);
        if (p.type === "tool_call") window.callIds.push(p.tool_call_id);
      }
      continue;
    }
    if (m.type !== "event_msg") continue;
    const e = m.payload;
    if (e.type === "compaction_begin") {
      compacting = true;
      window = undefined;
    } else if (e.type === "compaction_end") {
      compacting = false;
      if (e.status === "completed") committed = { texts: [], callIds: [] };
    } else if (!compacting && e.type === "request_begin") window = { texts: [], callIds: [] };
    else if (!compacting && e.type === "request_end") {
      if (e.status === "completed" && window !== undefined) {
        committed.texts.push(...window.texts);
        committed.callIds.push(...window.callIds);
      }
      window = undefined;
    }
  }
  return { ...committed, outputs };
}


/**
 * What the resumed context lost of the committed turns: a committed assistant text or tool
 * call missing from the history, or a recorded tool output replaced in what the next request
 * sends (history then carry-over). Empty when nothing was lost.
 */
export function lostTurns(committed: Committed, history: readonly OmniMessage[], carryOver: readonly OmniMessage[]): string[] {
  const problems: string[] = [];
  const texts = new Set<string>();
  const calls = new Set<string>();
  const sent = new Map<string, string>();
  for (const m of history) {
    if (m.type !== "model_msg") continue;
    if (m.payload.type === "text" && m.payload.role === "assistant") texts.add(m.payload.text);
    if (m.payload.type === "tool_call") calls.add(m.payload.tool_call_id);
  }
  for (const m of [...history, ...carryOver]) {
    if (m.type === "model_msg" && m.payload.type === "tool_call_output") sent.set(m.payload.tool_call_id, m.payload.output);
  }
  for (const t of committed.texts) if (!texts.has(t)) problems.push(`committed text lost from the history: ${t.slice(0, 60)}`);
  for (const id of committed.callIds) {
    if (!calls.has(id)) problems.push(`committed tool call ${id} lost from the history`);
    const recorded = committed.outputs.get(id);
    if (recorded !== undefined && sent.get(id) !== recorded) problems.push(`recorded output of ${id} replaced by ${JSON.stringify(sent.get(id))}`);
  }
  return problems;
}
