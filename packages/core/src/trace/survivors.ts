/**
 * The Human input a compaction carries from one trace file to the next. Kept apart from the
 * resume fold (replay.ts) so resume and fork-at-any-record share it without touching the fold.
 */
import type { OmniMessage } from "@penguin/omnimessage";
import { readTraceFileTail } from "@penguin/trace";
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

/** The first window read off a closed file's end: its compaction and what precedes it are nearly always within it. */
const FIRST_TAIL_BYTES = 256 << 10;

/**
 * `survivorsOfClosedContext` of a closed trace file, reading only as much of its end as the
 * answer needs: the closing compaction is at the file's end, so the survivors are found in
 * its last lines; the window grows (up to the whole file) while it cannot tell (no
 * compaction_begin in it yet, or survivors running into its first line).
 */
export function survivorsOfClosedFile(file: string): OmniMessage[] {
  for (let bytes = FIRST_TAIL_BYTES; ; bytes *= 8) {
    const tail = readTraceFileTail(file, bytes);
    if (tail.fromStart) return survivorsOfClosedContext(tail.messages);
    const begin = tail.messages.findLastIndex((m) => m.type === "event_msg" && m.payload.type === "compaction_begin");
    if (begin < 0) continue;
    const survivors = survivorsOfClosedContext(tail.messages);
    // Survivors reaching the window's first line may go on before it.
    if (survivors.length < begin) return survivors;
  }
}

/** `messages` of a rotated file with the survivors of the previous one placed before its first request. */
export function withSurvivors(messages: readonly OmniMessage[], survivors: readonly OmniMessage[]): OmniMessage[] {
  if (survivors.length === 0) return [...messages];
  const first = messages.findIndex((m) => m.type !== "session_meta" && !(m.type === "event_msg" && m.payload.type === "tool_list_ready"));
  const at = first < 0 ? messages.length : first;
  return [...messages.slice(0, at), ...survivors, ...messages.slice(at)];
}
