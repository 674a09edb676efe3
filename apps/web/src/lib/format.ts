/**
 * Number, time and money formatting shared by the stats line, the usage page and the trace
 * views, plus the one cost rule the client applies (for a live task, before the server's
 * usage figures exist): Σ tokens × USD-per-million price over cache read, cache write
 * (uncached input) and output; `undefined` when a bucket with tokens has no price, so an
 * unpriced model never looks free.
 */
import type { TokenCounts } from "@penguin/omnimessage";
import type { Pricing } from "../api/types";

export function formatTokens(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}

/** A byte count for people: 31.5 MB, 812 KB, 96 bytes. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  if (bytes >= 1e3) return `${Math.round(bytes / 1e3)} KB`;
  return `${bytes} bytes`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = Math.floor(s / 60);
  const rest = Math.round(s - m * 60);
  if (m < 60) return `${m}m ${rest}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

export function formatCost(usd: number | undefined): string {
  if (usd === undefined) return "—";
  if (usd === 0) return "$0";
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  if (usd < 1) return `$${usd.toFixed(3)}`;
  return `$${usd.toFixed(2)}`;
}

export function formatRate(tokensPerSecond: number | undefined): string {
  return tokensPerSecond === undefined || !Number.isFinite(tokensPerSecond) ? "—" : `${tokensPerSecond.toFixed(1)} tok/s`;
}

export function formatDateTime(ms: number): string {
  if (ms <= 0) return "";
  return new Date(ms).toLocaleString(undefined, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

export function relativeTime(ms: number, now = Date.now()): string {
  if (ms <= 0) return "";
  const d = Math.max(0, now - ms);
  if (d < 60_000) return "just now";
  if (d < 3_600_000) return `${Math.floor(d / 60_000)} min ago`;
  if (d < 86_400_000) return `${Math.floor(d / 3_600_000)} h ago`;
  return new Date(ms).toLocaleDateString();
}

export function costOf(tokens: TokenCounts, pricing: Pricing | undefined): number | undefined {
  const parts: [number, number | undefined][] = [
    [tokens.cache_read, pricing?.cacheRead],
    [tokens.cache_write, pricing?.cacheWrite],
    [tokens.output, pricing?.output],
  ];
  let sum = 0;
  for (const [n, price] of parts) {
    if (n === 0) continue;
    if (price === undefined) return undefined;
    sum += (n * price) / 1_000_000;
  }
  return sum;
}
