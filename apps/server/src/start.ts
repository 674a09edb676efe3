/**
 * startServer: the server on a real socket, for one data root.
 *
 * Takes `<root>/server.lock` (throwing ServerAlreadyRunningError when a live server holds
 * it) when the facts live in SQLite: one server per facts.db. With `--database postgres://…`
 * (or PENGUIN_DATABASE_URL) several nodes share the root and no server.lock is taken: each node
 * registers itself in PostgreSQL instead (cluster/node-registry.ts). Then it assembles the app, listens (port 0 picks a free one), writes the port into the lock,
 * and prints the framed startup notice through `out`. `close()` is the graceful stop: stop
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
import { isPostgresUrl } from "./db/dialect.js";
import { acquireServerLock, serverUrl, type ServerLock } from "./process/server-lock.js";

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
  /**
   * With PostgreSQL facts: the URL other nodes reach this one at to forward session writes
   * (else PENGUIN_ADVERTISE_URL, else the listening address).
   */
  advertiseUrl?: string;
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
  const clustered = isPostgresUrl(options.app?.database ?? env.PENGUIN_DATABASE_URL ?? "");
  const lock: Pick<ServerLock, "setPort" | "release"> = clustered ? noLock : await acquireServerLock(root, host, options.now === undefined ? {} : { now: options.now });
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
    const cluster = built.context.cluster;
    // Other nodes forward session writes here: the operator's address for this node, else the listening one.
    cluster?.advertise(options.advertiseUrl ?? env.PENGUIN_ADVERTISE_URL ?? url);
    const out = options.out;
    if (out !== undefined) {
      for (const line of startupNotice({ url, root, password: built.initialPassword, passwordFile: initialPasswordPath(root), web: options.webDir !== undefined, sandbox: built.context.sandbox })) out(line);
      if (cluster !== undefined) out(`cluster node ${cluster.nodeId} (lease ${cluster.leaseMs / 1000} s), reached by other nodes at ${options.advertiseUrl ?? env.PENGUIN_ADVERTISE_URL ?? url}`);
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

/** With PostgreSQL facts, nodes share the root: nothing to lock, nothing to release. */
const noLock: Pick<ServerLock, "setPort" | "release"> = { setPort: () => undefined, release: () => undefined };

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
