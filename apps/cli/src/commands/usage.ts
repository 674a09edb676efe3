/**
 * `penguin usage [--since 7d] [--by day|model|agent|session] [--json]`: tokens and cost of a
 * project from the usage projection (caught up first, so sessions run by the CLI count).
 * Cost is priced now, from the project's model entries, else the preset catalog, and written
 * by the one formatter every surface uses (`costText`). `--since` takes an age (`30m`, `24h`,
 * `7d`, `2w`) or a local date (`YYYY-MM-DD`); event time decides, never file times.
 */
import { EXIT, type ExitCode } from "../exit-codes.js";
import { UsageError } from "../cli-error.js";
import { createJsonLines } from "../io/json-lines.js";
import { compactNumber } from "../render/format.js";
import { Output } from "../render/output.js";
import { readProjections } from "../projections/open-projections.js";
import { pathsOf, pricingResolver } from "../traces/load-session.js";

export interface UsageFlags {
  root?: string;
  projectId?: string;
  agentId?: string;
  since?: string;
  by?: string;
  json?: boolean;
}

const BY = ["day", "model", "agent", "session"] as const;
type By = (typeof BY)[number];
const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** The start of the window, ms since the epoch; undefined for all time. */
export function sinceToMs(since: string | undefined, now: number): number | undefined {
  if (since === undefined) return undefined;
  const age = /^(\d+)([mhdw])$/.exec(since.trim());
  if (age !== null) return now - Number(age[1]) * UNIT_MS[age[2]!]!;
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(since.trim());
  if (date !== null) {
    const d = new Date(Number(date[1]), Number(date[2]) - 1, Number(date[3]));
    if (!Number.isNaN(d.getTime())) return d.getTime();
  }
  throw new UsageError(`--since "${since}" is not understood: give an age like 30m, 24h, 7d or 2w, or a local date YYYY-MM-DD`);
}

function byOf(value: string | undefined): By {
  const by = value ?? "day";
  if ((BY as readonly string[]).includes(by)) return by as By;
  throw new UsageError(`--by "${by}" is not one of ${BY.join(", ")}`);
}

export async function usageCommand(flags: UsageFlags): Promise<ExitCode> {
  const by = byOf(flags.by);
  const fromTs = sinceToMs(flags.since, Date.now());
  const paths = await pathsOf(flags);
  const priceOf = await pricingResolver(paths);
  const { queryUsage } = await import("@penguin/projections-usage");
  const report = await readProjections(paths.root, (store) =>
    queryUsage(store.db, { projectId: paths.projectId, agentId: flags.agentId, fromTs }, by, (_project, provider, modelId) => priceOf(provider, modelId)),
  );
  if (flags.json === true) {
    createJsonLines(process.stdout, () => undefined).write({ projectId: paths.projectId, since: fromTs === undefined ? null : new Date(fromTs).toISOString(), ...report });
    return EXIT.done;
  }
  const out = Output.of(process.stdout);
  if (report.rows.length === 0) {
    out.line(`no usage in ${paths.projectId}${flags.since !== undefined ? ` since ${flags.since}` : ""}`);
    return EXIT.done;
  }
  const header = [by.toUpperCase(), "REQUESTS", "FAILED", "INPUT", "CACHED", "OUTPUT", "TOTAL", "COST"];
  const line = (key: string, r: (typeof report)["totals"]) => [
    key,
    String(r.requests),
    String(r.failures),
    compactNumber(r.cacheRead + r.cacheWrite),
    compactNumber(r.cacheRead),
    compactNumber(r.output),
    compactNumber(r.total),
    r.costText,
  ];
  const cells = [header, ...report.rows.map((r) => line(r.key, r)), line("total", report.totals)];
  const widths = header.map((_h, i) => Math.max(...cells.map((c) => (c[i] ?? "").length)));
  const c = out.colors;
  cells.forEach((row, n) => {
    const text = row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join("  ");
    out.line(n === 0 || n === cells.length - 1 ? c.bold(text) : text);
  });
  return EXIT.done;
}
