/**
 * The two compaction rules that both the live engine and the reducer apply, kept in one place
 * so the model sees the same context whichever of them built it: which input survives a
 * compaction, and the note that replaces a discarded context.
 */
import type { OmniMessage } from "@penguin/omnimessage";

export const DISCARDED_NOTE = "The earlier context was discarded to make room; continue the task from the recorded activity below.";

/**
 * What the Human wrote survives a compaction (user-side messages other than tool outputs and
 * harness notes); tool outputs and harness notes answer calls of the closing context and are
 * consumed by it.
 */
export function survivesCompaction(m: OmniMessage): boolean {
  if (m.type !== "model_msg") return false;
  const p = m.payload;
  if (p.role !== "user" || p.type === "tool_call_output") return false;
  return !(p.type === "text" && p.sender === "harness");
}
