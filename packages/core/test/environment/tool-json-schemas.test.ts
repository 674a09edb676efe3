// The builtin tools' JSON Schemas made at build time (src/environment/tool-json-schemas.generated.ts).
//
// The file must be what the generator writes now, so a change to a tool's params without
// `npm run generate --prefix packages/core` fails here, and the generator's own --check is shown
// to say so. Every entry must be the slow derivation of the schema the tool really uses (key order
// included: it is what the model is sent), and the Environment must serve those answers. A schema
// the file does not hold, or holds for other fields, is derived as before.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Schema } from "effect";
import { afterEach, describe, expect, it } from "vitest";
import type { SubagentRunner } from "../../src/interfaces.js";
import { BUILTIN_TOOL_PARAMS, currentToolJsonSchemas } from "../../src/environment/builtin-tool-params.js";
import { builtinDefinitions, deriveJsonSchema, jsonSchemaOf, paramsFingerprint, primeJsonSchemas } from "../../src/environment/catalog.js";
import { TOOL_JSON_SCHEMAS } from "../../src/environment/tool-json-schemas.generated.js";
import { renderToolJsonSchemasModule } from "../../src/environment/tool-json-schemas-render.js";
import { optional, required, withDefault } from "../../src/environment/tool-params.js";
import { readFileParams } from "../../src/environment/tools/read-file.js";
import { sandbox, type Sandbox } from "./helpers.js";

const CORE = fileURLToPath(new URL("../../", import.meta.url));
const GENERATED = join(CORE, "src", "environment", "tool-json-schemas.generated.ts");
const REGENERATE = "npm run generate --prefix packages/core";

const neverSpawns: SubagentRunner = { spawn: () => Promise.reject(new Error("these tests never run subagents")) };

let boxes: Sandbox[] = [];
let temps: string[] = [];
afterEach(async () => {
  for (const box of boxes) await box.cleanup();
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
  boxes = [];
  temps = [];
});

/** The generator script itself, in a child process, as `npm run generate` starts it. */
function generator(...args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, ["--conditions=development", "--import", "tsx", "scripts/generate-tool-json-schemas.ts", ...args], { cwd: CORE, encoding: "utf8" });
  return { status: r.status, stderr: r.stderr };
}

/** Each builtin tool's parameters as an Environment lists them, the `description` parameter left out. */
function listedParameters(): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const vision of [false, true]) {
    const box = sandbox({ vision, subagents: neverSpawns, callDescription: false });
    boxes.push(box);
    for (const tool of box.env.listTools()) out.set(tool.name, tool.parameters);
  }
  return out;
}

describe("tool-json-schemas.generated.ts", () => {
  it(`is what the generator writes now (else: ${REGENERATE})`, () => {
    const onDisk = readFileSync(GENERATED, "utf8");
    expect(onDisk, `src/environment/tool-json-schemas.generated.ts is stale: run \`${REGENERATE}\` and commit the result`).toBe(
      renderToolJsonSchemasModule(currentToolJsonSchemas()),
    );
  });

  it("is written byte for byte by the generator script, whose --check fails on a stale file and names the command", () => {
    const dir = mkdtempSync(join(tmpdir(), "penguin-tool-schemas-"));
    temps.push(dir);
    const out = join(dir, "tool-json-schemas.generated.ts");
    expect(generator("--out", out).status).toBe(0);
    expect(readFileSync(out, "utf8")).toBe(readFileSync(GENERATED, "utf8"));
    expect(generator("--check", "--out", out)).toMatchObject({ status: 0, stderr: "" });
    writeFileSync(out, readFileSync(out, "utf8").replace("How many lines to return.", "How many lines to return at most."));
    const stale = generator("--check", "--out", out);
    expect(stale.status).toBe(1);
    expect(stale.stderr).toContain(`is stale: run \`${REGENERATE}\` and commit the result`);
  });

  it("changes when a tool's params gain a field, in its text and its fingerprint", () => {
    const grown = Schema.Struct({ ...readFileParams.fields, encoding: optional(Schema.String, "The text encoding.") });
    const now = currentToolJsonSchemas();
    const changed = { ...now, read_file: { fingerprint: paramsFingerprint(grown)!, parameters: deriveJsonSchema(grown) } };
    expect(changed.read_file.fingerprint).toBe("file_path offset? limit? encoding?");
    expect(renderToolJsonSchemasModule(changed)).not.toBe(renderToolJsonSchemasModule(now));
    // The runtime check alone catches it: the old entry is not taken for the grown schema.
    expect(primeJsonSchemas([[grown, TOOL_JSON_SCHEMAS.read_file]])).toBe(0);
    expect(jsonSchemaOf(grown)).toMatchObject({ properties: { encoding: { type: "string", description: "The text encoding." } } });
  });

  it("holds, for every builtin tool, the slow derivation of its params, key order included", () => {
    expect(Object.keys(TOOL_JSON_SCHEMAS)).toEqual(Object.keys(BUILTIN_TOOL_PARAMS));
    for (const [name, params] of Object.entries(BUILTIN_TOOL_PARAMS)) {
      const entry = TOOL_JSON_SCHEMAS[name]!;
      expect({ name, fingerprint: entry.fingerprint }).toEqual({ name, fingerprint: paramsFingerprint(params) });
      expect({ name, parameters: JSON.stringify(entry.parameters) }).toEqual({ name, parameters: JSON.stringify(deriveJsonSchema(params)) });
    }
  });

  it("is what the Environment serves: every tool it offers is in the list, with the schema it uses", () => {
    const listed = listedParameters();
    expect([...listed.keys()].sort()).toEqual(Object.keys(BUILTIN_TOOL_PARAMS).sort());
    for (const [name, parameters] of listed) {
      expect({ name, parameters: JSON.stringify(parameters) }).toEqual({ name, parameters: JSON.stringify(TOOL_JSON_SCHEMAS[name]!.parameters) });
    }
    // The Environment primed them: every entry matches its schema, and each answer is a copy.
    const entries = Object.entries(BUILTIN_TOOL_PARAMS).map(([name, params]) => [params, TOOL_JSON_SCHEMAS[name]] as const);
    expect(primeJsonSchemas(entries)).toBe(entries.length);
    const first = jsonSchemaOf(BUILTIN_TOOL_PARAMS.read_file!);
    (first.properties as Record<string, unknown>).extra = { type: "string" };
    expect(jsonSchemaOf(BUILTIN_TOOL_PARAMS.read_file!)).toEqual(TOOL_JSON_SCHEMAS.read_file!.parameters);
  });
});

describe("priming the cache", () => {
  it("serves a primed answer without deriving one", () => {
    const params = Schema.Struct({ path: required(Schema.String, "A path."), depth: withDefault(Schema.Number, 1, "How deep.") });
    const marked = { type: "object", description: "the primed answer, which no derivation gives" };
    expect(primeJsonSchemas([[params, { fingerprint: "path depth?", parameters: marked }]])).toBe(1);
    expect(jsonSchemaOf(params)).toEqual(marked);
  });

  it("derives a schema that has no entry, or an entry for other fields, or is not a struct", () => {
    const params = Schema.Struct({ path: required(Schema.String, "A path."), depth: withDefault(Schema.Number, 1, "How deep.") });
    const other = Schema.Struct({ path: required(Schema.String, "A path.") });
    const notStruct = Schema.String.annotations({ description: "Not a struct." });
    const wrong = { type: "object", description: "an answer for other fields" };
    expect(primeJsonSchemas([[params, undefined], [other, { fingerprint: "path depth?", parameters: wrong }], [notStruct, { fingerprint: "", parameters: wrong }]])).toBe(0);
    expect(jsonSchemaOf(params)).toEqual({
      type: "object",
      required: ["path"],
      properties: { path: { type: "string", description: "A path." }, depth: { type: "number", description: "How deep.", default: 1 } },
    });
    expect(jsonSchemaOf(other)).toEqual(deriveJsonSchema(other));
    expect(jsonSchemaOf(notStruct)).toEqual({ type: "string", description: "Not a struct." });
  });

  it("keeps the first answer a schema got", () => {
    const params = Schema.Struct({ path: required(Schema.String, "A path.") });
    const derived = jsonSchemaOf(params);
    expect(primeJsonSchemas([[params, { fingerprint: "path", parameters: { type: "object", description: "late" } }]])).toBe(1);
    expect(jsonSchemaOf(params)).toEqual(derived);
  });

  it("leaves a custom tool's schema to the slow path in the tool list, description parameter added", () => {
    const params = Schema.Struct({ query: required(Schema.String, "What to look for.") });
    const [definition] = builtinDefinitions([{ name: "search_notes", description: "Searches notes.", params, takesDescription: true }], { callDescription: true });
    expect(definition!.parameters).toMatchObject({
      required: ["query", "description"],
      properties: { query: { type: "string", description: "What to look for." }, description: { type: "string" } },
    });
  });
});
