/**
 * Usage resource: token and cost figures of a project, grouped by `date` (in `minute` …
 * `month` buckets), `agent`, `model` or `session`, filtered by date (`from`/`to`, local
 * YYYY-MM-DD, inclusive), timestamp (`fromTs`/`toTs`, ms, half-open), agent and model pair;
 * and the paged list of failed requests. Cost is computed at query time (services/usage-query.ts).
 */
import { readProjectConfig } from "@penguin/core";
import { z } from "zod";
import { badRequest } from "../http/api-error.js";
import { json } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import { AgentId } from "../http/schemas.js";
import type { ServerContext } from "../server-context.js";
import { queryUsage } from "../services/usage-query.js";

const DateText = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "must be YYYY-MM-DD");

const Filter = z.object({
  from: DateText.optional(),
  to: DateText.optional(),
  fromTs: z.coerce.number().int().min(0).optional(),
  toTs: z.coerce.number().int().min(0).optional(),
  agentId: AgentId.optional(),
  provider: z.string().min(1).optional(),
  modelId: z.string().min(1).optional(),
});

const UsageQuery = Filter.extend({
  groupBy: z.enum(["date", "agent", "model", "session"]).default("date"),
  granularity: z.enum(["minute", "hour", "day", "week", "month"]).default("day"),
});

const ErrorsQuery = Filter.extend({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

export function usageRoutes(table: RouteTable, ctx: ServerContext): void {
  const filterOf = (projectId: string, q: z.infer<typeof Filter>) => {
    if ((q.provider === undefined) !== (q.modelId === undefined)) throw badRequest("a model is the pair (provider, modelId): give both or neither", q.provider === undefined ? "provider" : "modelId");
    return { projectId, fromDate: q.from, toDate: q.to, fromTs: q.fromTs, toTs: q.toTs, agentId: q.agentId, provider: q.provider, modelId: q.modelId };
  };

  table.add(
    { method: "get", path: "/api/projects/:p/usage", operationId: "usage.get", summary: "Token usage and cost, grouped", tag: "usage", access: "project", query: UsageQuery, responses: { 200: { description: "{groupBy, granularity, rows, totals}" } } },
    async ({ grant, query }) => {
      const config = readProjectConfig(grant.paths.projectConfig);
      return json(await queryUsage(ctx.stores.usage, config, filterOf(grant.project.projectId, query), query.groupBy, query.granularity));
    },
  );

  table.add(
    { method: "get", path: "/api/projects/:p/usage/errors", operationId: "usage.errors", summary: "Failed requests, newest first", tag: "usage", access: "project", query: ErrorsQuery, responses: { 200: { description: "{items, total}" } } },
    async ({ grant, query }) => json(await ctx.stores.usage.errors(filterOf(grant.project.projectId, query), query.limit, query.offset)),
  );
}
