/**
 * Run control of a session: post a task (202; 409 `task_in_progress`/`compacting` when busy,
 * unless `queueIfBusy` puts it in the follow-up queue), recall a queued follow-up, steer the
 * running task (409 `not_running` when idle) and recall steering not yet delivered (409
 * `already_delivered` after), abort (202, handing queued follow-ups back; 204 when idle),
 * answer an approval, skip a reconnect wait, compact now. A task may run as a goal (core's
 * goal mode); core records its start and end in the trace (`goal_started`, `goal_finished`), the run counts its progress on the hub and announces it as `goal_*` server events.
 */
import { Effect, Schema } from "effect";
import { parseBudget } from "@penguin/core";
import { parseTraceparent } from "@penguin/projections-otel";
import { notFound } from "../http/api-error.js";
import { json, noContent } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import { Text, ThinkingLevelSchema } from "../http/schemas.js";
import { TaskInputItemSchema } from "../runtime/task-input.js";
import { SessionRuntime } from "../runtime/server-runtime.js";
import type { SessionManager } from "../runtime/session-manager.js";
import type { ServerContext } from "../server-context.js";
import { AbortAnswer, CompactStarted, GoalAnswer, RecalledFollowUp, RetryNowAnswer, SteeringNote, TaskAccepted } from "../contract/index.js";

const Budget = Schema.Union(Schema.Number, Schema.String).pipe(
  Schema.filter((b) => parseBudget(b) !== undefined, { message: () => "must be a token count such as 500k, 2m or 120000, or -1 for no limit" }),
);

const TaskBody = Schema.Struct({
  input: Schema.mutable(Schema.Array(TaskInputItemSchema)).pipe(Schema.minItems(1, { message: () => "must hold at least one item" }), Schema.maxItems(200)),
  thinkingLevel: Schema.optional(ThinkingLevelSchema),
  queueIfBusy: Schema.optional(Schema.Boolean),
  /** Run as a goal; budget in tokens (`500k`, `2m`, 120000; -1 or absent = unlimited). */
  goal: Schema.optional(Schema.Struct({ budget: Schema.optional(Budget) })),
});

const MAX_TASK_BODY = 170 * 1024 * 1024;

export function sessionTaskRoutes(table: RouteTable, ctx: ServerContext): void {
  /**
   * Task control goes through the server's Effect runtime: the session runtime is asked for
   * by its tag, so these routes use whatever SessionRuntime the runtime was built with.
   */
  const withSessions = <A>(use: (sessions: SessionManager) => A | Promise<A>): Promise<A> =>
    ctx.run(Effect.flatMap(SessionRuntime, (sessions) => Effect.tryPromise({ try: async () => use(sessions), catch: (error) => error })));

  table.add(
    {
      method: "post",
      path: "/api/sessions/:id/tasks",
      operationId: "sessions.postTask",
      summary: "Start a task (or queue it as a follow-up with queueIfBusy)",
      tag: "sessions",
      access: "session",
      need: "control",
      body: TaskBody,
      maxBodyBytes: MAX_TASK_BODY,
      responses: { 202: { description: "{status: started} or {status: queued, followUpId}", schema: TaskAccepted }, 409: { description: "task_in_progress or compacting" } },
    },
    async ({ grant, body, c }) => {
      const budget = body.goal === undefined ? undefined : parseBudget(body.goal.budget);
      // W3C trace context: an invalid header is ignored, as the recommendation says.
      const traceparent = c.header("traceparent")?.trim().toLowerCase();
      const validTraceparent = traceparent !== undefined && parseTraceparent(traceparent) !== undefined ? traceparent : undefined;
      const accepted = await withSessions((sessions) =>
        sessions.startTask(grant.session, {
          input: body.input,
          queueIfBusy: body.queueIfBusy === true,
          thinkingLevel: body.thinkingLevel,
          ...(budget === undefined ? {} : { goal: { budget } }),
          ...(validTraceparent === undefined ? {} : { traceparent: validTraceparent }),
        }),
      );
      return json(accepted, 202);
    },
  );

  table.add(
    {
      method: "delete",
      path: "/api/sessions/:id/follow-ups/:followUpId",
      operationId: "sessions.recallFollowUp",
      summary: "Recall a queued follow-up; returns what was sent",
      tag: "sessions",
      access: "session",
      need: "control",
      params: Schema.Struct({ followUpId: Text(1, 64) }),
      responses: { 200: { description: "{input}", schema: RecalledFollowUp } },
    },
    async ({ grant, params }) => json({ input: await withSessions((sessions) => sessions.recallFollowUp(grant.session, params.followUpId)) }),
  );

  table.add(
    { method: "post", path: "/api/sessions/:id/steer", operationId: "sessions.steer", summary: "Steer the running task; the id recalls it until delivered", tag: "sessions", access: "session", need: "control", body: Schema.Struct({ text: Text(1, 100_000) }), responses: { 202: { description: "{id, text}", schema: SteeringNote }, 409: { description: "not_running" } } },
    async ({ grant, body }) => json(await withSessions((sessions) => sessions.steer(grant.session, body.text)), 202),
  );

  table.add(
    {
      method: "delete",
      path: "/api/sessions/:id/steer/:steerId",
      operationId: "sessions.recallSteer",
      summary: "Recall steering not yet delivered; returns its text",
      tag: "sessions",
      access: "session",
      need: "control",
      params: Schema.Struct({ steerId: Text(1, 64) }),
      responses: { 200: { description: "{id, text}", schema: SteeringNote }, 409: { description: "already_delivered" } },
    },
    async ({ grant, params }) => json(await withSessions((sessions) => sessions.recallSteering(grant.session, params.steerId))),
  );

  table.add(
    { method: "post", path: "/api/sessions/:id/abort", operationId: "sessions.abort", summary: "Abort the running task", tag: "sessions", access: "session", need: "control", responses: { 202: { description: "{aborted: true, recalled}", schema: AbortAnswer }, 204: { description: "Nothing was running" } } },
    async ({ grant }) => {
      const result = await withSessions((sessions) => sessions.abort(grant.session));
      return result === undefined ? noContent() : json({ aborted: true, recalled: result.recalled }, 202);
    },
  );

  table.add(
    {
      method: "post",
      path: "/api/sessions/:id/approvals/:toolCallId",
      operationId: "sessions.decide",
      summary: "Answer a pending approval (the session's creator or a project owner)",
      tag: "sessions",
      access: "session",
      need: "control",
      params: Schema.Struct({ toolCallId: Text(1, 200) }),
      body: Schema.Struct({ decision: Schema.Literal("allow", "deny") }),
      responses: { 204: { description: "Decided" } },
    },
    async ({ grant, params, body }) => {
      await withSessions((sessions) => sessions.decide(grant.session, params.toolCallId, body.decision));
      return noContent();
    },
  );

  table.add(
    { method: "post", path: "/api/sessions/:id/retry-now", operationId: "sessions.retryNow", summary: "End a reconnect wait now", tag: "sessions", access: "session", need: "control", responses: { 200: { description: "{skipped}", schema: RetryNowAnswer } } },
    async ({ grant }) => json({ skipped: await withSessions((sessions) => sessions.retryNow(grant.session)) }),
  );

  table.add(
    { method: "post", path: "/api/sessions/:id/compact", operationId: "sessions.compact", summary: "Compact the context now", tag: "sessions", access: "session", need: "control", responses: { 202: { description: "Started", schema: CompactStarted }, 409: { description: "task_in_progress, compacting, nothing_to_compact or already_compacted" } } },
    async ({ grant }) => {
      await withSessions((sessions) => sessions.compact(grant.session));
      return json({ status: "started" }, 202);
    },
  );

  table.add(
    { method: "get", path: "/api/sessions/:id/goal", operationId: "sessions.goal", summary: "The session's latest goal: objective, status, budget, used, rounds", tag: "sessions", access: "session", responses: { 200: { description: "{goal}", schema: GoalAnswer }, 404: { description: "The session never ran a goal" } } },
    async ({ grant }) => {
      // The goal this server ran last, with its live progress; else the latest the trace records.
      const id = grant.session.sessionId;
      const live = ctx.sessions.peek(id)?.goalProgress;
      const goal = live ?? (await ctx.sessions.traceInfo(grant.session)).goal;
      if (goal === null) throw notFound("a goal of this session");
      return json({ goal });
    },
  );
}
