/**
 * A one-line summary of a tool call's arguments for the card header: the argument that
 * says what the call does (a command, a path, a pattern, a URL…), else the first short
 * string value. The arguments are a JSON string that may still be streaming (incomplete):
 * then the raw text is shortened instead.
 */
const KEY_FIELDS = ["cmd", "command", "path", "file_path", "filePath", "pattern", "query", "url", "name", "task", "prompt", "description"];

function shorten(s: string, max: number): string {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

export function summarizeArgs(args: string, max = 120): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    return shorten(args, max);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return shorten(String(parsed), max);
  const entries = Object.entries(parsed);
  for (const key of KEY_FIELDS) {
    const hit = entries.find(([k]) => k === key);
    if (hit === undefined) continue;
    const v = hit[1];
    if (typeof v === "string" && v !== "") return shorten(v, max);
    if (Array.isArray(v) && v.every((x) => typeof x === "string")) return shorten(v.join(" "), max);
  }
  const firstString = entries.find(([, v]) => typeof v === "string" && v !== "");
  if (firstString !== undefined && typeof firstString[1] === "string") return shorten(`${firstString[0]}: ${firstString[1]}`, max);
  return shorten(args, max);
}

/** Pretty-printed arguments for the expanded card (raw text when not valid JSON yet). */
export function prettyArgs(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args;
  }
}
