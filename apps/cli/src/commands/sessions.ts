/**
 * `penguin sessions`: the agent's sessions, most recently active first (20 unless `--all`),
 * one row each: id, start time, model, status (done / aborted / failed / running?), cost
 * (the trace's token usage × the model's prices, n/a when unpriced), workspace and the first
 * prompt cut short. Everything comes from the traces, the only record of a session.
 */
import { homedir } from "node:os";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { costUsd } from "@penguin/models";
import { localTime, shorten, usd } from "../render/format.js";
import { Output } from "../render/output.js";
import { loadSessionTrace, pathsOf, pricingResolver, type AgentSelector } from "../traces/load-session.js";
import { summarizeTrace, type SessionStatus } from "@penguin/core";

export interface SessionsFlags extends AgentSelector {
  all?: boolean;
  limit: number;
}

function tildePath(path: string): string {
  const home = homedir();
  return home !== "" && path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

export async function sessionsCommand(flags: SessionsFlags): Promise<ExitCode> {
  const { listTracedSessions } = await import("@penguin/core");
  const paths = await pathsOf(flags);
  const out = Output.of(process.stdout);
  const c = out.colors;
  const all = listTracedSessions(paths);
  if (all.length === 0) {
    out.line(`no sessions yet in ${paths.tracesDir}`);
    return EXIT.done;
  }
  const shown = flags.all === true ? all : all.slice(0, flags.limit);
  const priceOf = await pricingResolver(paths);
  const rows: string[][] = [];
  for (const s of shown) {
    const loaded = await loadSessionTrace(paths, s.sessionId);
    const summary = summarizeTrace(loaded?.messages ?? []);
    const meta = summary.meta;
    const pricing = meta === undefined ? undefined : priceOf(meta.provider, meta.model_id);
    const firstPrompt = summary.tasks.find((t) => t.prompt !== undefined)?.prompt;
    rows.push([
      s.sessionId,
      summary.startedAt !== undefined ? localTime(summary.startedAt) : "?",
      meta !== undefined ? `${meta.provider}/${meta.model_id}` : "?",
      summary.status,
      usd(costUsd(summary.usage, pricing)),
      meta !== undefined ? tildePath(meta.workspace) : "?",
      firstPrompt !== undefined ? shorten(firstPrompt, 48) : "",
    ]);
  }
  const header = ["ID", "STARTED", "MODEL", "STATUS", "COST", "WORKSPACE", "FIRST PROMPT"];
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
  if (shown.length < all.length) out.line(c.dim(`(${all.length - shown.length} older sessions not shown; --all lists every session)`));
  return EXIT.done;
}

function isStatus(v: string | undefined): v is SessionStatus {
  return v === "done" || v === "aborted" || v === "failed" || v === "running?" || v === "empty";
}

function colorStatus(status: SessionStatus, cell: string, c: Output["colors"]): string {
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
