// The HTTP reference lists each success response's body fields, read from the response schemas
// the server's OpenAPI document carries (apps/server/src/contract via JSONSchema.make): the
// walker follows `$defs` references, `X or null` and arrays two levels deep, every route the
// document gives a body schema gets its table, and the Chinese pages say in one line that
// their descriptions are the code's English.
import { beforeAll, describe, expect, it } from "vitest";
import { responseBodies } from "../scripts/reference/http-schemas.js";
import { ZH_LANGUAGE_NOTE } from "../scripts/reference/markdown.js";
import { referenceInputs, referencePages, stalePages, type ReferenceInputs } from "../scripts/references.js";

let inputs: ReferenceInputs;
beforeAll(async () => {
  inputs = await referenceInputs();
}, 60_000);

describe("response bodies in the HTTP reference", () => {
  it("walk $defs references, nullable objects and arrays into dotted field paths", () => {
    const responses = {
      "200": {
        description: "a page",
        content: {
          "application/json": {
            schema: {
              $defs: { Item: { type: "object", required: ["id"], properties: { id: { type: "string" }, size: { type: "integer" } } } },
              type: "object",
              required: ["items", "owner"],
              properties: {
                items: { type: "array", items: { $ref: "#/$defs/Item" } },
                owner: { anyOf: [{ type: "object", required: ["name"], properties: { name: { type: "string" } } }, { type: "null" }] },
              },
            },
          },
        },
      },
      "404": { description: "missing", content: { "application/json": { schema: { type: "object", properties: { error: { type: "object" } } } } } },
      "204": { description: "nothing" },
    };
    expect(responseBodies(responses)).toEqual([
      {
        status: "200",
        contentType: "application/json",
        shape: "object",
        fields: [
          { name: "items", required: true, type: "array of Item" },
          { name: "items[].id", required: true, type: "string" },
          { name: "items[].size", required: false, type: "integer" },
          { name: "owner", required: true, type: "object or null" },
          { name: "owner.name", required: true, type: "string" },
        ],
      },
    ]);
  });

  it("are rendered for every route whose success response has a schema in the document", () => {
    const http = referencePages(inputs).get("reference/http.md") ?? "";
    const withBodies = inputs.http.filter((r) => r.responseBodies.length > 0);
    expect(withBodies.length, "routes whose 2xx answer has a JSON schema").toBeGreaterThan(80);
    for (const route of withBodies) {
      const heading = `### ${route.method} ${route.path.replace(/\{([^}]+)\}/g, ":$1")}\n`;
      const section = http.slice(http.indexOf(heading), http.indexOf("\n### ", http.indexOf(heading) + 1));
      for (const body of route.responseBodies) {
        expect(section, `${heading.trim()} ${body.status}`).toContain(`**Response ${body.status} (${body.contentType})**`);
        for (const field of body.fields) expect(section, `${heading.trim()} ${field.name}`).toContain(`| \`${field.name}\` |`);
      }
    }
    const session = inputs.http.find((r) => r.method === "GET" && r.path === "/api/sessions/{id}");
    expect(session?.responseBodies[0]?.fields.map((f) => f.name)).toEqual(expect.arrayContaining(["id", "client", "forkedFrom.sessionId", "usage"]));
  });

  it("fail the check when a response field is added and the pages are not regenerated", () => {
    const first = inputs.http.find((r) => r.responseBodies.length > 0)!;
    const body = first.responseBodies[0]!;
    const withField = { ...first, responseBodies: [{ ...body, fields: [...body.fields, { name: "fixtureField", required: true, type: "string" }] }] };
    const changed: ReferenceInputs = { ...inputs, http: inputs.http.map((r) => (r === first ? withField : r)) };
    expect(stalePages(referencePages(inputs))).toEqual([]);
    const stale = stalePages(referencePages(changed)).map((line) => line.split(" ")[0]);
    expect(stale).toEqual(["apps/docs/site/reference/http.md", "apps/docs/site/zh/reference/http.md"]);
  });
});

describe("the Chinese reference pages", () => {
  it("say in one line under the title that descriptions are the code's English, the English pages do not", () => {
    for (const [path, page] of referencePages(inputs)) {
      const lines = page.split("\n");
      const title = lines.findIndex((l) => l.startsWith("# "));
      if (path.startsWith("zh/")) {
        expect(lines[title + 2], path).toBe(ZH_LANGUAGE_NOTE);
        expect(page.split(ZH_LANGUAGE_NOTE).length, path).toBe(2);
      } else {
        expect(page, path).not.toContain(ZH_LANGUAGE_NOTE);
      }
    }
  });
});
