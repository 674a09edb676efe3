/**
 * `penguin server` and `penguin web` as one function the CLI wires in (and src/main.ts runs
 * standalone): resolve the address (flag > PORT/HOST > 7364 / 127.0.0.1), start the server
 * on the data root, serve the web app for `web`, open the browser unless `--no-open`, then
 * run until SIGINT or SIGTERM and stop gracefully. Returns the exit code.
 *
 * When a live server already holds the root, `web` attaches to it (prints its URL, opens
 * the browser, exits 0) and `server` reports it and exits 1. Bad flags exit 2.
 */
import { fileURLToPath } from "node:url";
import { existsSync } from "node:fs";
import { delimiter, isAbsolute, resolve } from "node:path";
import { resolveRoot, type SleepFn } from "@penguin/core";
import { openBrowser } from "./process/open-browser.js";
import { ServerAlreadyRunningError } from "./process/server-lock.js";
import { DEFAULT_HOST, DEFAULT_PORT, startServer, type StartServerOptions } from "./start.js";

export interface ServerCommandOptions {
  root?: string | undefined;
  port?: string | number | undefined;
  host?: string | undefined;
  web: boolean;
  open: boolean;
  reindex: boolean;
  /** `--database postgres://…`: facts in PostgreSQL (else PENGUIN_DATABASE_URL, else facts.db). */
  database?: string | undefined;
  out: (line: string) => void;
  err: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  /** The built SPA; default: the web package's `dist/` next to this package. */
  webDir?: string;
  /** Ends the command like a signal would (tests, embedding). */
  stop?: AbortSignal;
  /** Replaces the browser launcher (tests). */
  openUrl?: (url: string) => void;
  sleep?: SleepFn;
  /** Folders under which workspaces may lie (else PENGUIN_WORKSPACE_ROOTS, path-delimiter separated). */
  workspaceRoots?: string[] | undefined;
  /** Extra host names to answer to (else PENGUIN_ALLOWED_HOSTS, comma separated). */
  allowedHosts?: string[] | undefined;
  /** Extra app seams, passed through to startServer. */
  app?: StartServerOptions["app"];
  /** `--no-sandbox` / `--sandbox-network`: the command sandbox of every session (default on, no network). */
  sandbox?: { enabled?: boolean; network?: boolean };
  /** `--otel-endpoint URL` / `--otel-contents`: live OpenTelemetry export (else the OTEL_EXPORTER_OTLP_* variables). */
  otel?: { endpoint?: string | undefined; contents?: boolean };
}

export function defaultWebDir(): string {
  return fileURLToPath(new URL("../../web/dist", import.meta.url));
}

/** The built documentation site served at /docs/ (apps/docs, from src/, dist/ and the CLI bundle alike). */
export function defaultDocsDir(): string {
  return fileURLToPath(new URL("../../docs/site/.vitepress/dist", import.meta.url));
}

export async function runServerCommand(options: ServerCommandOptions): Promise<number> {
  const env = options.env ?? process.env;
  const port = parsePort(options.port ?? env.PORT);
  if (port === "invalid") {
    options.err(`invalid port "${String(options.port ?? env.PORT)}": use a number from 0 to 65535`);
    return 2;
  }
  const host = options.host ?? (env.HOST !== undefined && env.HOST !== "" ? env.HOST : DEFAULT_HOST);
  const root = resolveRoot(options.root, env);
  const launch = options.openUrl ?? openBrowser;
  const webDir = options.web ? (options.webDir ?? defaultWebDir()) : undefined;

  let server;
  try {
    const start: StartServerOptions = { root, port: port ?? DEFAULT_PORT, host, env, out: options.out, reindex: options.reindex };
    if (webDir !== undefined) start.webDir = webDir;
    if (options.sleep !== undefined) start.sleep = options.sleep;
    // Bugs (500s) are reported on stderr: the library itself never prints them.
    start.app = {
      report: (e) => options.err(`internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`),
      workspaceRoots: absoluteRoots(options.workspaceRoots ?? listFromEnv(env.PENGUIN_WORKSPACE_ROOTS, delimiter)),
      allowedHosts: options.allowedHosts ?? listFromEnv(env.PENGUIN_ALLOWED_HOSTS, ","),
      ...(options.database === undefined ? {} : { database: options.database }),
      docsDir: defaultDocsDir(),
      ...options.app,
    };
    if (options.sandbox !== undefined) start.app.sandbox = { ...start.app.sandbox, ...options.sandbox };
    if (options.otel?.endpoint !== undefined || options.otel?.contents === true) {
      start.app.otel = { ...(options.otel.endpoint === undefined ? {} : { endpoint: options.otel.endpoint }), contents: options.otel.contents === true };
    }
    server = await startServer(start);
  } catch (error) {
    if (error instanceof ServerAlreadyRunningError) {
      if (!options.web) {
        options.err(`${error.message}. Stop it first, or use \`penguin web\` to open it.`);
        return 1;
      }
      options.out(`PenguinHarness is already running at ${error.url}`);
      if (options.open) launch(error.url);
      return 0;
    }
    options.err(`could not start the server: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }

  if (webDir !== undefined && !existsSync(webDir)) options.out(`(the web app is not built: ${webDir} does not exist; the API is served, and / explains how to build it)`);
  if (options.web && options.open) launch(server.url);

  await untilStopped(options.stop);
  options.out("shutting down: aborting running tasks and closing traces…");
  await server.close();
  return 0;
}

function parsePort(value: string | number | undefined): number | undefined | "invalid" {
  if (value === undefined || value === "") return undefined;
  const n = typeof value === "number" ? value : Number(value);
  return Number.isInteger(n) && n >= 0 && n <= 65535 ? n : "invalid";
}

function untilStopped(stop: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off("SIGINT", done);
      process.off("SIGTERM", done);
      stop?.removeEventListener("abort", done);
      resolve();
    };
    process.once("SIGINT", done);
    process.once("SIGTERM", done);
    if (stop?.aborted) done();
    else stop?.addEventListener("abort", done, { once: true });
  });
}

function listFromEnv(value: string | undefined, separator: string): string[] {
  return (value ?? "").split(separator).map((v) => v.trim()).filter((v) => v !== "");
}

/** Workspace roots as absolute paths (relative ones are taken from the current folder). */
export function absoluteRoots(dirs: readonly string[]): string[] {
  return dirs.map((d) => (isAbsolute(d) ? d : resolve(d)));
}
