/**
 * createServerApp: assembles the server from its layers, without listening on a socket
 * (start.ts, and the tests' harness, put the express app on a port).
 *
 * Order of assembly: the data root and `facts.db` (migrated, `web.db` of older roots becoming
 * it); the projections' live runner over `projections.db` (`reindex` rebuilds it from every
 * trace first); the seeded admin and `default_project`; the trace scan that indexes CLI
 * sessions (`reindex` rebuilds it from scratch); the runtime (event ids for this process's
 * epoch, user feeds, session manager, scheduler, preview-token key); then HTTP on express 5: the request
 * context and security headers on every answer, and on `/api/*` the write guard (JSON +
 * same origin), the cookie authentication, and every resource's routes through one route
 * table (authorization, validation, OpenAPI). `/docs/` is the built documentation site (no
 * sign-in); anything else is the web app. Errors from
 * anywhere reach the one error middleware at the end, which answers `{error:{code, message}}`
 * through http/error-response.ts.
 *
 * Sessions run their commands in the bubblewrap sandbox by default (core's
 * commands/sandbox.ts: the data root and the other workspaces hidden, no network). bwrap is
 * probed once here; where it cannot run, commands run unsandboxed, the startup notice says so
 * and `/api/me` carries `sandbox: {available: false}` for the web app's notice.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Effect } from "effect";
import express, { type Express, type NextFunction, type Request as ExpressRequest, type Response as ExpressResponse } from "express";
import { DEFAULT_PROJECT, projectPaths, readProjectConfig, resolveRoot, DEFAULT_LINE_CUT, TraceRecordIndexes, type ProjectConfig, type SleepFn } from "@penguin/core";
import { ClusterNode } from "./cluster/cluster-node.js";
import { forwardSessionWrites } from "./cluster/forwarding.js";
import type { AccessPolicy } from "./auth/access.js";
import { ADMIN_USER, ensureAdmin } from "./auth/admin-seed.js";
import { authenticate } from "./auth/authenticate.js";
import { hostAllowlist } from "./auth/host-allowlist.js";
import { LoginService, type LoginLimits } from "./auth/login-service.js";
import { writeGuard } from "./auth/write-guard.js";
import type { Stores } from "./db/stores.js";
import { factsTarget } from "./db/facts-file.js";
import { ensureDataRootWritable } from "./process/data-root-check.js";
import { ApiError } from "./http/api-error.js";
import { attachContext, contextOf, sendResponse } from "./http/express-adapter.js";
import { errorResponse } from "./http/error-response.js";
import { RouteTable, type DescribedRoute } from "./http/route-table.js";
import { realTicker, type Ticker } from "./runtime/clock.js";
import type { Scheduler } from "./runtime/scheduler.js";
import { Access, makeServerRuntime, Projections, runOn, Workspaces, ServerStores, SessionRuntime, TaskScheduler, UserEvents } from "./runtime/server-runtime.js";
import { IDLE_EVICTION_MS, type SessionManager } from "./runtime/session-manager.js";
import { EventIds } from "./runtime/sse-channel.js";
import type { UserEventHub } from "./runtime/user-events.js";
import { registerRoutes } from "./routes/index.js";
import type { ServerContext } from "./server-context.js";
import { PreviewTokens } from "./services/preview-tokens.js";
import { ensureProject } from "./services/projects.js";
import { sandboxStatus } from "./services/sandbox-status.js";
import { indexTraces } from "./services/session-index.js";
import type { WorkspaceRoots } from "./services/workspace-roots.js";
import { followTracedSessions } from "./services/projections.js";
import { feedProjectionChanges } from "./services/projection-feed.js";
import { pricingFor } from "./services/usage-query.js";
import { queryUsage as queryProjectedUsage } from "@penguin/projections-usage";
import type { LiveProjectionRunner } from "@penguin/projections-runner";
import { docsSiteHandler, isDocsPath } from "./web/docs-site.js";
import { webAppHandler } from "./web/static-site.js";
import { OtelLiveExporter } from "./services/otel-live.js";

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
  /** The built documentation site to serve at `/docs/` (no sign-in needed; a notice when absent). */
  docsDir?: string;
  /** Model gateway fetch (tests, proxies). */
  fetch?: typeof fetch;
  /** Rebuild the projections and the sessions index from the traces instead of updating them. */
  reindex?: boolean;
  /** Where facts live: a `postgres://` URL (else PENGUIN_DATABASE_URL, else `<root>/facts.db`). */
  database?: string;
  /** How often the projections look for trace changes without a file-system event (default 1 s). */
  projectionsPollMs?: number;
  /** Run schedule files on the ticker (default true). */
  schedules?: boolean;
  /**
   * Folders under which session workspaces may lie while the admin setting `workspaceRoots`
   * is empty (each agent's own `workspaces/` folder always counts). Default: none besides those.
   */
  workspaceRoots?: readonly string[];
  /** Host names the server answers to besides localhost, 127.0.0.1 and [::1] (DNS rebinding guard). */
  allowedHosts?: readonly string[];
  /** Where errors that are bugs go (never printed by the library itself). */
  report?: (error: unknown) => void;
  /** The command sandbox: on by default (where bwrap can run), network off by default. */
  sandbox?: { enabled?: boolean; network?: boolean; bwrapPath?: string };
  /**
   * Live OpenTelemetry export (services/otel-live.ts): on with an `endpoint`, or when `env` sets
   * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_ENDPOINT. `contents` adds prompts and outputs.
   */
  otel?: { endpoint?: string; contents?: boolean };
}

export interface ServerApp {
  app: Express;
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
  ensureDataRootWritable(root);

  const ids = new EventIds(`${now().toString(36)}${randomBytes(3).toString("hex")}`);
  const ticker = options.ticker ?? realTicker;
  const sandbox = sandboxStatus(options.sandbox);
  const otelEndpoint = options.otel?.endpoint ?? env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const otel = otelEndpoint === undefined || otelEndpoint === "" ? undefined : new OtelLiveExporter({ root, endpoint: otelEndpoint, contents: options.otel?.contents === true, report });
  const runtime = makeServerRuntime({
    root,
    databaseFile: factsTarget(options.database ?? env.PENGUIN_DATABASE_URL, root),
    projections: { reindex: options.reindex === true, ...(options.projectionsPollMs !== undefined ? { pollIntervalMs: options.projectionsPollMs } : {}) },
    ids,
    env,
    sleep: options.sleep,
    fetch: options.fetch,
    now,
    ticker,
    idleMs: options.idleMs ?? IDLE_EVICTION_MS,
    generateTitles: options.generateTitles ?? true,
    workspaceRoots: options.workspaceRoots ?? [],
    report,
    // Every session has its boundary: the file tools keep to it with or without bwrap; only
    // the commands need bwrap to keep to it too.
    sandbox: { enabled: sandbox.enabled, confineFiles: true, network: sandbox.enabled && sandbox.network },
    ...(options.sandbox?.bwrapPath === undefined ? {} : { bwrapPath: options.sandbox.bwrapPath }),
    sandboxStatus: sandbox,
    ...(otel === undefined ? {} : { onTaskEnded: (session: { projectId: string; agentId: string; sessionId: string }) => otel.sessionIdle(session) }),
  });
  otel?.catchUp();
  let services: { stores: Stores; projections: LiveProjectionRunner; access: AccessPolicy; workspaces: WorkspaceRoots; userEvents: UserEventHub; sessions: SessionManager; scheduler: Scheduler };
  let initialPassword: string | undefined;
  try {
    services = await runtime.runPromise(Effect.all({ stores: ServerStores, projections: Projections, access: Access, workspaces: Workspaces, userEvents: UserEvents, sessions: SessionRuntime, scheduler: TaskScheduler }));
    const { stores } = services;
    initialPassword = await ensureAdmin(stores, root, now());
    await ensureProject(root, stores, { projectId: DEFAULT_PROJECT, ownerUserId: ADMIN_USER, name: null }, now());
    indexTraces(root, stores, { full: options.reindex === true, owner: ADMIN_USER, now: now() });
    followTracedSessions(services.projections, stores, root, now);
    const { access: policy, userEvents: feed } = services;
    await feedProjectionChanges(services.projections, {
      userEvents: feed,
      root,
      audience: (projectId) => policy.audience(projectId),
      usageTotals: async (db, projectId) => {
        const config = pricingConfigOf(root, projectId);
        return (await queryProjectedUsage(db, { projectId }, "agent", (_p, provider, modelId) => pricingFor(config, provider, modelId))).totals;
      },
      report,
    });
  } catch (error) {
    await runtime.dispose();
    throw error;
  }
  const { stores, projections, access, workspaces, userEvents, sessions, scheduler } = services;
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
    // Records are shown to people: a 30 MB text is cut to its head (cut-line.ts), whole by its own
    // route; 1 MiB slices keep each turn of a long line's scan well under 50 ms on a loaded machine.
    traceRecords: new TraceRecordIndexes({ cut: DEFAULT_LINE_CUT, sliceBytes: 1024 * 1024 }),
    scheduler,
    workspaces,
    report,
    sandbox,
    run: (effect) => runOn(runtime, effect),
    cluster: sessions.ownership instanceof ClusterNode ? sessions.ownership : undefined,
  };

  const app = express();
  app.disable("x-powered-by");
  app.disable("etag");
  app.set("case sensitive routing", true);
  app.use(attachContext);
  app.use(hostAllowlist(options.allowedHosts ?? []));
  app.use(function securityHeaders(_req: ExpressRequest, res: ExpressResponse, next: NextFunction) {
    res.setHeader("x-content-type-options", "nosniff");
    res.setHeader("x-frame-options", "SAMEORIGIN");
    res.setHeader("referrer-policy", "same-origin");
    next();
  });
  app.use("/api", writeGuard());
  app.use("/api", authenticate({ stores, now }));
  // Several nodes (PostgreSQL facts): a write to a session another node runs goes to that node.
  if (context.cluster !== undefined) app.use("/api", forwardSessionWrites(context.cluster));
  const table = new RouteTable(app, access);
  registerRoutes(table, context);
  if (options.schedules !== false) scheduler.start();
  const web = webAppHandler(options.webDir);
  const docs = docsSiteHandler(options.docsDir);
  app.use(function unmatched(_req: ExpressRequest, res: ExpressResponse, next: NextFunction) {
    const c = contextOf(res);
    if (!c.path.startsWith("/api/") && c.path !== "/api") {
      sendResponse(res, isDocsPath(c.path) ? docs(c) : web(c), c).catch(next);
      return;
    }
    next(c.user === undefined ? new ApiError(401, "unauthorized", "sign in first") : new ApiError(404, "not_found", `no route ${c.method} ${c.path}`));
  });
  app.use(function answerError(error: unknown, _req: ExpressRequest, res: ExpressResponse, _next: NextFunction) {
    if (res.headersSent) {
      report(error);
      res.destroy();
      return;
    }
    void sendResponse(res, errorResponse(error, report), undefined);
  });

  let closing: Promise<void> | undefined;
  return {
    app,
    context,
    routes: table.routes,
    initialPassword,
    close() {
      // Sessions end first (their last tasks go idle and are queued for export), then the exports finish.
      closing ??= runtime.dispose().then(() => otel?.drain());
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

/** A project's config for pricing usage; a missing or broken one prices nothing (the usage route reports its error). */
function pricingConfigOf(root: string, projectId: string): ProjectConfig {
  try {
    return readProjectConfig(projectPaths(root, projectId).projectConfig);
  } catch {
    return { models: [] };
  }
}
