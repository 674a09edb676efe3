/**
 * `penguin server` and `penguin web`: the resident HTTP + SSE server (and, for `web`, the
 * built web app). The behaviour lives in @penguin/server's `runServerCommand`; this file only
 * maps flags and streams its lines to the terminal. The server package is imported here, on
 * demand, so the rest of the CLI never pays for express and SQLite.
 */
import { EXIT, type ExitCode } from "../exit-codes.js";

export interface ServerFlags {
  root?: string;
  port?: string;
  host?: string;
  open?: boolean;
  reindex?: boolean;
  database?: string;
  /** false with `--no-sandbox`. */
  sandbox?: boolean;
  sandboxNetwork?: boolean;
  workspaceRoot?: string[];
  allowedHost?: string[];
  otelEndpoint?: string;
  otelContents?: boolean;
}

function toExit(code: number): ExitCode {
  return code === 0 ? EXIT.done : code === 2 ? EXIT.usage : EXIT.failed;
}

export async function serverCommand(flags: ServerFlags, web: boolean): Promise<ExitCode> {
  const { runServerCommand } = await import("@penguin/server");
  const code = await runServerCommand({
    root: flags.root,
    port: flags.port,
    host: flags.host,
    web,
    open: web && flags.open !== false,
    reindex: flags.reindex === true,
    database: flags.database,
    sandbox: { enabled: flags.sandbox !== false, network: flags.sandboxNetwork === true },
    workspaceRoots: flags.workspaceRoot,
    allowedHosts: flags.allowedHost,
    otel: { endpoint: flags.otelEndpoint, contents: flags.otelContents === true },
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  });
  return toExit(code);
}

/** `penguin server migrate-db --to postgres://…`: facts.db into an empty PostgreSQL database. */
export async function migrateDbCommand(flags: { to: string; root?: string }): Promise<ExitCode> {
  const { moveFactsToPostgres, MoveRefusedError } = await import("@penguin/server");
  const { resolveRoot } = await import("@penguin/core");
  const root = resolveRoot(flags.root, process.env);
  try {
    const report = await moveFactsToPostgres(root, flags.to);
    for (const [table, rows] of Object.entries(report.copied)) process.stdout.write(`${table}: ${rows} row(s)\n`);
    process.stdout.write(`done: start every server on ${root} with --database <the same URL>; facts.db is left as it was (a backup).\n`);
    return EXIT.done;
  } catch (error) {
    process.stderr.write(`migrate-db: ${error instanceof Error ? error.message : String(error)}\n`);
    return error instanceof MoveRefusedError ? EXIT.usage : EXIT.failed;
  }
}
