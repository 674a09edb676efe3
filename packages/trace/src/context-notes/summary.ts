/**
 * Reading a compaction summary out of the model's reply, and writing the
 * `[context_summary]` text that opens the next context.
 *
 * The model is asked to answer inside `[summary]…[/summary]`. Models drift, so the reader
 * falls back: the last summary block, else the reply with any marker tags stripped, else
 * the whole reply. An empty result means the attempt failed.
 */
import { extractLastMarker, findMarkers, wrapMarker } from "@penguin/omnimessage";

export function extractSummary(reply: string): string {
  const block = extractLastMarker(reply, "summary");
  if (block !== undefined && block.trim() !== "") return block.trim();
  let stripped = reply;
  for (const b of findMarkers(reply).reverse()) stripped = stripped.slice(0, b.start) + b.body + stripped.slice(b.end);
  stripped = stripped.replace(/\[\/?summary\]/g, "").trim();
  return stripped !== "" ? stripped : reply.trim();
}

/** The user text placed before the first input of a fresh context. */
export function contextSummaryText(summary: string): string {
  return wrapMarker("context_summary", summary);
}
