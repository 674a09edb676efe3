/**
 * ServerContext: everything a route may use, built once by createServerApp. Routes receive
 * it whole; what each uses is visible in its handlers. Holding the parts in one plain
 * object (no service locator, no globals) keeps tests able to build a server per temp root.
 * The long-lived services are those of the server's ManagedRuntime
 * (runtime/server-runtime.ts), which owns their lifecycle; `run` executes an Effect that
 * asks for them by tag.
 */
import type { ClusterNode } from "./cluster/cluster-node.js";
import type { Effect } from "effect";
import type { TraceRecordIndexes } from "@penguin/core";
import type { LiveProjectionRunner } from "@penguin/projections-runner";
import type { AccessPolicy } from "./auth/access.js";
import type { LoginService } from "./auth/login-service.js";
import type { Stores } from "./db/stores.js";
import type { Ticker } from "./runtime/clock.js";
import type { SessionManager } from "./runtime/session-manager.js";
import type { EventIds } from "./runtime/sse-channel.js";
import type { UserEventHub } from "./runtime/user-events.js";
import type { Scheduler } from "./runtime/scheduler.js";
import type { ServerServices } from "./runtime/server-runtime.js";
import type { PreviewTokens } from "./services/preview-tokens.js";
import type { SandboxStatus } from "./services/sandbox-status.js";
import type { WorkspaceRoots } from "./services/workspace-roots.js";

export interface ServerContext {
  root: string;
  stores: Stores;
  /** The read models (sessions, usage, timeline) kept current from the traces. */
  projections: LiveProjectionRunner;
  access: AccessPolicy;
  login: LoginService;
  sessions: SessionManager;
  userEvents: UserEventHub;
  ids: EventIds;
  now: () => number;
  ticker: Ticker;
  /** SSE keep-alive comment interval (20 s). */
  pingMs: number;
  env: NodeJS.ProcessEnv;
  fetch: typeof fetch | undefined;
  version: { version: string; buildDate: string | null };
  /** Signs and checks the tokens of the separate preview origin. */
  previews: PreviewTokens;
  /** Where each record of a paged trace file lies, so the trace browser reads only its page. */
  traceRecords: TraceRecordIndexes;
  /** Runs `agent_state/schedule/*.toml`. */
  scheduler: Scheduler;
  /** Where workspaces may lie, and the secret file names (services/workspace-roots.ts). */
  workspaces: WorkspaceRoots;
  report(error: unknown): void;
  /** Whether session commands run in the bwrap sandbox (probed once at start). */
  sandbox: SandboxStatus;
  /** This server as a node of a cluster (PostgreSQL facts; cluster/cluster-node.ts), else undefined. */
  cluster?: ClusterNode | undefined;
  /** Runs an Effect on the server's runtime; its failure rejects the promise with the failure itself. */
  run<A, E>(effect: Effect.Effect<A, E, ServerServices>): Promise<A>;
}
