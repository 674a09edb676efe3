/**
 * `penguin sessions --watch` and `penguin usage --watch`: after the usual listing, follow the
 * read models and print a line each time a session row or the project's usage totals change.
 *
 * With a server reachable (--server, else the one on the data root) and PENGUIN_PASSWORD set,
 * this is a client of the user feed `/api/events` (its `session_row`, `usage_totals` and
 * `projection_snapshot` events, resumed by position after a dropped connection). Otherwise it
 * says so and follows the local traces itself: the projections database on the data root,
 * caught up with the traces every half second (and whenever a trace folder changes), the same
 * rows the server would announce. Sessions run by the CLI, the SDK or a server show up either
 * way. Ctrl-C stops watching.
 */
import { watch, type FSWatcher } from "node:fs";
import type { AgentPaths } from "@penguin/core";
import { EXIT, type ExitCode } from "../exit-codes.js";
import type { SseEvent } from "../attach/sse-reader.js";
import { detachOnSigint, followStream, pause, serverBase, signIn } from "../attach/server-feed.js";
import { compactNumber, localTime, shorten } from "../render/format.js";
import { Output } from "../render/output.js";
import { openProjections } from "../projections/open-projections.js";
import { pathsOf, pricingResolver } from "../traces/load-session.js";

export interface WatchFlags {
  root?: string;
  projectId?: string;
  agentId?: string;
  server?: string;
  user?: string;
}

/** A session row as both sources give it (the server's `session_row`, the local projection). */
export interface WatchedRow {
  sessionId: string;
  projectId: string;
  agentId: string;
  title: string | null;
  provider: string | null;
  modelId: string | null;
  status: string;
  requests: number;
  tokens: number;
  lastEventAt: number;
}

export interface WatchedTotals {
  requests: number;
  total: number;
  costText?: string;
}

type What = "sessions" | "usage";

export async function watchCommand(what: What, flags: WatchFlags, env: NodeJS.ProcessEnv = process.env): Promise<ExitCode> {
  const out = Output.of(process.stdout, env);
  const err = Output.of(process.stderr, env);
  const paths = await pathsOf(flags);
  const printer = new ChangePrinter(what, paths, out);
  const base = await serverBase({ server: flags.server, root: paths.root }, env);
  const password = env.PENGUIN_PASSWORD;
  const detach = detachOnSigint();
  try {
    if (base !== undefined && password !== undefined && password !== "") {
      const userId = flags.user ?? "admin";
      let cookie: string;
      try {
        cookie = await signIn(base, userId, password);
      } catch (error) {
        err.line(error instanceof Error ? error.message : String(error));
        return EXIT.auth;
      }
      out.line(out.colors.dim(`watching the ${what} of ${paths.projectId} on ${base} (Ctrl-C stops)`));
      const end = await followStream(base, "/api/events", cookie, (e) => printer.serverEvent(e), detach.signal);
      if (end === "forbidden") {
        err.line(`${userId} must change the initial password in the web app before watching`);
        return EXIT.auth;
      }
    } else {
      const why = base === undefined ? "no server is reachable" : `a server runs at ${base}, but PENGUIN_PASSWORD is not set`;
      out.line(out.colors.dim(`${why}: watching the ${what} of ${paths.projectId} from the local traces and projections under ${paths.root} (Ctrl-C stops)`));
      await followLocal(paths, printer, detach.signal);
    }
  } finally {
    detach.release();
  }
  out.line(out.colors.dim("stopped watching"));
  return EXIT.done;
}

/** Prints what changed since the last line, whichever source it came from. */
class ChangePrinter {
  readonly #rows = new Map<string, string>();
  #totals: string | undefined;

  constructor(
    readonly what: What,
    readonly paths: AgentPaths,
    readonly out: Output,
  ) {}

  /** Remember without printing (the listing above already shows them). */
  seed(rows: WatchedRow[], totals: WatchedTotals | undefined): void {
    for (const r of rows) this.#rows.set(r.sessionId, JSON.stringify(r));
    if (totals !== undefined) this.#totals = JSON.stringify(totals);
  }

  row(r: WatchedRow): void {
    if (this.what !== "sessions" || r.projectId !== this.paths.projectId || r.agentId !== this.paths.agentId) return;
    const text = JSON.stringify(r);
    const seen = this.#rows.get(r.sessionId);
    if (seen === text) return;
    this.#rows.set(r.sessionId, text);
    const c = this.out.colors;
    const model = r.provider !== null ? `${r.provider}/${r.modelId ?? "?"}` : "?";
    const status = r.status === "running" ? "running" : r.status;
    this.out.line(`${localTime(new Date(r.lastEventAt).toISOString())}  ${seen === undefined ? c.bold("new") : "upd"}  ${r.sessionId}  ${status}  ${model}  ${r.requests} req  ${compactNumber(r.tokens)} tok  ${shorten(r.title ?? "", 48)}`.trimEnd());
  }

  totals(projectId: string, t: WatchedTotals): void {
    if (this.what !== "usage" || projectId !== this.paths.projectId) return;
    const text = JSON.stringify({ requests: t.requests, total: t.total, costText: t.costText });
    if (this.#totals === text) return;
    this.#totals = text;
    this.out.line(`${localTime(new Date().toISOString())}  usage of ${projectId}: ${t.requests} requests, ${compactNumber(t.total)} tokens, ${t.costText ?? "n/a"}`);
  }

  serverEvent(e: SseEvent): void {
    if (e.event !== "server_event") return;
    const ev = JSON.parse(e.data) as { type?: string; session?: WatchedRow; projectId?: string; totals?: WatchedTotals; sessions?: WatchedRow[]; usage?: { projectId: string; totals: WatchedTotals }[] };
    if (ev.type === "session_row" && ev.session !== undefined) this.row(ev.session);
    else if (ev.type === "usage_totals" && ev.projectId !== undefined && ev.totals !== undefined) this.totals(ev.projectId, ev.totals);
    else if (ev.type === "projection_snapshot") {
      for (const r of ev.sessions ?? []) this.row(r);
      for (const u of ev.usage ?? []) this.totals(u.projectId, u.totals);
    } else if (ev.type === "resync_required") this.out.line(this.out.colors.dim("[resync] the server cannot say what was missed; watching from here"));
  }
}

async function followLocal(paths: AgentPaths, printer: ChangePrinter, signal: AbortSignal): Promise<void> {
  const [{ listSessions }, { queryUsage }, { traceDirectories, isBusy }] = await Promise.all([import("@penguin/projections-sessions"), import("@penguin/projections-usage"), import("@penguin/projections-runner")]);
  const priceOf = await pricingResolver(paths);
  const store = await openProjections(paths.root);
  const watchers = new Map<string, FSWatcher>();
  let wake: (() => void) | undefined;
  const look = async (): Promise<{ rows: WatchedRow[]; totals: WatchedTotals }> => {
    // Another process (a run, the other watcher, a server) may hold the file for a moment: a
    // watcher waits for it instead of stopping on "database is locked".
    for (let wait = 20; ; wait = Math.min(wait * 2, 500)) {
      try {
        return await lookOnce();
      } catch (error) {
        if (!isBusy(error) || signal.aborted) throw error;
        await pause(wait, signal);
      }
    }
  };
  const lookOnce = async (): Promise<{ rows: WatchedRow[]; totals: WatchedTotals }> => {
    await store.catchUp();
    const listed = await listSessions(store.db, { projectId: paths.projectId, agentId: paths.agentId });
    const report = await queryUsage(store.db, { projectId: paths.projectId }, "agent", (_p, provider, modelId) => priceOf(provider, modelId));
    const rows = listed.map((s) => ({
      sessionId: s.session_id,
      projectId: s.project_id,
      agentId: s.agent_id,
      title: s.title,
      provider: s.provider,
      modelId: s.model_id,
      status: s.status,
      requests: Number(s.requests),
      tokens: Number(s.tokens),
      lastEventAt: Number(s.last_event_at),
    }));
    return { rows, totals: { requests: report.totals.requests, total: report.totals.total, costText: report.totals.costText } };
  };
  const follow = () => {
    for (const dir of traceDirectories(paths.root)) {
      if (watchers.has(dir)) continue;
      try {
        watchers.set(dir, watch(dir, { persistent: false }, () => wake?.()));
      } catch {
        // not watchable: the timer covers it
      }
    }
  };
  try {
    const first = await look();
    printer.seed(first.rows, first.totals);
    follow();
    while (!signal.aborted) {
      await Promise.race([pause(500, signal), new Promise<void>((resolve) => (wake = resolve))]);
      if (signal.aborted) break;
      const now = await look();
      for (const r of [...now.rows].reverse()) printer.row(r);
      printer.totals(paths.projectId, now.totals);
      follow();
    }
  } finally {
    for (const w of watchers.values()) w.close();
    await store.close();
  }
}
