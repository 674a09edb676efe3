/**
 * Secrets on screen: `sk-…abcd`, never the whole value. At most the first three characters
 * (which name the key's kind, like `sk-`) and the last four (to tell two keys apart) are
 * shown, and short values are hidden entirely, so a listing can be pasted into an issue.
 */
export function maskSecret(value: string): string {
  if (value.length < 12) return "****";
  return `${value.slice(0, 3)}…${value.slice(-4)}`;
}
