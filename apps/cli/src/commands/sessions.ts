/**
 * `penguin sessions`: the agent's sessions, most recently active first (20 unless `--all`),
 * one row each: id, start time, model, status (done / aborted / failed / running?), cost
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
  if (total === 0) {
    out.line(`no sessions yet in ${paths.tracesDir}`);
    return EXIT.done;
  }
  const rows: string[][] = shown.map((s) => [
    s.session_id,
    localTime(new Date(s.created_at).toISOString()),
    s.provider !== null ? `${s.provider}/${s.model_id ?? "?"}` : "?",
    s.status === "running" ? "running?" : s.status,
    costs.get(s.session_id) ?? "$0.00",
    s.workspace !== null ? tildePath(s.workspace) : "?",
    s.title !== null ? shorten(s.title, 48) : "",
  ]);
  const header = ["ID", "STARTED", "MODEL", "STATUS", "COST", "WORKSPACE", "TITLE"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const format = (cells: string[], paint: (i: number, padded: string) => string): string =>
    cells
      .map((cell, i) => paint(i, i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  out.line(format(header, (_i, cell) => c.bold(cell)));
  for (const row of rows) {
    const status = row[3];
    out.line(format(row, (i, cell) => (i === 3 && isStatus(status) ? colorStatus(status, cell, c) : cell)));
  }
  if (shown.length < total) out.line(c.dim(`(${total - shown.length} older sessions not shown; --all lists every session)`));
  return EXIT.done;
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
