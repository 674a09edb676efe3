/**
 * The route table: how every API route is declared, guarded, validated and described.
 *
 * A resource file (routes/*.ts) adds routes as data plus a thin handler:
 *
 *   table.add({ method: "post", path: "/api/sessions/:id/abort", operationId: "sessions.abort",
 *               summary: "…", tag: "sessions", access: "session", body: AbortBody,
 *               responses: { 202: { description: "…" } } },
 *             async ({ grant, body }) => …);
 *
 * For each request the table, in this order: requires a user unless the route is `public`
 * (401 otherwise); resolves the access grant through the one AccessPolicy (404 when denied;
 * path parameters are always `:p` project, `:a` agent, `:id` session); validates path,
 * query and JSON body with the route's zod schemas (400 naming the field); then calls the
 * handler with typed input. The same specs generate the OpenAPI document (http/openapi.ts),
 * so the description cannot drift from what is enforced.
 */
import type { Context, Hono } from "hono";
import type { z } from "zod";
import type { AccessPolicy, AgentGrant, Need, ProjectGrant, SessionGrant } from "../auth/access.js";
import { ApiError, notFound } from "./api-error.js";
import type { AppEnv, AuthUser } from "./app-env.js";
import { parseInput, readJsonBody, type InputPart } from "./validate.js";

export type AccessKind = "public" | "user" | "admin" | "project" | "agent" | "session";
export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

export interface GrantByKind {
  public: { user: AuthUser | undefined };
  user: { user: AuthUser };
  admin: { user: AuthUser };
  project: { user: AuthUser; grant: ProjectGrant };
  agent: { user: AuthUser; grant: AgentGrant };
  session: { user: AuthUser; grant: SessionGrant };
}

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** Default application/json. */
  contentType?: string;
}

/** A part's value: the schema's output, or the raw strings (path, query) / undefined (body) without one. */
export type PartOf<S extends z.ZodType | undefined, Raw> = S extends z.ZodType ? z.output<S> : Raw;

export interface RouteSpec<K extends AccessKind, P extends z.ZodType | undefined, Q extends z.ZodType | undefined, B extends z.ZodType | undefined> {
  method: HttpMethod;
  path: string;
  /** Stable id (`resource.action`), also the OpenAPI operationId. */
  operationId: string;
  summary: string;
  tag: string;
  access: K;
  /** For project, agent and session routes; default `read`. */
  need?: Need;
  params?: P;
  query?: Q;
  body?: B;
  /** Body cap in bytes; default 1 MiB. */
  maxBodyBytes?: number;
  responses: Record<number, ResponseSpec>;
}

export type RouteInput<K extends AccessKind, P extends z.ZodType | undefined, Q extends z.ZodType | undefined, B extends z.ZodType | undefined> = GrantByKind[K] & {
  c: Context<AppEnv>;
  params: PartOf<P, Record<string, string>>;
  query: PartOf<Q, Record<string, string>>;
  body: PartOf<B, undefined>;
};

export type RouteHandler<K extends AccessKind, P extends z.ZodType | undefined, Q extends z.ZodType | undefined, B extends z.ZodType | undefined> = (
  input: RouteInput<K, P, Q, B>,
) => Response | Promise<Response>;

/** What the OpenAPI generator reads: the spec without its generics. */
export interface DescribedRoute {
  method: HttpMethod;
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  access: AccessKind;
  need: Need | undefined;
  params: z.ZodType | undefined;
  query: z.ZodType | undefined;
  body: z.ZodType | undefined;
  responses: Record<number, ResponseSpec>;
}

const DEFAULT_MAX_BODY = 1024 * 1024;

type Resolvers = { [K in AccessKind]: (c: Context<AppEnv>, user: AuthUser | undefined, need: Need) => GrantByKind[K] };

export class RouteTable {
  readonly routes: DescribedRoute[] = [];
  readonly #app: Hono<AppEnv>;
  readonly #resolvers: Resolvers;
  readonly #ids = new Set<string>();

  constructor(app: Hono<AppEnv>, access: AccessPolicy) {
    this.#app = app;
    const signedIn = (user: AuthUser | undefined): AuthUser => {
      if (user === undefined) throw new ApiError(401, "unauthorized", "sign in first");
      return user;
    };
    const param = (c: Context<AppEnv>, name: string): string => c.req.param(name) ?? "";
    this.#resolvers = {
      public: (_c, user) => ({ user }),
      user: (_c, user) => ({ user: signedIn(user) }),
      admin: (c, user) => {
        const u = signedIn(user);
        if (!u.isAdmin) throw notFound(new URL(c.req.url).pathname);
        return { user: u };
      },
      project: (c, user, need) => {
        const u = signedIn(user);
        return { user: u, grant: access.project(u, param(c, "p"), need) };
      },
      agent: (c, user, need) => {
        const u = signedIn(user);
        return { user: u, grant: access.agent(u, param(c, "p"), param(c, "a"), need) };
      },
      session: (c, user, need) => {
        const u = signedIn(user);
        return { user: u, grant: access.session(u, param(c, "id"), need) };
      },
    };
  }

  add<K extends AccessKind, P extends z.ZodType | undefined = undefined, Q extends z.ZodType | undefined = undefined, B extends z.ZodType | undefined = undefined>(
    spec: RouteSpec<K, P, Q, B>,
    handler: RouteHandler<K, P, Q, B>,
  ): void {
    if (this.#ids.has(spec.operationId)) throw new Error(`duplicate operationId "${spec.operationId}": every route needs its own`);
    this.#ids.add(spec.operationId);
    this.routes.push({
      method: spec.method,
      path: spec.path,
      operationId: spec.operationId,
      summary: spec.summary,
      tag: spec.tag,
      access: spec.access,
      need: spec.need,
      params: spec.params,
      query: spec.query,
      body: spec.body,
      responses: spec.responses,
    });
    const resolve = this.#resolvers[spec.access];
    const need = spec.need ?? "read";
    const maxBody = spec.maxBodyBytes ?? DEFAULT_MAX_BODY;
    this.#app.on(spec.method.toUpperCase(), spec.path, async (c) => {
      const grant = resolve(c, c.get("user"), need);
      const rawParams: Record<string, string> = c.req.param();
      const rawQuery: Record<string, string> = c.req.query();
      const params = parsePart<P, Record<string, string>>(spec.params, rawParams, rawParams, "path");
      const query = parsePart<Q, Record<string, string>>(spec.query, rawQuery, rawQuery, "query");
      const bodyValue = spec.body === undefined ? undefined : await readJsonBody(c.req.raw, maxBody);
      const body = parsePart<B, undefined>(spec.body, bodyValue, undefined, "body");
      return handler({ ...grant, c, params, query, body });
    });
  }
}

/**
 * Validates one part with its schema, or passes the raw value through when the route has
 * none. The overload states the correlation TypeScript cannot follow through a generic
 * (schema present ⇒ its output type); the single implementation below keeps it true.
 */
function parsePart<S extends z.ZodType | undefined, Raw>(schema: S | undefined, value: unknown, raw: Raw, part: InputPart): PartOf<S, Raw>;
function parsePart(schema: z.ZodType | undefined, value: unknown, raw: unknown, part: InputPart): unknown {
  return schema === undefined ? raw : parseInput(schema, value, part);
}
