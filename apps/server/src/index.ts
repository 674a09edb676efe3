/**
 * @penguin/server: the multi-user HTTP + SSE runtime over the SDK.
 *
 *   createServerApp(options)   the express app and its runtime, no socket (start.ts listens)
 *   startServer(options)       on a port, with server.lock (SQLite facts) or as one node of a
 *                              cluster (PostgreSQL facts: src/cluster/), and the startup notice
 *   runServerCommand(options)  `penguin server` / `penguin web`, returning an exit code
 */
export { createServerApp, type ServerApp, type ServerAppOptions } from "./app.js";
export { startServer, DEFAULT_HOST, DEFAULT_PORT, type StartServerOptions, type RunningServer } from "./start.js";
export { runServerCommand, defaultWebDir, type ServerCommandOptions } from "./command.js";
export { findRunningServer, ServerAlreadyRunningError, type LockInfo } from "./process/server-lock.js";
export { ManualTicker, realTicker, type Ticker } from "./runtime/clock.js";
export { openApiDocument } from "./http/openapi.js";
export { moveFactsToPostgres, MoveRefusedError, FACTS_TABLES, type MoveReport } from "./db/move-to-postgres.js";
export type { ApiErrorCode } from "./http/api-error.js";
export type { ServerContext } from "./server-context.js";
