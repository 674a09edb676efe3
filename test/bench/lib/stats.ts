// Figures and how they are summarised: every figure is a list of samples reduced to its
// median with the min and max beside it, optionally compared with a baseline measured in the
// same run (ratio = median / baseline median). Shared by every row, by run.ts (the table and
// latest.json) and by compare.ts, so all three read one shape.

export interface Summary {
  median: number;
  min: number;
  max: number;
  n: number;
}

/** One printed figure. `better` says which direction is an improvement (for compare.ts). */
export interface Metric {
  name: string;
  unit: string;
  better: "lower" | "higher";
  value: Summary;
  baseline?: { name: string; value: Summary };
  /** value.median / baseline.median, when there is a baseline. */
  ratio?: number;
  /** The goal as text, from the issue; printed, never asserted. */
  goal?: string;
}

export interface RowResult {
  row: number;
  title: string;
  metrics: Metric[];
  /** Why the row has no figures, or a caveat to print under it. */
  note?: string;
}

export interface BenchReport {
  startedAt: string;
  node: string;
  platform: string;
  cpus: number;
  loadavg: number[];
  rows: RowResult[];
}

export function summarize(samples: number[]): Summary {
  if (samples.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN, n: 0 };
  const s = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { median, min: s[0]!, max: s[s.length - 1]!, n: s.length };
}

export function metric(name: string, unit: string, better: Metric["better"], samples: number[], extra: { baseline?: { name: string; samples: number[] }; goal?: string } = {}): Metric {
  const value = summarize(samples);
  const m: Metric = { name, unit, better, value };
  if (extra.baseline !== undefined) {
    const base = summarize(extra.baseline.samples);
    m.baseline = { name: extra.baseline.name, value: base };
    m.ratio = value.median / base.median;
  }
  if (extra.goal !== undefined) m.goal = extra.goal;
  return m;
}

/** Milliseconds since `start` (a `process.hrtime.bigint()` reading). */
export function msSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** A number with about three significant digits. */
export function num(v: number): string {
  if (!Number.isFinite(v)) return "n/a";
  const a = Math.abs(v);
  if (a >= 1000) return Math.round(v).toLocaleString("en-US");
  if (a >= 100) return v.toFixed(0);
  if (a >= 10) return v.toFixed(1);
  if (a >= 1) return v.toFixed(2);
  return v.toFixed(3);
}

export function formatSummary(s: Summary, unit: string): string {
  return `${num(s.median)} ${unit} [${num(s.min)}–${num(s.max)}]`;
}
