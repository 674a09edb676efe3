/**
 * Sessions resource: list an agent's sessions by category (`active`, `subagent`,
 * `schedule`, `archived`) with their run state; create one (`{provider?, modelId?,
 * workspace?, approvalMode?, sandboxNetwork?}` → 201; the model pair is both or neither, neither meaning the
 * project's default; no workspace means the project's default chat workspace, else a fresh
 * temporary one); read one (with its trace path and usage); change its approval mode,
 * thinking level, title, archived flag or network allowance; delete it (its traces and scratchpad
 * move to the trash, routes/trash.ts; not while it runs); fork it; read its state at any event. Lists and reads say where a
 * session came from (`forkedFrom`, `replayOf`, from the sessions projection).
 *
 * Who may call what is the matrix of apps/server/README.md: reading and forking are for every
 * member; changing or deleting a session (`need: "control"`) for its creator, a project owner
 * or the admin (403 `forbidden` for another member).
 *
 * `sandboxNetwork: true` lets the session's sandboxed commands use the network. Only a project
 * owner or the admin may allow it (a member gets 403): it opens a way out of the machine for
 * whatever the model runs. Anyone who controls the session may take it back (`false`).
 *
 * The one-session read also says how its commands run (`sandbox`: whether bwrap can run on
 * the server, whether the session's commands run in it, and whether the server allows every
 * session the network) and what the asking user may change (`permissions`: `control` for the
 * session's creator, a project owner or the admin; `allowNetwork` for an owner or the admin),
 * from the same rules the PATCH enforces, so the web app offers only what will be accepted.
 */
import { isAbsolute } from "node:path";
import { readProjectConfig, type AgentPaths } from "@penguin/core";
import { timelineProjection, timelineSnapshots } from "@penguin/projections-timeline";
import { Schema } from "effect";
import { sessionArchived, sessionTitle } from "@penguin/omnimessage";
import { ApiError, badRequest, notFound } from "../http/api-error.js";
import { json, noContent } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import { ApprovalModeSchema, Capped, IntFromText, PositiveInt, Text, ThinkingLevelSchema, WithDefault } from "../http/schemas.js";
import type { ServerContext } from "../server-context.js";
import { listAgentSessions } from "../services/session-list.js";
import { JUST_CREATED, NO_TRACE_INFO, sessionTraceInfo } from "../services/session-trace-info.js";
import { prepareTraceCut } from "../services/history.js";
import { sessionView } from "../services/session-view.js";
import { refuseMissingRecord, traceFilesOf } from "../services/trace-view.js";
import { SessionDetail, SessionList, SessionStateAnswer, SessionView } from "../contract/index.js";

const CreateBody = Schema.Struct({
  provider: Schema.optional(Text(1)),
  modelId: Schema.optional(Text(1)),
  workspace: Schema.optional(Schema.String.pipe(Schema.filter((p) => isAbsolute(p), { message: () => "must be an absolute path on the server" }))),
  approvalMode: Schema.optional(ApprovalModeSchema),
  sandboxNetwork: Schema.optional(Schema.Boolean),
});

const PatchBody = Schema.Struct({
  approvalMode: Schema.optional(ApprovalModeSchema),
  sandboxNetwork: Schema.optional(Schema.Boolean),
  thinkingLevel: Schema.optional(Schema.NullOr(ThinkingLevelSchema)),
  archived: Schema.optional(Schema.Boolean),
  title: Schema.optional(Schema.NullOr(Capped(200))),
});

const ListQuery = Schema.Struct({
  category: WithDefault(Schema.Literal("active", "subagent", "schedule", "archived"), "active"),
  limit: WithDefault(IntFromText(1, 500), 100),
  offset: WithDefault(IntFromText(0), 0),
});

/** Allowing a session the network is for a project owner or the admin. */
function requireNetworkGrant(role: "owner" | "member" | "admin"): void {
  if (role === "member") throw new ApiError(403, "forbidden", "only a project owner or the admin may allow a session's commands the network (sandboxNetwork)");
}

export function sessionRoutes(table: RouteTable, ctx: ServerContext): void {
  const { stores, sessions } = ctx;
  /** What the trace says about one session of the agent (run source, last event, origin). */
  const traceInfoOf = async (agent: AgentPaths, id: string) => (await sessionTraceInfo(ctx.projections, agent, [id], ctx.report)).get(id);
  /** The session as its trace says now: the projection first takes in what the traces gained (a PATCH's events). */
  const viewOf = async (agent: AgentPaths, id: string) => {
    const row = stores.sessions.get(id);
    if (row === undefined) throw notFound(`session ${id}`);
    await refreshProjections();
    return sessionView(row, sessions.peek(id), await traceInfoOf(agent, id), ctx.access.createdHere(id));
  };
  const refreshProjections = async () => {
    try {
      await ctx.projections.refresh();
    } catch (error) {
      ctx.report(error);
    }
  };

  table.add(
    { method: "get", path: "/api/projects/:p/agents/:a/sessions", operationId: "sessions.list", summary: "Sessions of an agent, most recent first", tag: "sessions", access: "agent", query: ListQuery, responses: { 200: { description: "{sessions}", schema: SessionList } } },
    async ({ grant, query }) => {
      const listed = await listAgentSessions(ctx, grant.agent, query.category, query.limit, query.offset);
      return json({ sessions: listed.map(({ row, info }) => sessionView(row, sessions.peek(row.sessionId), info, ctx.access.createdHere(row.sessionId))) });
    },
  );

  table.add(
    { method: "post", path: "/api/projects/:p/agents/:a/sessions", operationId: "sessions.create", summary: "Create a session", tag: "sessions", access: "agent", body: CreateBody, responses: { 201: { description: "The session ({id, …})", schema: SessionView } } },
    async ({ grant, body, user }) => {
      if (body.sandboxNetwork === true) requireNetworkGrant(grant.role);
      const workspace = body.workspace ?? readProjectConfig(grant.paths.projectConfig).default_chat?.workspace;
      const { row, hub } = await sessions.create({
        projectId: grant.project.projectId,
        agentId: grant.agent.agentId,
        provider: body.provider,
        modelId: body.modelId,
        workspace,
        approvalMode: body.approvalMode,
        sandboxNetwork: body.sandboxNetwork,
      });
      ctx.access.recordCreator(row.sessionId, user.userId);
      // Created by this request for a person: no run source, no event after its creation yet;
      // its network allowance is the one just recorded in its trace.
      const view = sessionView(row, hub, { ...JUST_CREATED, client: "web", sandboxNetwork: body.sandboxNetwork === true });
      ctx.userEvents.toProject(row.projectId, { type: "session_created", session: view });
      return json(view, 201);
    },
  );

  table.add(
    { method: "get", path: "/api/sessions/:id", operationId: "sessions.get", summary: "One session", tag: "sessions", access: "session", responses: { 200: { description: "The session, with tracePath, traceFiles, usage, how its commands run (sandbox) and what the caller may change (permissions)", schema: SessionDetail } } },
    async ({ grant, user }) => {
      const id = grant.session.sessionId;
      const hub = sessions.peek(id);
      const files = traceFilesOf(grant.agent, id);
      const usage = await stores.usage.sessionTotals(id);
      return json({
        ...(await viewOf(grant.agent, id)),
        tracePath: hub?.core?.tracePath ?? files[files.length - 1]?.path ?? null,
        traceFiles: files.map(({ index, size }) => ({ index, size })),
        usage,
        pending: hub?.approvals.pending() ?? [],
        sandbox: { available: ctx.sandbox.available, enabled: ctx.sandbox.enabled, serverNetwork: ctx.sandbox.enabled && ctx.sandbox.network },
        permissions: { control: ctx.access.mayControl(user, grant), allowNetwork: grant.role !== "member" },
      });
    },
  );

  table.add(
    { method: "patch", path: "/api/sessions/:id", operationId: "sessions.update", summary: "Change approval mode, thinking level, title, archived flag or network allowance", tag: "sessions", access: "session", need: "control", body: PatchBody, responses: { 200: { description: "The session", schema: SessionView } } },
    async ({ grant, body }) => {
      const id = grant.session.sessionId;
      // The caller controls the session (the route's need); allowing the network also needs an owner.
      if (body.sandboxNetwork === true) requireNetworkGrant(grant.role);
      // Each change is an event appended to the session's trace at once (the only record of it):
      // refused up front while another process runs the session.
      await sessions.refuseIfHeldElsewhere(grant.session, "changing it");
      if (body.title !== undefined || body.archived !== undefined) {
        await refreshProjections();
        const before = (await traceInfoOf(grant.agent, id)) ?? NO_TRACE_INFO;
        // A cleared title is recorded as an empty one (the view shows none).
        const title = body.title === null ? "" : body.title;
        if (title !== undefined && !(before.titleSet && title === (before.title ?? ""))) await sessions.recordFact(grant.session, sessionTitle(title));
        if (body.archived !== undefined && body.archived !== (before.archivedAt !== null)) await sessions.recordFact(grant.session, sessionArchived(body.archived));
      }
      // The session's approvals go by its fold, so the mode is recorded in the trace at once.
      if (body.approvalMode !== undefined) await sessions.setApprovalMode(grant.session, body.approvalMode);
      if (body.sandboxNetwork !== undefined) await sessions.setSandboxNetwork(grant.session, body.sandboxNetwork);
      if (body.thinkingLevel !== undefined) await sessions.setThinkingLevel(grant.session, body.thinkingLevel);
      const view = await viewOf(grant.agent, id);
      ctx.userEvents.toProject(grant.project.projectId, { type: "session_updated", session: view });
      return json(view);
    },
  );

  table.add(
    {
      method: "delete",
      path: "/api/sessions/:id",
      operationId: "sessions.delete",
      summary: "Move a session's traces and scratchpad to the project's trash (an owner restores it, the admin purges it)",
      tag: "sessions",
      access: "session",
      need: "control",
      responses: { 204: { description: "Moved to the trash" }, 409: { description: "It is running" } },
    },
    async ({ grant, user }) => {
      await sessions.delete(grant.session, user.userId);
      ctx.userEvents.toProject(grant.project.projectId, { type: "session_deleted", sessionId: grant.session.sessionId });
      return noContent();
    },
  );

  table.add(
    {
      method: "post",
      path: "/api/sessions/:id/fork",
      operationId: "sessions.fork",
      summary: "Fork after a completed task (the last one, or the answer at position {fileIndex, line}), or at any event `at` (a count from the start, or NNN:LLLLLL)",
      tag: "sessions",
      access: "session",
      body: Schema.Struct({
        position: Schema.optional(Schema.Struct({ fileIndex: PositiveInt, line: PositiveInt })),
        at: Schema.optional(Schema.Union(PositiveInt, EventPosition)),
      }),
      responses: { 201: { description: "The new session", schema: SessionView }, 400: { description: "both position and at" }, 409: { description: "task_in_progress, compacting or cannot_fork" } },
    },
    async ({ grant, body, user }) => {
      if (body.position !== undefined && body.at !== undefined) throw badRequest("give either position (a task's answer) or at (any event), not both", "at");
      const row = await sessions.fork(grant.session, body.at !== undefined ? { at: body.at } : body.position);
      ctx.access.recordCreator(row.sessionId, user.userId);
      // The projection folds the fork's `forked_from` event: one pass, so the answer names the origin.
      const view = await viewOf(grant.agent, row.sessionId);
      ctx.userEvents.toProject(row.projectId, { type: "session_created", session: view });
      return json(view, 201);
    },
  );

  // Time travel starts from the timeline's nearest snapshot in projections.db (the runner's
  // current file); the records after it, and any the runner has not applied yet, are read
  // from the trace. One source for every request, so the lists it has read are kept.
  const snapshots = timelineSnapshots(async () => (await ctx.projections.store()).db, timelineProjection.version);

  table.add(
    {
      method: "get",
      path: "/api/sessions/:id/state",
      operationId: "sessions.state",
      summary: "The session's state after an event (time travel): the next context, open calls, pending approvals, carry-over, steering, settings, usage, goal, files; default the last event",
      tag: "sessions",
      access: "session",
      query: Schema.Struct({ at: Schema.optional(Schema.Union(EventPosition, IntFromText(1))) }),
      responses: { 200: { description: "What `penguin inspect --at` prints, as JSON", schema: SessionStateAnswer }, 400: { description: "an event the session does not have" } },
    },
    async ({ grant, query }) => {
      const agent = await sessions.agent(grant.session.projectId, grant.session.agentId);
      // Long lines are found and cut first, a slice per turn; the fold's reads then skip them.
      const cut = await prepareTraceCut(ctx.traceRecords, grant.agent, grant.session.sessionId);
      // A record the session does not have is refused from the index, before a fold that would read the session whole.
      refuseMissingRecord(ctx.traceRecords, grant.agent, grant.session.sessionId, query.at);
      try {
        // Long texts of the records read are cut to a head and a marker (cut-line.ts): a 30 MB
        // tool output is neither decoded nor sent; GET …/records/:at gives it whole.
        return json(await agent.inspectState({ sessionId: grant.session.sessionId, snapshots, cut, ...(query.at === undefined ? {} : { at: query.at }) }));
      } catch (error) {
        if (error instanceof Error && /^invalid position/.test(error.message)) throw badRequest(error.message, "at");
        throw error;
      }
    },
  );
}

/** A trace position in its public form, `NNN:LLLLLL` (file index, line number). */
const EventPosition = Schema.String.pipe(Schema.pattern(/^\d{3}:\d{6}$/), Schema.annotations({ identifier: "EventPosition", description: "NNN:LLLLLL" }));
