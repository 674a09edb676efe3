/**
 * Test helpers: a realistic session stream built with the protocol's own builders (one
 * human task, two requests, thinking, streamed text, a tool call with approval and
 * streamed output, usage), and a stand-in for the server's side of a reload: event ids,
 * and the history snapshot `GET /messages` would answer at a given cursor (trace-able
 * complete messages up to it, plus the fragments of the segments still open there).
 */
import {
  approvalDecision,
  assistantText,
  isPartial,
  isTraceable,
  modelMessage,
  requestBegin,
  requestEnd,
  thinking,
  tokenUsage,
  toolCall,
  toolCallOutput,
  userText,
  type OmniMessage,
  type PartialPayload,
} from "@penguin/omnimessage";

let clock = Date.parse("2026-07-18T03:10:00.000Z");
export function resetClock(): void {
  clock = Date.parse("2026-07-18T03:10:00.000Z");
}
export function at(): { at: string } {
  clock += 100;
  return { at: new Date(clock).toISOString() };
}

function partial(payload: PartialPayload): OmniMessage {
  return modelMessage(payload, at());
}

/** Streams `text` as start, deltas of `size` chars, stop, then the complete message. */
export function streamedText(text: string, size = 4): OmniMessage[] {
  const out: OmniMessage[] = [partial({ type: "partial_text", role: "assistant", event_type: "start", text: "" })];
  for (let i = 0; i < text.length; i += size) out.push(partial({ type: "partial_text", role: "assistant", event_type: "delta", text: text.slice(i, i + size) }));
  out.push(partial({ type: "partial_text", role: "assistant", event_type: "stop", text: "" }));
  out.push(assistantText(text, at()));
  return out;
}

export function streamedThinking(text: string, size = 5): OmniMessage[] {
  const out: OmniMessage[] = [partial({ type: "partial_thinking", role: "assistant", event_type: "start", thinking: "" })];
  for (let i = 0; i < text.length; i += size) out.push(partial({ type: "partial_thinking", role: "assistant", event_type: "delta", thinking: text.slice(i, i + size) }));
  out.push(partial({ type: "partial_thinking", role: "assistant", event_type: "stop", thinking: "" }));
  out.push(thinking(text, at()));
  return out;
}

export function streamedToolCall(id: string, name: string, args: string): OmniMessage[] {
  const out: OmniMessage[] = [partial({ type: "partial_tool_call", role: "assistant", event_type: "start", name, arguments: "", tool_call_id: id })];
  for (let i = 0; i < args.length; i += 6) out.push(partial({ type: "partial_tool_call", role: "assistant", event_type: "delta", name: "", arguments: args.slice(i, i + 6), tool_call_id: id }));
  out.push(partial({ type: "partial_tool_call", role: "assistant", event_type: "stop", name: "", arguments: "", tool_call_id: id }));
  out.push(toolCall({ name, arguments: args, tool_call_id: id }, at()));
  return out;
}

export function streamedToolOutput(id: string, output: string): OmniMessage[] {
  const out: OmniMessage[] = [partial({ type: "partial_tool_call_output", role: "user", event_type: "start", output: "", tool_call_id: id })];
  for (let i = 0; i < output.length; i += 7) out.push(partial({ type: "partial_tool_call_output", role: "user", event_type: "delta", output: output.slice(i, i + 7), tool_call_id: id }));
  out.push(partial({ type: "partial_tool_call_output", role: "user", event_type: "stop", output: "", tool_call_id: id }));
  out.push(toolCallOutput({ tool_call_id: id, output }, at()));
  return out;
}

const usage = (input: number, cached: number, output: number) => ({ cache_read: cached, cache_write: input - cached, output, total: input + output });

/** One task: thinking + a tool call needing approval + streamed output, then a markdown answer. */
export function taskScript(prompt = "Create hello.txt and tell me what you did"): OmniMessage[] {
  return [
    userText(prompt, at()),
    requestBegin(at()),
    ...streamedThinking("I should write the file with a shell command."),
    ...streamedText("Let me create it."),
    ...streamedToolCall("call_0", "exec_command", JSON.stringify({ cmd: "printf hi > hello.txt" })),
    requestEnd("completed", undefined, at()),
    tokenUsage(usage(1200, 800, 60), usage(1200, 800, 60), at()),
    approvalDecision("allow", "call_0", at()),
    ...streamedToolOutput("call_0", "[no output]\nexit code 0"),
    requestBegin(at()),
    ...streamedText("Done: **hello.txt** now contains `hi`.\n\n| file | size |\n| --- | --- |\n| hello.txt | 2 |"),
    requestEnd("completed", undefined, at()),
    tokenUsage(usage(2600, 2000, 40), usage(1400, 1200, 40), at()),
  ];
}

export interface Published {
  id: string;
  message: OmniMessage;
}

/**
 * Ids as the server gives them: a trace record takes the next line (`001:<line>`, from
 * `firstLine`); anything else is the k-th follower of the last record (`001:<line>.<epoch>.<k>`).
 */
export function publish(messages: readonly OmniMessage[], epoch = "ep1", firstLine = 1): Published[] {
  let line = firstLine - 1;
  let k = 0;
  const at = (n: number) => `001:${String(n).padStart(6, "0")}`;
  return messages.map((message) => {
    if (isTraceable(message)) {
      line += 1;
      k = 0;
      return { id: at(line), message };
    }
    k += 1;
    return { id: `${at(line)}.${epoch}.${k}`, message };
  });
}

function keyOf(m: OmniMessage, p: PartialPayload): string {
  const id = "tool_call_id" in p ? p.tool_call_id : "";
  return `${(m.origin ?? []).join("/")}|${p.type}::${id}`;
}

/** What `GET /messages` answers when the newest published event is `events[upTo - 1]` (upTo = 0: none). */
export function historyAt(events: readonly Published[], upTo: number, running: boolean) {
  const messages: OmniMessage[] = [];
  const open = new Map<string, OmniMessage[]>();
  for (const e of events.slice(0, upTo)) {
    const m = e.message;
    if (isPartial(m)) {
      const key = keyOf(m, m.payload);
      if (m.payload.event_type === "stop") open.delete(key);
      else if (m.payload.event_type === "start" || !open.has(key)) {
        open.delete(key);
        open.set(key, [m]);
      } else open.get(key)?.push(m);
    } else if (isTraceable(m)) messages.push(m);
  }
  const cursor = upTo === 0 ? null : (events[upTo - 1]?.id ?? null);
  return {
    messages,
    live: running && cursor !== null ? { cursor, fragments: [...open.values()].flat() } : null,
    cursor,
    state: running ? ("running" as const) : ("idle" as const),
    pendingApprovals: [],
  };
}
