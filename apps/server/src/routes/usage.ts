/**
 * Usage resource: token and cost figures of a project, grouped by `date` (in `minute` …
 * `month` buckets), `agent`, `model` or `session`, filtered by date (`from`/`to`, local
 * YYYY-MM-DD, inclusive), timestamp (`fromTs`/`toTs`, ms, half-open), agent and model pair;
 * and the paged list of failed requests. Cost is computed at query time (services/usage-query.ts).
 */
import { readProjectConfig } from "@penguin/core";
import { Schema } from "effect";
import { badRequest } from "../http/api-error.js";
import { json } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import { AgentId, IntFromText, Matching, Text, WithDefault } from "../http/schemas.js";
import type { ServerContext } from "../server-context.js";
import { queryUsage } from "../services/usage-query.js";
import { UsageErrors, UsageReport } from "../contract/index.js";

const DateText = Matching(/^\d{4}-\d{2}-\d{2}$/, "must be YYYY-MM-DD");

const FilterFields = {
  from: Schema.optional(DateText),
  to: Schema.optional(DateText),
  fromTs: Schema.optional(IntFromText(0)),
  toTs: Schema.optional(IntFromText(0)),
  agentId: Schema.optional(AgentId),
  provider: Schema.optional(Text(1)),
  modelId: Schema.optional(Text(1)),
};

const Filter = Schema.Struct(FilterFields);

const UsageQuery = Schema.Struct({
  ...FilterFields,
  groupBy: WithDefault(Schema.Literal("date", "agent", "model", "session"), "date"),
  granularity: WithDefault(Schema.Literal("minute", "hour", "day", "week", "month"), "day"),
});

const ErrorsQuery = Schema.Struct({
  ...FilterFields,
  limit: WithDefault(IntFromText(1, 500), 50),
  offset: WithDefault(IntFromText(0), 0),
});

export function usageRoutes(table: RouteTable, ctx: ServerContext): void {
  const filterOf = (projectId: string, q: typeof Filter.Type) => {
    if ((q.provider === undefined) !== (q.modelId === undefined)) throw badRequest("a model is the pair (provider, modelId): give both or neither", q.provider === undefined ? "provider" : "modelId");
    return { projectId, fromDate: q.from, toDate: q.to, fromTs: q.fromTs, toTs: q.toTs, agentId: q.agentId, provider: q.provider, modelId: q.modelId };
  };

  table.add(
    { method: "get", path: "/api/projects/:p/usage", operationId: "usage.get", summary: "Token usage and cost, grouped", tag: "usage", access: "project", query: UsageQuery, responses: { 200: { description: "{groupBy, granularity, rows, totals}", schema: UsageReport } } },
    async ({ grant, query }) => {
      const config = readProjectConfig(grant.paths.projectConfig);
      return json(await queryUsage(ctx.stores.usage, config, filterOf(grant.project.projectId, query), query.groupBy, query.granularity));
    },
  );

  table.add(
    { method: "get", path: "/api/projects/:p/usage/errors", operationId: "usage.errors", summary: "Failed requests, newest first", tag: "usage", access: "project", query: ErrorsQuery, responses: { 200: { description: "{items, total}", schema: UsageErrors } } },
    async ({ grant, query }) => json(await ctx.stores.usage.errors(filterOf(grant.project.projectId, query), query.limit, query.offset)),
  );
}
