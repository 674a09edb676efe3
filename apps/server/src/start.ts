/**
 * startServer: the server on a real socket, for one data root.
 *
 * Takes `<root>/server.lock` (throwing ServerAlreadyRunningError when a live server holds
 * it; not with a PostgreSQL `--database`, where several nodes share one root), assembles
 * the app, listens (port 0 picks a free one), writes the port into the lock, and prints the framed startup notice through `out`. `close()` is the graceful stop: stop
 * accepting, abort running tasks with their carry-over and dispose sessions (traces closed),
 * close every open stream, wait up to the grace period for answers in flight to finish,
 * then close every remaining connection (an SSE client never closes on its own, and
 * `server.close()` would wait for it forever), close the database, release the lock.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolveRoot, type SleepFn } from "@penguin/core";
import { createServerApp, type ServerAppOptions } from "./app.js";
import { initialPasswordPath } from "./auth/initial-password.js";
import { startupNotice } from "./process/notice.js";
import { ensureDataRootWritable } from "./process/data-root-check.js";
import { acquireServerLock, serverUrl } from "./process/server-lock.js";
import { isPostgresUrl } from "./db/dialect.js";

export const DEFAULT_PORT = 7364;
export const DEFAULT_HOST = "127.0.0.1";

export interface StartServerOptions {
  root: string;
  port?: number;
  host?: string;
  /** Serve a built SPA at `/` when given. */
  webDir?: string;
  env?: NodeJS.ProcessEnv;
  /** Core's reconnect wait (tests inject one that does not sleep). */
  sleep?: SleepFn;
  now?: () => number;
  /** Where the startup notice goes, one line per call. */
  out?: (line: string) => void;
  /** Rebuild the sessions index from the traces. */
  reindex?: boolean;
  /** How long shutdown waits for answers in flight before closing their sockets; default 2 s. */
  shutdownGraceMs?: number;
  /** The rest of the app's seams (ticker, titles, limits, reporter, model fetch). */
  app?: Omit<ServerAppOptions, "root" | "env" | "sleep" | "now" | "webDir" | "reindex">;
}

export interface RunningServer {
  url: string;
  port: number;
  root: string;
  close(): Promise<void>;
}

export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const env = options.env ?? process.env;
  const root = resolveRoot(options.root, env);
  const host = options.host ?? DEFAULT_HOST;
  ensureDataRootWritable(root);
  // With PostgreSQL, several nodes serve one data root (a cluster): the one-server lock is for facts.db only.
  const clustered = isPostgresUrl(options.app?.database ?? env.PENGUIN_DATABASE_URL ?? "");
  const lock = clustered ? undefined : await acquireServerLock(root, host, options.now === undefined ? {} : { now: options.now });
  let server: Server | undefined;
  let closeApp: (() => Promise<void>) | undefined;
  try {
    const appOptions: ServerAppOptions = { ...options.app, root, env };
    if (options.sleep !== undefined) appOptions.sleep = options.sleep;
    if (options.now !== undefined) appOptions.now = options.now;
    if (options.webDir !== undefined) appOptions.webDir = options.webDir;
    if (options.reindex !== undefined) appOptions.reindex = options.reindex;
    const built = await createServerApp(appOptions);
    closeApp = built.close;
    const srv = createServer(built.app);
    server = srv;
    const port = await listen(srv, options.port ?? DEFAULT_PORT, host);
    lock?.setPort(port, host);
    const url = serverUrl(host, port);
    const out = options.out;
    if (out !== undefined) {
      for (const line of startupNotice({ url, root, password: built.initialPassword, passwordFile: initialPasswordPath(root), web: options.webDir !== undefined, sandbox: built.context.sandbox })) out(line);
    }
    let closing: Promise<void> | undefined;
    return {
      url,
      port,
      root,
      close() {
        closing ??= (async () => {
          const stopped = new Promise<void>((resolve) => srv.close(() => resolve()));
          await built.close();
          srv.closeIdleConnections();
          await closeWithinGrace(srv, stopped, options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS);
          lock?.release();
        })();
        return closing;
      },
    };
  } catch (error) {
    server?.close();
    await closeApp?.();
    lock?.release();
    throw error;
  }
}

export const DEFAULT_SHUTDOWN_GRACE_MS = 2000;

/** Waits for the server to stop by itself, or at most `graceMs`; then cuts every remaining connection. */
async function closeWithinGrace(server: Server, stopped: Promise<void>, graceMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, graceMs);
  });
  await Promise.race([stopped, grace]);
  clearTimeout(timer);
  server.closeAllConnections();
  await stopped;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      const address = server.address();
      if (address === null || typeof address === "string") reject(new Error("the server has no TCP address"));
      else resolve((address satisfies AddressInfo).port);
    });
  });
}
