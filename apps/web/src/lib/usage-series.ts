/**
 * From the usage API's buckets to chart series: bucket keys are the server's local calendar
 * (`YYYY-MM-DDTHH:MM`, `YYYY-MM-DDTHH:00`, `YYYY-MM-DD`, `YYYY-MM`), parsed here as local
 * time (a bare `YYYY-MM-DD` would be UTC to `Date.parse`), and missing buckets inside the
 * range are filled with zeros so a quiet hour shows as zero rather than a line across it.
 */
import type { Granularity, UsageRow } from "../api/types";

export function bucketTime(key: string): number | undefined {
  const m = /^(\d{4})-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2}))?)?$/.exec(key);
  if (m === null) return undefined;
  const [, y, mo, d, h, mi] = m;
  return new Date(Number(y), Number(mo) - 1, d === undefined ? 1 : Number(d), h === undefined ? 0 : Number(h), mi === undefined ? 0 : Number(mi)).getTime();
}

function floorTo(t: number, g: Granularity): number {
  const d = new Date(t);
  switch (g) {
    case "minute":
      d.setSeconds(0, 0);
      break;
    case "hour":
      d.setMinutes(0, 0, 0);
      break;
    case "day":
      d.setHours(0, 0, 0, 0);
      break;
    case "week": {
      d.setHours(0, 0, 0, 0);
      const back = (d.getDay() + 6) % 7;
      d.setDate(d.getDate() - back);
      break;
    }
    case "month":
      d.setHours(0, 0, 0, 0);
      d.setDate(1);
      break;
  }
  return d.getTime();
}

function next(t: number, g: Granularity): number {
  const d = new Date(t);
  if (g === "minute") d.setMinutes(d.getMinutes() + 1);
  else if (g === "hour") d.setHours(d.getHours() + 1);
  else if (g === "day") d.setDate(d.getDate() + 1);
  else if (g === "week") d.setDate(d.getDate() + 7);
  else d.setMonth(d.getMonth() + 1);
  return d.getTime();
}

export interface SeriesPoint {
  t: number;
  row: UsageRow | undefined;
}

/** Every bucket from `from` to `to` (ms), each with its row if the server had one; capped at 2000 points. */
export function fillBuckets(rows: readonly UsageRow[], granularity: Granularity, from: number, to: number): SeriesPoint[] {
  const byTime = new Map<number, UsageRow>();
  for (const r of rows) {
    const t = bucketTime(r.key);
    if (t !== undefined) byTime.set(t, r);
  }
  const out: SeriesPoint[] = [];
  for (let t = floorTo(from, granularity); t <= to && out.length < 2000; t = next(t, granularity)) out.push({ t, row: byTime.get(t) });
  for (const [t, row] of byTime) if (!out.some((p) => p.t === t)) out.push({ t, row });
  return out.sort((a, b) => a.t - b.t);
}

/** A sensible bucket size for a time range. */
export function granularityFor(rangeMs: number): Granularity {
  const hour = 3_600_000;
  if (rangeMs <= 3 * hour) return "minute";
  if (rangeMs <= 3 * 24 * hour) return "hour";
  if (rangeMs <= 120 * 24 * hour) return "day";
  return "week";
}
