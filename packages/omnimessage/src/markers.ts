/**
 * System markers: tagged blocks the harness writes into user-role texts so the model (and a
 * renderer) can tell harness-authored content from what a human typed.
 *
 * Canonical form is `[tag]\n…\n[/tag]`. Older traces used `<tag>…</tag>`; readers accept both,
 * writers only produce the bracket form. Only the known tags below are recognised, so ordinary
 * text such as a markdown `[link]` is never mistaken for a marker.
 *
 * Some blocks carry structured fields as `key: value` lines (`formatFields` / `parseFields`).
 * Attachments are one-liners: `[attached image: <path>]`, `[attached file: <path>]`.
 */

export const MARKER_TAGS = [
  "turn_aborted",
  "turn_retried",
  "context_summary",
  "summary",
  "user_steering",
  "goal",
  "use_skills",
  "handoff_from",
  "scheduled_task",
  "background_task_done",
  "model_switch_from",
  "developer_instructions",
] as const;

export type MarkerTag = (typeof MARKER_TAGS)[number];

export interface MarkerBlock {
  tag: MarkerTag;
  body: string;
  /** Offset of the opening tag in the searched text. */
  start: number;
  /** Offset just past the closing tag. */
  end: number;
  legacy: boolean;
}

const TAG_ALTERNATION = MARKER_TAGS.join("|");
const BLOCK_RE = new RegExp(
  `\\[(${TAG_ALTERNATION})\\]\\n?([\\s\\S]*?)\\n?\\[\\/\\1\\]|<(${TAG_ALTERNATION})>\\n?([\\s\\S]*?)\\n?<\\/\\3>`,
  "g",
);

/** Wrap a body in a marker block. */
export function wrapMarker(tag: MarkerTag, body: string): string {
  return `[${tag}]\n${body}\n[/${tag}]`;
}

/**
 * Every marker block in `text`, in order of appearance. Blocks do not nest. The one shared
 * expression is run with `exec` (`matchAll` would clone it per call, and on a large heap the
 * clone's compiled code is often gone: ~0.3 ms for an eight-character text), and a text with
 * no bracket of either kind is not searched at all.
 */
export function findMarkers(text: string): MarkerBlock[] {
  const out: MarkerBlock[] = [];
  if (!text.includes("[") && !text.includes("<")) return out;
  BLOCK_RE.lastIndex = 0;
  for (let m = BLOCK_RE.exec(text); m !== null; m = BLOCK_RE.exec(text)) {
    const legacy = m[1] === undefined;
    out.push({
      tag: (legacy ? m[3] : m[1]) as MarkerTag,
      body: (legacy ? m[4] : m[2]) ?? "",
      start: m.index,
      end: m.index + m[0].length,
      legacy,
    });
  }
  BLOCK_RE.lastIndex = 0;
  return out;
}

/** The body of the first block with this tag, or undefined. */
export function extractMarker(text: string, tag: MarkerTag): string | undefined {
  return findMarkers(text).find((b) => b.tag === tag)?.body;
}

/** The body of the last block with this tag, or undefined (a summary may be restated). */
export function extractLastMarker(text: string, tag: MarkerTag): string | undefined {
  const blocks = findMarkers(text).filter((b) => b.tag === tag);
  return blocks[blocks.length - 1]?.body;
}

/** True if the text starts with a block of this tag (leading whitespace ignored). */
export function startsWithMarker(text: string, tag: MarkerTag): boolean {
  // Only a text opening with this tag can: most texts are told apart without a search.
  const lead = text.trimStart();
  if (!lead.startsWith(`[${tag}]`) && !lead.startsWith(`<${tag}>`)) return false;
  const first = findMarkers(text)[0];
  return first !== undefined && first.tag === tag && text.slice(0, first.start).trim() === "";
}

/** `key: value` lines; values are single-line (newlines become spaces). Undefined values are skipped. */
export function formatFields(fields: Record<string, string | number | boolean | undefined>): string {
  return Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}: ${String(v).replace(/\r?\n/g, " ")}`)
    .join("\n");
}

/** Reads `key: value` lines; other lines are ignored. Later keys win. */
export function parseFields(body: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of body.split("\n")) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*):\s?(.*)$/.exec(line);
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

export function attachedImageLine(path: string): string {
  return `[attached image: ${path}]`;
}

export function attachedFileLine(path: string): string {
  return `[attached file: ${path}]`;
}

/** The attachment one-liners found in a text. */
export function findAttachments(text: string): { kind: "image" | "file"; path: string }[] {
  const out: { kind: "image" | "file"; path: string }[] = [];
  for (const m of text.matchAll(/\[attached (image|file): ([^\]\n]+)\]/g)) {
    out.push({ kind: m[1] as "image" | "file", path: m[2]! });
  }
  return out;
}
