// A scripted session's records (turns with tools, failures, aborts, steering, a compaction now
// and then), deterministic by seed: the input of the resume-snapshot tests, written as a file
// or through the real writer.
import {
  abortEvent,
  approvalDecision,
  approvalRequested,
  assistantText,
  compactionBegin,
  compactionEnd,
  requestBegin,
  requestEnd,
  sessionMeta,
  sessionTitle,
  settingsChanged,
  steeringQueued,
  thinking,
  tokenUsage,
  toolCall,
  toolCallOutput,
  userText,
  type OmniMessage,
} from "@penguin/omnimessage";

export const meta = sessionMeta({ session_id: "session-2026-12-01-09-00-00-0123abcd", provider: "p", model_id: "m", model_context_window: 100_000, system_prompt: "sys", agent_state: "/a", workspace: "/w" });

/** A deterministic PRNG (mulberry32), so a failing seed can be replayed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Records of a scripted session: turns with tools, failures, aborts, steering, a compaction now and then. */
export function scriptedSession(seed: number, turns: number): OmniMessage[] {
  const random = prng(seed);
  const out: OmniMessage[] = [meta, settingsChanged({ approval_mode: "ask", thinking_level: "medium" })];
  let total = 0;
  let call = 0;
  for (let n = 0; n < turns; n++) {
    const roll = random();
    out.push(requestBegin());
    if (n === 0 || random() < 0.2) out.push(userText(`task ${n}`));
    out.push(thinking(`thought ${n}`), assistantText(`answer ${n} ✓ ünïcødé`));
    const calls = Math.floor(random() * 3);
    const ids: string[] = [];
    for (let c = 0; c < calls; c++) {
      const id = `call_${seed}_${call++}`;
      ids.push(id);
      out.push(toolCall({ name: c === 0 ? "read_file" : "exec_command", arguments: JSON.stringify({ file_path: `f${n}.ts`, cmd: "ls" }), tool_call_id: id }));
      if (random() < 0.3) out.push(approvalRequested({ tool_call_id: id, name: "exec_command" }));
      out.push(approvalDecision("allow", id));
    }
    if (roll < 0.08) {
      out.push(requestEnd("failed"));
      continue;
    }
    if (roll < 0.14) {
      out.push(abortEvent());
      out.push(requestEnd("aborted"));
      continue;
    }
    out.push(requestEnd("completed"));
    total += 100 + n;
    out.push(tokenUsage({ cache_read: total, cache_write: 0, output: 10, total }, { cache_read: 100 + n, cache_write: 0, output: 10, total: 100 + n }));
    // Some outputs never arrive (a placeholder opens the next request).
    for (const id of ids) if (random() < 0.85) out.push(toolCallOutput({ tool_call_id: id, output: `output of ${id}\n`.repeat(1 + Math.floor(random() * 4)) }));
    if (random() < 0.1) out.push(steeringQueued(`s${n}`, `steer ${n}`));
    if (random() < 0.05) out.push(sessionTitle(`title ${n}`));
    if (random() < 0.03) {
      out.push(compactionBegin({ reason: "context", mode: "summarize", context: total, turns: n }), requestBegin(), assistantText(`<summary>so far ${n}</summary>`), requestEnd("completed"));
      out.push(compactionEnd({ reason: "context", mode: "summarize", status: random() < 0.7 ? "completed" : "failed" }));
    }
  }
  // A window a crash left open: its input is pending in the fold.
  out.push(requestBegin(), userText("last words"), assistantText("cut"));
  return out;
}

