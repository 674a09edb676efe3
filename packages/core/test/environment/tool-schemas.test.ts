// The builtin tools' parameters on effect/Schema: the JSON Schema the model sees, and how
// bad arguments are answered.
//
// fixtures/tool-parameters.zod.json is what the model was shown when the parameters were
// still zod schemas (captured from `listTools()` just before the switch). Every tool's
// schema must stay equivalent to it (same properties, types, descriptions, required keys,
// enums, defaults, no `additionalProperties` rule), and none may carry what some providers
// refuse (`$schema`, `$ref`, `$defs`) or what only effect uses (`title`, lone `allOf`s).
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { Schema } from "effect";
import type { SubagentRunner } from "../../src/interfaces.js";
import { jsonSchemaOf } from "../../src/environment/catalog.js";
import { expectedOf, parseToolArguments } from "../../src/environment/arguments.js";
import { readFileParams } from "../../src/environment/tools/read-file.js";
import { runSubagentParams } from "../../src/environment/tools/run-subagent.js";
import { execCommandParams } from "../../src/environment/tools/exec-command.js";
import { NonEmptyString, optional, required, wholeNumberFrom, withDefault } from "../../src/environment/tool-params.js";
import { call, sandbox, type Sandbox } from "./helpers.js";

const beforeSwitch = JSON.parse(readFileSync(new URL("./fixtures/tool-parameters.zod.json", import.meta.url), "utf8")) as Record<string, unknown>;

const neverSpawns: SubagentRunner = {
  spawn: () => Promise.reject(new Error("these tests never run subagents")),
};

let boxes: Sandbox[] = [];
afterEach(async () => {
  for (const box of boxes) await box.cleanup();
  boxes = [];
});

function everyToolSchema(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const vision of [false, true]) {
    const box = sandbox({ vision, subagents: neverSpawns });
    boxes.push(box);
    for (const tool of box.env.listTools()) out[tool.name] = tool.parameters;
  }
  return out;
}

/** Every key used anywhere in a JSON value. */
function keysIn(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) keysIn(v, into);
  else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      into.add(k);
      keysIn(v, into);
    }
  }
  return into;
}

describe("the JSON Schema the model sees", () => {
  it("is, for every builtin tool, what the zod schemas produced", () => {
    const now = everyToolSchema();
    expect(Object.keys(now).sort()).toEqual(Object.keys(beforeSwitch).sort());
    for (const [name, parameters] of Object.entries(beforeSwitch)) {
      expect({ name, parameters: now[name] }).toEqual({ name, parameters });
    }
  });

  it("carries no $schema, $ref, $defs, title, allOf or additionalProperties anywhere", () => {
    const keys = keysIn(everyToolSchema());
    for (const banned of ["$schema", "$ref", "$defs", "title", "allOf", "additionalProperties"]) expect(keys.has(banned)).toBe(false);
  });

  it("inlines named (referenced) schemas and merges the wrapper effect puts around them", () => {
    const Level = Schema.Literal("low", "high").annotations({ identifier: "Level" });
    const Where = Schema.Struct({ path: required(NonEmptyString, "A path.") }).annotations({ identifier: "Where" });
    const params = Schema.Struct({
      count: required(Schema.Int, "How many."),
      level: optional(Level, "How hard."),
      where: required(Where, "Where to look."),
      also: optional(Schema.Array(Where), "More places."),
    });
    expect(jsonSchemaOf(params)).toEqual({
      type: "object",
      required: ["count", "where"],
      properties: {
        count: { type: "integer", description: "How many." },
        level: { type: "string", enum: ["low", "high"], description: "How hard." },
        where: {
          type: "object",
          required: ["path"],
          properties: { path: { type: "string", minLength: 1, description: "A path." } },
          description: "Where to look.",
        },
        also: {
          type: "array",
          items: { type: "object", required: ["path"], properties: { path: { type: "string", minLength: 1, description: "A path." } } },
          description: "More places.",
        },
      },
    });
  });

  it("keeps data values whole, even keys that are schema words in a schema", () => {
    const params = Schema.Struct({
      shape: withDefault(Schema.Struct({ title: Schema.String }), { title: "kept" }, "A default that has a title."),
    });
    expect(jsonSchemaOf(params)).toMatchObject({ properties: { shape: { default: { title: "kept" } } } });
  });
});

describe("decoding arguments", () => {
  const decode = (raw: unknown, schema: Schema.Schema<any, any> = readFileParams) =>
    parseToolArguments("some_tool", JSON.stringify(raw), schema, { requireDescription: false });

  it("fills defaults and drops keys the tool does not know", () => {
    expect(decode({ file_path: "a.txt", colour: "red" })).toEqual({ ok: true, value: { file_path: "a.txt", offset: 1, limit: 2000 } });
    expect(decode({ cmd: "ls", workdir: "sub" }, execCommandParams)).toEqual({
      ok: true,
      value: { cmd: "ls", workdir: "sub", yield_time_ms: 60_000, run_in_background: false },
    });
  });

  it("names each bad field, what it expected and what it got, all at once", () => {
    const result = decode({ file_path: "", offset: 1.5, limit: "ten" });
    expect(result).toEqual({
      ok: false,
      error:
        'Invalid arguments for some_tool: `file_path`: Invalid input: expected a non-empty string, got ""; ' +
        "`offset`: Invalid input: expected a whole number, got 1.5; " +
        '`limit`: Invalid input: expected number, got "ten".',
    });
  });

  it("says a whole number's lower bound, and an enum's allowed values", () => {
    const result = decode({ prompt: "go", yield_time_ms: -5, thinking_level: "extreme", run_in_background: "yes" }, runSubagentParams);
    expect(result.ok).toBe(false);
    const error = result.ok ? "" : result.error;
    expect(error).toContain("`yield_time_ms`: Invalid input: expected a whole number of at least 0, got -5");
    expect(error).toContain('`thinking_level`: Invalid input: expected one of "none", "low", "medium", "high", "xhigh", "max", got "extreme"');
    expect(error).toContain('`run_in_background`: Invalid input: expected boolean, got "yes"');
  });

  it("reports missing required parameters, with an empty string counting as no arguments", () => {
    const result = parseToolArguments("read_file", "", readFileParams, { requireDescription: true });
    expect(result).toEqual({
      ok: false,
      error: "Invalid arguments for read_file: `file_path`: missing required parameter; `description`: missing required parameter.",
    });
  });

  it("describes what other schema nodes expect", () => {
    expect(expectedOf(Schema.String.ast)).toBe("string");
    expect(expectedOf(Schema.Literal("only").ast)).toBe('"only"');
    expect(expectedOf(wholeNumberFrom(3).ast)).toBe("a whole number of at least 3");
    expect(expectedOf(Schema.Number.pipe(Schema.between(1, 9)).ast)).toBe("a number of at least 1 and at most 9");
    expect(expectedOf(Schema.String.pipe(Schema.minLength(4)).ast)).toBe("a string of at least 4 characters");
    expect(expectedOf(Schema.Struct({}).ast)).toBe("an object");
  });

  it("reaches the model as a failed tool output through a real Environment", async () => {
    const box = sandbox();
    boxes.push(box);
    const r = await call(box.env, "read_file", { file_path: "a.txt", limit: 0 });
    expect(r.stopReason).toBe("failed");
    expect(r.output).toContain("`limit`: Invalid input: expected a whole number of at least 1, got 0");
  });
});
