/**
 * `penguin sessions`: the agent's sessions, most recently active first (20 unless `--all`),
 * one row each, fitting 100 columns (or the terminal's width): id, start, status, cost and the
 * title cut to fit; `--wide` adds the model and the workspace, `--json` prints every field.
 * The columns: id, start time, model, status (done / aborted / failed / running?), cost
 * (its requests, subagents' included, × the model's prices now; n/a when unpriced), workspace
 * and the title (the one its trace records: since the CLI records one at the first task, the
 * first prompt's fallback title; older sessions show their first prompt). Read from the sessions and usage projections, caught up
 * with the traces first, so the list is what the traces say and nothing else.
 */
import { homedir } from "node:os";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { localTime, shorten } from "../render/format.js";
import { Output } from "../render/output.js";
import { readProjections } from "../projections/open-projections.js";
import { pathsOf, pricingResolver, type AgentSelector } from "../traces/load-session.js";

type ShownStatus = "done" | "aborted" | "failed" | "running?" | "empty";

export interface SessionsFlags extends AgentSelector {
  all?: boolean;
  limit: number;
  /** Every column, however wide (the default fits 100 columns or the terminal). */
  wide?: boolean;
  /** One JSON object: the total and every field of each listed session. */
  json?: boolean;
}

function tildePath(path: string): string {
  const home = homedir();
  return home !== "" && path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

export async function sessionsCommand(flags: SessionsFlags): Promise<ExitCode> {
  const paths = await pathsOf(flags);
  const out = Output.of(process.stdout);
  const c = out.colors;
  const priceOf = await pricingResolver(paths);
  const [{ listSessions, countSessions }, { queryUsage }] = await Promise.all([import("@penguin/projections-sessions"), import("@penguin/projections-usage")]);
  const scope = { projectId: paths.projectId, agentId: paths.agentId };
  const { shown, total, costs } = await readProjections(paths.root, async (store) => {
    const shown = await listSessions(store.db, flags.all === true ? scope : { ...scope, limit: flags.limit });
    const total = await countSessions(store.db, scope);
    const usage = await queryUsage(store.db, scope, "session", (_p, provider, modelId) => priceOf(provider, modelId));
    return { shown, total, costs: new Map(usage.rows.map((r) => [r.key, r.costText])) };
  });
  const listed: ListedSession[] = shown.map((s) => ({
    id: s.session_id,
    started: new Date(s.created_at).toISOString(),
    provider: s.provider,
    modelId: s.model_id,
    status: s.status === "running" ? "running?" : s.status,
    cost: costs.get(s.session_id) ?? "$0.00",
    workspace: s.workspace,
    title: s.title,
  }));
  if (flags.json === true) {
    out.line(JSON.stringify({ total, sessions: listed }));
    return EXIT.done;
  }
  if (total === 0) {
    out.line(`no sessions yet in ${paths.tracesDir}`);
    return EXIT.done;
  }
  const table = flags.wide === true ? wideTable(listed) : narrowTable(listed, out.isTTY && process.stdout.columns > 0 ? process.stdout.columns : NARROW_WIDTH);
  const widths = table.header.map((h, i) => Math.max(h.length, ...table.rows.map((r) => (r[i] ?? "").length)));
  const format = (cells: string[], paint: (i: number, padded: string) => string): string =>
    cells
      .map((cell, i) => paint(i, i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  out.line(format(table.header, (_i, cell) => c.bold(cell)));
  for (const row of table.rows) {
    const status = row[table.statusColumn];
    out.line(format(row, (i, cell) => (i === table.statusColumn && isStatus(status) ? colorStatus(status, cell, c) : cell)));
  }
  if (shown.length < total) out.line(c.dim(`(${total - shown.length} older sessions not shown; --all lists every session)`));
  if (flags.wide !== true) out.line(c.dim("(--wide adds the model and workspace, --json everything)"));
  return EXIT.done;
}

/** One listed session, as --json prints it and the tables pick from. */
interface ListedSession {
  id: string;
  started: string;
  provider: string | null;
  modelId: string | null;
  status: string;
  cost: string;
  workspace: string | null;
  title: string | null;
}

interface Table {
  header: string[];
  rows: string[][];
  statusColumn: number;
}

/** The width the default table keeps to when stdout is not a terminal (a pipe, a file, a test). */
export const NARROW_WIDTH = 100;
const MIN_TITLE = 12;

/** Every column (the list as it was before it had to fit 100 columns). */
function wideTable(listed: readonly ListedSession[]): Table {
  return {
    header: ["ID", "STARTED", "MODEL", "STATUS", "COST", "WORKSPACE", "TITLE"],
    rows: listed.map((s) => [
      s.id,
      localTime(s.started),
      s.provider !== null ? `${s.provider}/${s.modelId ?? "?"}` : "?",
      s.status,
      s.cost,
      s.workspace !== null ? tildePath(s.workspace) : "?",
      s.title !== null ? shorten(s.title, 48) : "",
    ]),
    statusColumn: 3,
  };
}

/**
 * The default: id (whole, since every command takes it as is), start (month-day and time: the
 * year is in the id), status, cost and the title cut to what is left of `width`.
 */
function narrowTable(listed: readonly ListedSession[], width: number): Table {
  const header = ["ID", "STARTED", "STATUS", "COST", "TITLE"];
  const rows = listed.map((s) => [s.id, localTime(s.started).slice(5), s.status, s.cost]);
  const used = [0, 1, 2, 3].reduce((sum, i) => sum + Math.max(header[i]!.length, ...rows.map((r) => r[i]!.length)) + 2, 0);
  const room = Math.max(MIN_TITLE, width - used);
  return { header, rows: rows.map((r, i) => [...r, shorten(listed[i]!.title ?? "", room)]), statusColumn: 2 };
}

function isStatus(v: string | undefined): v is ShownStatus {
  return v === "done" || v === "aborted" || v === "failed" || v === "running?" || v === "empty";
}

function colorStatus(status: ShownStatus, cell: string, c: Output["colors"]): string {
  switch (status) {
    case "done":
      return c.green(cell);
    case "failed":
      return c.red(cell);
    case "aborted":
    case "running?":
      return c.yellow(cell);
    case "empty":
      return c.dim(cell);
  }
}
