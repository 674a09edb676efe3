/**
 * UsageRecorder: turns a session's stream into usage and error rows, as it is published.
 *
 * - `token_usage` → one usage row (the `request` counts), status `completed`.
 * - `request_end` with a failure status → one usage row with zero tokens and that status,
 *   plus one error row: `auth` and `timeout` are `expected` (configuration or network, the
 *   user can act on them), `failed` and `malformed` are `unexpected`. `aborted` is the user
 *   stopping the task, not a failure, and records nothing.
 * - A message from a subagent (`origin` set) is attributed to the main session, with
 *   `origin_session_id` naming the child that made the request, and priced by the child's
 *   own model: taken from the child's `session_meta` when it streams by, else from the
 *   first line of the child's trace, else (unknown) the main session's model.
 *
 * Rows are written synchronously as each event is published, so a crash loses none of
 * the requests that completed before it.
 */
import { localDate, type ProjectPaths } from "@penguin/core";
import type { OmniMessage, StopReason } from "@penguin/omnimessage";
import type { UsageStore } from "../db/usage-store.js";
import { findSessionFirstTrace, readSessionMeta } from "../services/trace-files.js";

export interface UsageContext {
  project: ProjectPaths;
  agentId: string;
  sessionId: string;
  provider: string;
  modelId: string;
}

interface ModelRef {
  provider: string;
  modelId: string;
}

export class UsageRecorder {
  readonly #usage: UsageStore;
  readonly #now: () => number;
  readonly #childModels = new Map<string, ModelRef>();

  constructor(usage: UsageStore, now: () => number) {
    this.#usage = usage;
    this.#now = now;
  }

  observe(ctx: UsageContext, m: OmniMessage): void {
    const child = m.origin !== undefined && m.origin.length > 0 ? m.origin[m.origin.length - 1] : undefined;
    if (m.type === "session_meta") {
      if (child !== undefined) this.#childModels.set(child, { provider: m.payload.provider, modelId: m.payload.model_id });
      return;
    }
    if (m.type !== "event_msg") return;
    const p = m.payload;
    if (p.type === "token_usage") {
      this.#record(ctx, child, { cacheRead: p.request.cache_read, cacheWrite: p.request.cache_write, output: p.request.output, total: p.request.total }, "completed");
    } else if (p.type === "request_end" && p.status !== "completed" && p.status !== "aborted") {
      this.#record(ctx, child, { cacheRead: 0, cacheWrite: 0, output: 0, total: 0 }, p.status);
      const ts = this.#now();
      this.#usage.insertError({
        ts,
        date: localDate(new Date(ts)),
        projectId: ctx.project.projectId,
        agentId: ctx.agentId,
        sessionId: ctx.sessionId,
        source: child === undefined ? "model" : `subagent:${child}`,
        kind: isExpected(p.status) ? "expected" : "unexpected",
        code: p.status,
        status: p.status,
        message: p.error_message ?? p.status,
      });
    }
  }

  #record(ctx: UsageContext, child: string | undefined, tokens: { cacheRead: number; cacheWrite: number; output: number; total: number }, status: StopReason): void {
    const model = child === undefined ? { provider: ctx.provider, modelId: ctx.modelId } : this.#childModel(ctx, child);
    const ts = this.#now();
    this.#usage.insertUsage({
      ts,
      date: localDate(new Date(ts)),
      projectId: ctx.project.projectId,
      agentId: ctx.agentId,
      sessionId: ctx.sessionId,
      originSessionId: child ?? null,
      provider: model.provider,
      modelId: model.modelId,
      ...tokens,
      status,
    });
  }

  #childModel(ctx: UsageContext, child: string): ModelRef {
    const known = this.#childModels.get(child);
    if (known !== undefined) return known;
    const file = findSessionFirstTrace(ctx.project, child);
    const meta = file === undefined ? undefined : readSessionMeta(file);
    const model = meta === undefined ? { provider: ctx.provider, modelId: ctx.modelId } : { provider: meta.provider, modelId: meta.model_id };
    if (meta !== undefined) this.#childModels.set(child, model);
    return model;
  }
}

/** Failures the user can act on (credentials, network) versus ones that look like bugs. */
function isExpected(status: Exclude<StopReason, "completed" | "aborted">): boolean {
  switch (status) {
    case "auth":
    case "timeout":
      return true;
    case "failed":
    case "malformed":
      return false;
  }
}
