/**
 * The Human input a compaction carries from one trace file to the next. Kept apart from the
 * resume fold (replay.ts) so resume and fork-at-any-record share it without touching the fold.
 */
import type { OmniMessage } from "@penguin/omnimessage";
import { survivesCompaction } from "../engine/compaction.js";

/**
 * What the Human wrote right before the compaction that closed a context: the engine records
 * it in the closing file (so a failed compaction keeps it), and it opens the next context
 * right after the summary. Resuming (or forking) from the next file must carry it: placed
 * ahead of that file's first request, the resume fold (replay.ts) puts it after the summary, as live.
 */
export function survivorsOfClosedContext(closedFile: readonly OmniMessage[]): OmniMessage[] {
  let i = closedFile.length - 1;
  while (i >= 0) {
    const m = closedFile[i]!;
    if (m.type === "event_msg" && m.payload.type === "compaction_begin") break;
    i--;
  }
  const out: OmniMessage[] = [];
  for (let j = i - 1; j >= 0; j--) {
    const m = closedFile[j]!;
    if (m.origin !== undefined || !survivesCompaction(m)) break;
    out.unshift(m);
  }
  return out;
}

/** `messages` of a rotated file with the survivors of the previous one placed before its first request. */
export function withSurvivors(messages: readonly OmniMessage[], survivors: readonly OmniMessage[]): OmniMessage[] {
  if (survivors.length === 0) return [...messages];
  const first = messages.findIndex((m) => m.type !== "session_meta" && !(m.type === "event_msg" && m.payload.type === "tool_list_ready"));
  const at = first < 0 ? messages.length : first;
  return [...messages.slice(0, at), ...survivors, ...messages.slice(at)];
}
