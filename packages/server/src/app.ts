/**
 * createServerApp: assembles the server from its layers, without listening on a socket
 * (tests drive it with `app.request()`; start.ts puts it on a port).
 *
 * Order of assembly: the data root and `facts.db` (migrated, `web.db` of older roots becoming
 * it); the projections' live runner over `projections.db` (`reindex` rebuilds it from every
 * trace first); the seeded admin and `default_project`; the trace scan that indexes CLI
 * sessions (`reindex` rebuilds it from scratch); the runtime (event ids for this process's
 * epoch, user feeds, session manager, scheduler, preview-token key); then HTTP: security headers on every answer, and on `/api/*` the write
 * guard (JSON + same origin), the cookie authentication, and every resource's routes through
 * one route table (authorization, validation, OpenAPI). Anything else is the web app.
 * Errors from anywhere become `{error:{code, message}}` in http/error-response.ts.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { Hono } from "hono";
import { DEFAULT_PROJECT, resolveRoot, type SleepFn } from "@penguin/core";
import { AccessPolicy } from "./auth/access.js";
import { ADMIN_USER, ensureAdmin } from "./auth/admin-seed.js";
import { authenticate } from "./auth/authenticate.js";
import { LoginService, type LoginLimits } from "./auth/login-service.js";
import { writeGuard } from "./auth/write-guard.js";
import { openDatabase } from "./db/database.js";
import { factsDatabaseFile } from "./db/facts-file.js";
import { createStores } from "./db/stores.js";
import { ApiError } from "./http/api-error.js";
import type { AppEnv } from "./http/app-env.js";
import { errorResponse } from "./http/error-response.js";
import { RouteTable, type DescribedRoute } from "./http/route-table.js";
import { realTicker, type Ticker } from "./runtime/clock.js";
import { Scheduler } from "./runtime/scheduler.js";
import { IDLE_EVICTION_MS, SessionManager } from "./runtime/session-manager.js";
import { EventIds } from "./runtime/sse-channel.js";
import { UserEventHub } from "./runtime/user-events.js";
import { registerRoutes } from "./routes/index.js";
import type { ServerContext } from "./server-context.js";
import { PreviewTokens } from "./services/preview-tokens.js";
import { ensureProject } from "./services/projects.js";
import { readServerSettings } from "./services/server-settings.js";
import { indexTraces } from "./services/session-index.js";
import { followTracedSessions, startProjections } from "./services/projections.js";
import { webAppHandler } from "./web/static-site.js";

export interface ServerAppOptions {
  /** The data root (`--root` > PENGUIN_HOME > ~/.penguin/data when empty). */
  root: string;
  env?: NodeJS.ProcessEnv;
  /** Core's reconnect wait; tests inject one that does not sleep. */
  sleep?: SleepFn;
  now?: () => number;
  /** Periodic work (SSE pings, idle eviction); tests inject a ManualTicker. */
  ticker?: Ticker;
  /** SSE ping interval, default 20 s. */
  pingMs?: number;
  /** Idle time before a session is unloaded, default 30 min. */
  idleMs?: number;
  /** Out-of-band titles after the first turn (default true; else the prompt is the title). */
  generateTitles?: boolean;
  loginLimits?: LoginLimits;
  /** A built SPA to serve at `/`. */
  webDir?: string;
  /** Model gateway fetch (tests, proxies). */
  fetch?: typeof fetch;
  /** Rebuild the projections and the sessions index from the traces instead of updating them. */
  reindex?: boolean;
  /** How often the projections look for trace changes without a file-system event (default 1 s). */
  projectionsPollMs?: number;
  /** Run schedule files on the ticker (default true). */
  schedules?: boolean;
  /** Where errors that are bugs go (never printed by the library itself). */
  report?: (error: unknown) => void;
}

export interface ServerApp {
  app: Hono<AppEnv>;
  context: ServerContext;
  routes: readonly DescribedRoute[];
  /** The admin's initial password while it is unchanged: the startup notice shows it. */
  initialPassword: string | undefined;
  /** Stops runs (with carry-over), disposes sessions, closes streams and the database. */
  close(): Promise<void>;
}

export async function createServerApp(options: ServerAppOptions): Promise<ServerApp> {
  const env = options.env ?? process.env;
  const root = resolveRoot(options.root, env);
  const now = options.now ?? Date.now;
  const report = options.report ?? (() => undefined);
  mkdirSync(root, { recursive: true });

  const db = openDatabase(factsDatabaseFile(root));
  let projections;
  try {
    projections = await startProjections(root, { reindex: options.reindex === true, report, ...(options.projectionsPollMs !== undefined ? { pollIntervalMs: options.projectionsPollMs } : {}) });
  } catch (error) {
    db.close();
    throw error;
  }
  const stores = createStores(db, projections);
  let initialPassword: string | undefined;
  try {
    initialPassword = await ensureAdmin(stores, root, now());
    await ensureProject(root, stores, { projectId: DEFAULT_PROJECT, ownerUserId: ADMIN_USER, name: null }, now());
    indexTraces(root, stores, { full: options.reindex === true, owner: ADMIN_USER, now: now() });
    followTracedSessions(projections, stores, now);
  } catch (error) {
    await projections.stop();
    db.close();
    throw error;
  }

  const ids = new EventIds(`${now().toString(36)}${randomBytes(3).toString("hex")}`);
  const access = new AccessPolicy(stores, root);
  const userEvents = new UserEventHub(ids, (projectId) => access.audience(projectId));
  const ticker = options.ticker ?? realTicker;
  const sessions = new SessionManager({
    root,
    stores,
    ids,
    userEvents,
    env,
    sleep: options.sleep,
    fetch: options.fetch,
    now,
    ticker,
    idleMs: options.idleMs ?? IDLE_EVICTION_MS,
    generateTitles: options.generateTitles ?? true,
    attachmentLimits: () => readServerSettings(stores.settings),
    report,
  });
  const scheduler = new Scheduler({ root, stores, sessions, userEvents, now, ticker, report });
  const context: ServerContext = {
    root,
    stores,
    projections,
    access,
    login: new LoginService(stores, now, options.loginLimits),
    sessions,
    userEvents,
    ids,
    now,
    ticker,
    pingMs: options.pingMs ?? 20_000,
    env,
    fetch: options.fetch,
    version: serverVersion(),
    previews: new PreviewTokens(now),
    scheduler,
    report,
  };

  const app = new Hono<AppEnv>();
  app.use("*", async function securityHeaders(c, next) {
    await next();
    const h = c.res.headers;
    if (!h.has("x-content-type-options")) h.set("x-content-type-options", "nosniff");
    if (!h.has("x-frame-options")) h.set("x-frame-options", "SAMEORIGIN");
    if (!h.has("referrer-policy")) h.set("referrer-policy", "same-origin");
  });
  app.use("/api/*", writeGuard());
  app.use("/api/*", authenticate({ stores, now }));
  const table = new RouteTable(app, access);
  registerRoutes(table, context);
  if (options.schedules !== false) scheduler.start();
  const web = webAppHandler(options.webDir);
  app.notFound((c) => {
    if (!c.req.path.startsWith("/api/") && c.req.path !== "/api") return web(c);
    const error = c.get("user") === undefined ? new ApiError(401, "unauthorized", "sign in first") : new ApiError(404, "not_found", `no route ${c.req.method} ${c.req.path}`);
    return errorResponse(error, report);
  });
  app.onError((error) => errorResponse(error, report));

  let closing: Promise<void> | undefined;
  return {
    app,
    context,
    routes: table.routes,
    initialPassword,
    close() {
      closing ??= (async () => {
        scheduler.stop();
        await sessions.shutdown();
        userEvents.closeAll();
        await projections.stop();
        db.close();
      })();
      return closing;
    },
  };
}

function serverVersion(): { version: string; buildDate: string | null } {
  try {
    const pkg: unknown = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    const version = typeof pkg === "object" && pkg !== null && "version" in pkg && typeof pkg.version === "string" ? pkg.version : "0.0.0";
    return { version, buildDate: null };
  } catch {
    return { version: "0.0.0", buildDate: null };
  }
}
