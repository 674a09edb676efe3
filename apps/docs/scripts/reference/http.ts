/**
 * The HTTP reference, from the server's OpenAPI 3.1 document (apps/server/src/http/openapi.ts),
 * which the server builds from its route table and the same effect/Schema schemas that decode
 * requests. The generator builds a real server app on a temporary data root and reads its
 * routes; this file only renders the document: routes grouped by tag, with their access,
 * parameters, body fields, response statuses and the fields of each success response's body
 * (read from the response schemas of apps/server/src/contract by http-schemas.ts).
 */
import { asArray, asJson, responseBodies, schemaWords, type ResponseBody } from "./http-schemas.js";
import { blocks, code, pageHeader, table, text, type Lang } from "./markdown.js";

export interface HttpRoute {
  method: string;
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  signedIn: boolean;
  parameters: { name: string; in: string; required: boolean; type: string }[];
  bodyFields: { name: string; required: boolean; type: string }[];
  statuses: { status: string; description: string }[];
  /** The success responses' bodies (2xx with a schema in the document). */
  responseBodies: ResponseBody[];
}

export function httpRoutes(document: unknown): HttpRoute[] {
  const routes: HttpRoute[] = [];
  for (const [path, methods] of Object.entries(asJson(asJson(document).paths))) {
    for (const [method, op] of Object.entries(asJson(methods))) {
      const operation = asJson(op);
      const body = asJson(asJson(asJson(asJson(operation.requestBody).content)["application/json"]).schema);
      const required = asArray(body.required).map(String);
      routes.push({
        method: method.toUpperCase(),
        path,
        operationId: String(operation.operationId ?? ""),
        summary: String(operation.summary ?? ""),
        tag: String(asArray(operation.tags)[0] ?? "other"),
        signedIn: operation.security !== undefined,
        parameters: asArray(operation.parameters).map((p) => {
          const param = asJson(p);
          return { name: String(param.name), in: String(param.in), required: param.required === true, type: schemaWords(param.schema) };
        }),
        bodyFields: Object.entries(asJson(body.properties)).map(([name, schema]) => ({ name, required: required.includes(name), type: schemaWords(schema) })),
        statuses: Object.entries(asJson(operation.responses)).map(([status, r]) => ({ status, description: String(asJson(r).description ?? "") })),
        responseBodies: responseBodies(operation.responses),
      });
    }
  }
  return routes;
}

const WORDS = {
  en: {
    title: "HTTP reference",
    intro:
      "The server's API (`penguin server`, `penguin web`). Routes marked signed in need the `penguin_session` cookie from `POST /api/auth/login`; a route may also check the user's grant on the project, agent or session. The live document is served at `/api/openapi.json`.",
    access: "Access",
    publicRoute: "public",
    signedIn: "signed in",
    params: "Parameters",
    body: "Body (JSON)",
    responses: "Responses",
    responseBody: (status: string, type: string) => `Response ${status} (${type})`,
    name: "Name",
    where: "In",
    type: "Type",
    required: "Required",
    yes: "yes",
    status: "Status",
    meaning: "Meaning",
    tag: (t: string) => `${t}`,
  },
  zh: {
    title: "HTTP 参考",
    intro:
      "服务器（`penguin server`、`penguin web`）的 API。标为需登录的路由需要 `POST /api/auth/login` 返回的 `penguin_session` cookie；路由还可能检查用户对项目、agent 或会话的授权。运行中的服务器在 `/api/openapi.json` 提供同一文档。",
    access: "访问",
    publicRoute: "公开",
    signedIn: "需登录",
    params: "参数",
    body: "请求体（JSON）",
    responses: "响应",
    responseBody: (status: string, type: string) => `响应 ${status}（${type}）`,
    name: "名称",
    where: "位置",
    type: "类型",
    required: "必填",
    yes: "是",
    status: "状态码",
    meaning: "含义",
    tag: (t: string) => `${t}`,
  },
} as const;

function routeSection(route: HttpRoute, lang: Lang): string {
  const w = WORDS[lang];
  return blocks([
    `### ${route.method} ${route.path.replace(/[{}]/g, (c) => (c === "{" ? ":" : ""))}`,
    `${text(route.summary)} · ${w.access}: ${route.signedIn ? w.signedIn : w.publicRoute} · ${code(route.operationId)}`,
    route.parameters.length > 0
      ? `**${w.params}**\n\n${table([w.name, w.where, w.type, w.required], route.parameters.map((p) => [code(p.name), p.in, text(p.type), p.required ? w.yes : ""]))}`
      : "",
    route.bodyFields.length > 0 ? `**${w.body}**\n\n${table([w.name, w.type, w.required], route.bodyFields.map((f) => [code(f.name), text(f.type), f.required ? w.yes : ""]))}` : "",
    `**${w.responses}**: ${route.statuses.map((s) => `${code(s.status)} ${text(s.description)}`).join(" · ")}`,
    ...route.responseBodies.map((b) =>
      [
        `**${w.responseBody(b.status, b.contentType)}**: ${text(b.shape)}`,
        table([w.name, w.type, w.required], b.fields.map((f) => [code(f.name), text(f.type), f.required ? w.yes : ""])),
      ]
        .filter((part) => part !== "")
        .join("\n\n"),
    ),
  ]).trimEnd();
}

export function httpReferencePage(routes: readonly HttpRoute[], lang: Lang): string {
  const w = WORDS[lang];
  const tags = [...new Set(routes.map((r) => r.tag))];
  return blocks([
    pageHeader(lang, w.title, code("openApiDocument") + " (apps/server/src/http/openapi.ts)", w.intro).trimEnd(),
    "::: v-pre",
    ...tags.flatMap((tag) => [`## ${w.tag(tag)}`, ...routes.filter((r) => r.tag === tag).map((r) => routeSection(r, lang))]),
    ":::",
  ]);
}
