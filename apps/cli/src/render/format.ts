/**
 * Number, time and money formats shared by every human-readable line (stats, session lists,
 * trace summaries), so the same quantity always reads the same way: `12.3k` tokens, `4.2s`,
 * `$0.0123`.
 */

export function compactNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const abs = Math.abs(n);
  if (abs < 1000) return String(Math.round(n));
  if (abs < 1_000_000) return `${trim(n / 1000)}k`;
  return `${trim(n / 1_000_000)}M`;
}

function trim(x: number): string {
  return (Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(1)).replace(/\.0$/, "");
}

export function duration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.floor((ms % 60_000) / 1000);
  if (minutes < 60) return `${minutes}m${String(seconds).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, "0")}m`;
}

/** USD with enough digits to show small runs; `n/a` when the model has no prices. */
export function usd(amount: number | undefined): string {
  if (amount === undefined) return "n/a";
  if (amount === 0) return "$0.00";
  return amount < 0.1 ? `$${amount.toFixed(4)}` : `$${amount.toFixed(2)}`;
}

/** Cut to `max` characters on one line, marking the cut with an ellipsis. */
export function shorten(text: string, max: number): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length <= max ? one : `${one.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
}

/** A local `YYYY-MM-DD HH:mm` for an ISO timestamp (or the raw text when unreadable). */
export function localTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number): string => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}
