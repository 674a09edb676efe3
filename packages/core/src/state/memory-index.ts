/**
 * Caps for a memory index before it enters the system prompt: at most 200 lines, then at most
 * 25,000 characters (SPEC §6), applied in that order. When anything is cut, a note says so
 * and tells the model how much there was, so it knows to read MEMORY.md itself and to tidy it.
 * Pure.
 */
export const MEMORY_INDEX_MAX_LINES = 200;
export const MEMORY_INDEX_MAX_CHARS = 25_000;

export interface CappedIndex {
  text: string;
  cut: boolean;
}

export function capMemoryIndex(index: string, maxLines = MEMORY_INDEX_MAX_LINES, maxChars = MEMORY_INDEX_MAX_CHARS): CappedIndex {
  const trimmed = index.replace(/\s+$/, "");
  const lines = trimmed === "" ? [] : trimmed.split(/\r?\n/);
  let text = lines.slice(0, maxLines).join("\n");
  const notes: string[] = [];
  if (lines.length > maxLines) notes.push(`the first ${maxLines} of ${lines.length} lines`);
  if (text.length > maxChars) {
    const cutAt = text.lastIndexOf("\n", maxChars);
    text = text.slice(0, cutAt > 0 ? cutAt : maxChars);
    notes.push(`${notes.length > 0 ? "then " : ""}the first ${text.length} of ${trimmed.length} characters`);
  }
  if (notes.length === 0) return { text, cut: false };
  return {
    text: `${text}\n[MEMORY.md was cut: showing ${notes.join(", ")}. Read the file for the rest, and shorten the index by merging or removing entries.]`,
    cut: true,
  };
}
