/**
 * The server's Effect runtime: one `ManagedRuntime` built at start-up from layers, one per
 * long-lived service, each acquired with its release (Effect.acquireRelease). The runtime
 * therefore owns the lifecycle: `dispose()` releases in the reverse order of acquisition —
 * the scheduler stops, running tasks are aborted with their carry-over and sessions disposed
 * (traces closed), user streams close, and only then the database — which is exactly the
 * order a graceful stop needs, without a hand-written close sequence that could drift.
 *
 * Handlers reach the services either as the plain instances the ServerContext holds
 * (resolved from this runtime once, at start) or by running an Effect that asks for them
 * through `ServerContext.run` (the session task routes do).
 */
import type { LiveProjectionRunner } from "@penguin/projections-runner";
import { Cause, Context, Effect, Exit, Layer, ManagedRuntime } from "effect";
import type { SandboxOptions, SleepFn } from "@penguin/core";
import { AccessPolicy } from "../auth/access.js";
import { ClusterNode, leaseMsFrom } from "../cluster/cluster-node.js";
import { SessionCreators } from "../db/session-creators-store.js";
import { FactsConnectionError, openFacts } from "../db/database.js";
import { isPostgresUrl } from "../db/dialect.js";
import { PostgresEngine, type FactsDb } from "../db/facts-db.js";
import { createStores, type Stores } from "../db/stores.js";
import { startProjections } from "../services/projections.js";
import { traceFactsReader } from "../services/session-trace-info.js";
import { serverMcpStdioPolicy } from "../services/mcp-stdio-policy.js";
import type { SandboxStatus } from "../services/sandbox-status.js";
import { readServerSettings } from "../services/server-settings.js";
import { WorkspaceRoots } from "../services/workspace-roots.js";
import type { Ticker } from "./clock.js";
import { Scheduler } from "./scheduler.js";
import { SessionManager } from "./session-manager.js";
import { projectionNudger } from "./followed-streams.js";
import { PostgresTraceNotices } from "./trace-notices.js";
import type { EventIds } from "./sse-channel.js";
import { UserEventHub } from "./user-events.js";

/** The open `facts.db` connection (only its lifecycle is used through the tag; stores wrap it). */
export interface ServerDatabaseHandle {
  readonly facts: FactsDb;
}
export class ServerDatabase extends Context.Tag("@penguin/server/ServerDatabase")<ServerDatabase, ServerDatabaseHandle>() {}
/** The read models (sessions, usage, timeline) kept current from the traces in `projections.db`. */
export class Projections extends Context.Tag("@penguin/server/Projections")<Projections, LiveProjectionRunner>() {}
export class ServerStores extends Context.Tag("@penguin/server/ServerStores")<ServerStores, Stores>() {}
export class Access extends Context.Tag("@penguin/server/Access")<Access, AccessPolicy>() {}
export class UserEvents extends Context.Tag("@penguin/server/UserEvents")<UserEvents, UserEventHub>() {}
export class SessionRuntime extends Context.Tag("@penguin/server/SessionRuntime")<SessionRuntime, SessionManager>() {}
export class Workspaces extends Context.Tag("@penguin/server/Workspaces")<Workspaces, WorkspaceRoots>() {}
export class TaskScheduler extends Context.Tag("@penguin/server/TaskScheduler")<TaskScheduler, Scheduler>() {}

export type ServerServices = ServerDatabase | Projections | ServerStores | Access | Workspaces | UserEvents | SessionRuntime | TaskScheduler;
export type ServerRuntime = ManagedRuntime.ManagedRuntime<ServerServices, unknown>;

export interface ServerRuntimeConfig {
  root: string;
  /** `<root>/facts.db`, or a `postgres://` URL (`--database`). */
  databaseFile: string;
  /** The read models' live runner over `projections.db` (`reindex`: rebuild it first). */
  projections: { reindex: boolean; pollIntervalMs?: number };
  ids: EventIds;
  env: NodeJS.ProcessEnv;
  sleep: SleepFn | undefined;
  fetch: typeof fetch | undefined;
  now: () => number;
  ticker: Ticker;
  idleMs: number;
  generateTitles: boolean;
  /** The roots given at start-up, used while the admin setting `workspaceRoots` is empty. */
  workspaceRoots: readonly string[];
  report(error: unknown): void;
  /** Every session's boundary, and whether its commands run in bwrap (SessionManager's `sandbox`); undefined: none. */
  sandbox: SandboxOptions | undefined;
  bwrapPath?: string;
  /** What the sandbox probe found: the stdio MCP policy says why servers are off when it is not in use. */
  sandboxStatus: SandboxStatus;
  /** Told when a session's task ended (the live OpenTelemetry export). */
  onTaskEnded?: (session: { projectId: string; agentId: string; sessionId: string }) => void;
}

export function serverLayer(config: ServerRuntimeConfig): Layer.Layer<ServerServices, unknown> {
  const database = Layer.scoped(
    ServerDatabase,
    Effect.acquireRelease(
      Effect.tryPromise({ try: async (): Promise<ServerDatabaseHandle> => ({ facts: await openFacts(config.databaseFile) }), catch: (error) => error }),
      (handle) => Effect.sync(() => handle.facts.close()),
    ),
  );
  // On PostgreSQL the projections live beside the facts, and their background catch-up is the
  // cluster duty `projections`: one node follows the traces, another takes over when it dies.
  const projections = Layer.scoped(
    Projections,
    Effect.flatMap(ServerDatabase, (handle) =>
      Effect.acquireRelease(
        Effect.tryPromise({
          try: () => startProjections(config.root, { ...config.projections, database: config.databaseFile, holdsDuty: () => handle.facts.holdsDuty("projections"), report: config.report }),
          catch: (error) => error,
        }),
        (runner) => Effect.promise(() => runner.stop()),
      ),
    ),
  );
  const stores = Layer.effect(
    ServerStores,
    Effect.gen(function* () {
      const handle = yield* ServerDatabase;
      return createStores(handle.facts, yield* Projections);
    }),
  );
  const access = Layer.effect(Access, Effect.map(ServerStores, (s) => new AccessPolicy(s, config.root, new SessionCreators(s.facts))));
  const workspaces = Layer.effect(
    Workspaces,
    Effect.map(ServerStores, (s) => new WorkspaceRoots(config.root, () => {
      const chosen = readServerSettings(s.settings).workspaceRoots;
      return chosen.length > 0 ? chosen : config.workspaceRoots;
    })),
  );
  const userEvents = Layer.scoped(
    UserEvents,
    Effect.acquireRelease(
      Effect.map(Access, (policy) => new UserEventHub(config.ids, (projectId) => policy.audience(projectId), () => policy.audienceMemo())),
      (hub) => Effect.sync(() => hub.closeAll()),
    ),
  );
  const sessions = Layer.scoped(
    SessionRuntime,
    Effect.acquireRelease(
      Effect.gen(function* () {
        const s = yield* ServerStores;
        const events = yield* UserEvents;
        const roots = yield* Workspaces;
        const projections = yield* Projections;
        const traceFacts = traceFactsReader(config.root, projections, config.report);
        const cluster = clusterNodeFor(s.facts, config);
        // A cluster (facts in PostgreSQL, nodes sharing the root): the nodes tell each other of new trace lines.
        const notices = isPostgresUrl(config.databaseFile) ? yield* Effect.tryPromise({ try: () => PostgresTraceNotices.start(config.databaseFile, config.report), catch: (error) => new FactsConnectionError(config.databaseFile, error) }) : undefined;
        const manager = new SessionManager({
          root: config.root,
          stores: s,
          ids: config.ids,
          userEvents: events,
          env: config.env,
          sleep: config.sleep,
          fetch: config.fetch,
          now: config.now,
          ticker: config.ticker,
          idleMs: config.idleMs,
          generateTitles: config.generateTitles,
          attachmentLimits: () => readServerSettings(s.settings),
          workspaceRoots: roots,
          report: config.report,
          sandbox: config.sandbox,
          mcpStdioPolicy: serverMcpStdioPolicy(() => readServerSettings(s.settings), config.sandboxStatus),
          traceInfo: traceFacts.ofSession,
          agentTraceInfo: traceFacts.ofAgent,
          queuedSessionIds: traceFacts.queuedSessionIds,
          ...(cluster === undefined ? {} : { ownership: cluster }),
          ...(config.bwrapPath === undefined ? {} : { bwrapPath: config.bwrapPath }),
          ...(config.onTaskEnded === undefined ? {} : { onTaskEnded: config.onTaskEnded }),
          ...(notices === undefined ? {} : { traceAnnouncer: notices }),
        });
        // Follow-ups a stopped server left queued (its sessions' traces record them) run again, in order.
        void manager.restoreQueues().catch((error: unknown) => config.report(error));
        if (notices !== undefined) {
          const streams = manager.traceNoticeReceiver();
          const nudge = projectionNudger(async () => projections.nudge(), config.report);
          notices.deliverTo({
            notices: (batch) => (streams.notices(batch), nudge()),
            listening: () => (streams.listening(), nudge()),
          });
        }
        return { manager, notices };
      }),
      ({ manager, notices }) => Effect.promise(async () => {
        await manager.shutdown().finally(() => manager.ownership?.stop());
        await notices?.close();
      }),
    ).pipe(Effect.map(({ manager }) => manager)),
  );
  const scheduler = Layer.scoped(
    TaskScheduler,
    Effect.acquireRelease(
      Effect.gen(function* () {
        return new Scheduler({ root: config.root, stores: yield* ServerStores, sessions: yield* SessionRuntime, userEvents: yield* UserEvents, now: config.now, ticker: config.ticker, report: config.report });
      }),
      (s) => Effect.sync(() => s.stop()),
    ),
  );
  return scheduler.pipe(Layer.provideMerge(sessions), Layer.provideMerge(userEvents), Layer.provideMerge(workspaces), Layer.provideMerge(access), Layer.provideMerge(stores), Layer.provideMerge(projections), Layer.provideMerge(database));
}

/** With PostgreSQL facts this server is one node of a cluster (cluster/cluster-node.ts); on SQLite, none. */
function clusterNodeFor(facts: FactsDb, config: ServerRuntimeConfig): ClusterNode | undefined {
  if (!(facts.engine instanceof PostgresEngine)) return undefined;
  return new ClusterNode(facts.engine.connection, { leaseMs: leaseMsFrom(config.env), ticker: config.ticker, holdsDuty: (name) => facts.holdsDuty(name), report: config.report });
}

export function makeServerRuntime(config: ServerRuntimeConfig): ServerRuntime {
  return ManagedRuntime.make(serverLayer(config));
}

/**
 * Runs an Effect on the runtime and settles like a plain async function: the value, or a
 * rejection with the failure itself (an ApiError stays an ApiError for the error
 * middleware) rather than Effect's FiberFailure wrapper.
 */
export async function runOn<A, E>(runtime: ServerRuntime, effect: Effect.Effect<A, E, ServerServices>): Promise<A> {
  const exit = await runtime.runPromiseExit(effect);
  if (Exit.isSuccess(exit)) return exit.value;
  throw Cause.squash(exit.cause);
}
