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
 * (401 otherwise); refuses a user who still has the initial password (403
 * `password_change_required`) except on the few routes marked `beforePasswordChange`; resolves the access grant through the one AccessPolicy (404 when denied;
 * path parameters are always `:p` project, `:a` agent, `:id` session); validates path,
 * query and JSON body with the route's effect/Schema schemas (400 naming the field); then
 * calls the handler with typed input and sends the Response it returns through the express
 * adapter. Paths are written `:name`, with `:name{.+}` for a parameter spanning several
 * segments and a trailing `/*` for any rest; `expressPath` turns them into express 5's
 * `*name` syntax (a bare `*` is invalid there). The same specs generate the OpenAPI document (http/openapi.ts),
 * so the description cannot drift from what is enforced.
 */
import type { Express, NextFunction, Request as ExpressRequest, Response as ExpressResponse } from "express";
import type { Schema } from "effect";
import type { AccessPolicy, AgentGrant, Need, ProjectGrant, SessionGrant } from "../auth/access.js";
import { ApiError, notFound } from "./api-error.js";
import { contextOf, sendResponse } from "./express-adapter.js";
import { readJsonBody } from "./json-body.js";
import type { AuthUser, RequestContext } from "./request-context.js";
import { inputDecoder, type InputPart, type InputSchema } from "./validate.js";

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
  schema?: InputSchema;
  /** Default application/json. */
  contentType?: string;
}

/** A part's value: the schema's decoded type, or the raw strings (path, query) / undefined (body) without one. */
export type PartOf<S extends InputSchema | undefined, Raw> = S extends InputSchema ? Schema.Schema.Type<S> : Raw;

export interface RouteSpec<K extends AccessKind, P extends InputSchema | undefined, Q extends InputSchema | undefined, B extends InputSchema | undefined> {
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
  /**
   * Reachable by a user who still has the initial password (who am I, change it, sign out).
   * Every other signed-in route answers 403 until the password is changed.
   */
  beforePasswordChange?: true;
  /** Body cap in bytes; default 1 MiB. */
  maxBodyBytes?: number;
  responses: Record<number, ResponseSpec>;
}

export type RouteInput<K extends AccessKind, P extends InputSchema | undefined, Q extends InputSchema | undefined, B extends InputSchema | undefined> = GrantByKind[K] & {
  c: RequestContext;
  params: PartOf<P, Record<string, string>>;
  query: PartOf<Q, Record<string, string>>;
  body: PartOf<B, undefined>;
};

export type RouteHandler<K extends AccessKind, P extends InputSchema | undefined, Q extends InputSchema | undefined, B extends InputSchema | undefined> = (
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
  beforePasswordChange: boolean;
  params: InputSchema | undefined;
  query: InputSchema | undefined;
  body: InputSchema | undefined;
  responses: Record<number, ResponseSpec>;
}

const DEFAULT_MAX_BODY = 1024 * 1024;

type Params = Record<string, string>;
type Resolvers = { [K in AccessKind]: (c: RequestContext, params: Params, need: Need, beforePasswordChange: boolean) => GrantByKind[K] };

export class RouteTable {
  readonly routes: DescribedRoute[] = [];
  readonly #app: Express;
  readonly #resolvers: Resolvers;
  readonly #ids = new Set<string>();

  constructor(app: Express, access: AccessPolicy) {
    this.#app = app;
    const signedIn = (user: AuthUser | undefined, beforePasswordChange = false): AuthUser => {
      if (user === undefined) throw new ApiError(401, "unauthorized", "sign in first");
      if (user.passwordIsInitial && !beforePasswordChange) {
        throw new ApiError(403, "password_change_required", "change the initial password first (PUT /api/me/password)");
      }
      return user;
    };
    this.#resolvers = {
      public: (c) => ({ user: c.user }),
      user: (c, _params, _need, beforePasswordChange) => ({ user: signedIn(c.user, beforePasswordChange) }),
      admin: (c) => {
        const u = signedIn(c.user);
        if (!u.isAdmin) throw notFound(c.path);
        return { user: u };
      },
      project: (c, params, need) => {
        const u = signedIn(c.user);
        return { user: u, grant: access.project(u, params.p ?? "", need) };
      },
      agent: (c, params, need) => {
        const u = signedIn(c.user);
        return { user: u, grant: access.agent(u, params.p ?? "", params.a ?? "", need) };
      },
      session: (c, params, need) => {
        const u = signedIn(c.user);
        return { user: u, grant: access.session(u, params.id ?? "", need) };
      },
    };
  }

  add<K extends AccessKind, P extends InputSchema | undefined = undefined, Q extends InputSchema | undefined = undefined, B extends InputSchema | undefined = undefined>(
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
      beforePasswordChange: spec.beforePasswordChange === true,
      params: spec.params,
      query: spec.query,
      body: spec.body,
      responses: spec.responses,
    });
    const resolve = this.#resolvers[spec.access];
    const beforePasswordChange = spec.beforePasswordChange === true;
    const need = spec.need ?? "read";
    const maxBody = spec.maxBodyBytes ?? DEFAULT_MAX_BODY;
    const decodeParams = partDecoder<P, Params>(spec.params, "path");
    const decodeQuery = partDecoder<Q, Params>(spec.query, "query");
    const decodeBody = partDecoder<B, undefined>(spec.body, "body");
    const hasBody = spec.body !== undefined;
    const answer = async (req: ExpressRequest, c: RequestContext): Promise<Response> => {
      const rawParams = flatParams(req.params);
      const grant = resolve(c, rawParams, need, beforePasswordChange);
      const rawQuery = firstValues(c.url.searchParams);
      const params = decodeParams(rawParams, rawParams);
      const query = decodeQuery(rawQuery, rawQuery);
      const body = decodeBody(hasBody ? await readJsonBody(req, maxBody) : undefined, undefined);
      return handler({ ...grant, c, params, query, body });
    };
    this.#app[spec.method](expressPath(spec.path), async (req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
      try {
        const c = contextOf(res);
        // The answer is made in its own call: a streaming one (SSE) is sent for as long as the
        // connection lives, and must not keep the grant (its paths), params and body alive with it.
        const response = await answer(req, c);
        await sendResponse(res, response, c);
      } catch (error) {
        next(error);
      }
    });
  }
}

/**
 * `:file{.+}` (one parameter over several segments) → `*file`, and a trailing `/*` → an
 * optional `/{*rest}`: express 5 (path-to-regexp 8) has no regex suffixes and no bare `*`.
 */
export function expressPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)\{\.\+\}/g, "*$1").replace(/\/\*$/, "{/*rest}");
}

/** Express gives a multi-segment parameter as its segments; handlers see the path they spell. */
function flatParams(params: Record<string, string | string[] | undefined>): Params {
  const flat: Params = {};
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join("/") : value;
  }
  return flat;
}

/** The query as one string per name (the first when repeated), as the schemas expect. */
function firstValues(search: URLSearchParams): Params {
  const query: Params = {};
  for (const [name, value] of search) query[name] ??= value;
  return query;
}

/**
 * Builds one part's decoder once, at registration; without a schema the raw value passes
 * through. The overload states the correlation TypeScript cannot follow through a generic
 * (schema present ⇒ its decoded type); the single implementation keeps it true.
 */
function partDecoder<S extends InputSchema | undefined, Raw>(schema: S | undefined, part: InputPart): (value: unknown, raw: Raw) => PartOf<S, Raw>;
function partDecoder(schema: InputSchema | undefined, part: InputPart): (value: unknown, raw: unknown) => unknown {
  if (schema === undefined) return (_value, raw) => raw;
  const decode = inputDecoder(schema, part);
  return (value) => decode(value);
}
