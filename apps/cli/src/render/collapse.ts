/**
 * Long tool outputs, shortened for the terminal: more than 9 lines show the first 4, a
 * `… N more lines` marker and the last 4 (SPEC §8). The head shows what started, the tail
 * shows how it ended (exit codes, the last error), which is what a reader scans for.
 * `/verbose` in chat (and `--verbose` in run) shows everything.
 */
export const COLLAPSE_ABOVE = 9;
export const KEEP_HEAD = 4;
export const KEEP_TAIL = 4;

export type CollapsedLine = { kind: "line"; text: string } | { kind: "more"; hidden: number };

export function collapseLines(text: string, full = false): CollapsedLine[] {
  const lines = text.replace(/\n+$/, "").split("\n");
  if (full || lines.length <= COLLAPSE_ABOVE) return lines.map((l) => ({ kind: "line", text: l }));
  const hidden = lines.length - KEEP_HEAD - KEEP_TAIL;
  return [
    ...lines.slice(0, KEEP_HEAD).map((l): CollapsedLine => ({ kind: "line", text: l })),
    { kind: "more", hidden },
    ...lines.slice(-KEEP_TAIL).map((l): CollapsedLine => ({ kind: "line", text: l })),
  ];
}

export function moreLinesMarker(hidden: number): string {
  return `… ${hidden} more line${hidden === 1 ? "" : "s"}`;
}
