// The browser entry's decoder (shape-decoder.ts over envelope-shape.generated.ts) against the
// effect/Schema decoder it stands in for. Given generated envelopes, the same envelopes with
// one field broken, and arbitrary JSON, when both decode, then they accept and reject the same
// values, and the field the browser decoder names is one effect names too. Also: the
// generated file is current, nothing the browser entry loads imports effect, and the
// compiler refuses schema kinds the decoder does not implement.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as Arbitrary from "effect/Arbitrary";
import * as Either from "effect/Either";
import * as fc from "effect/FastCheck";
import * as ParseResult from "effect/ParseResult";
import * as Schema from "effect/Schema";
import { describe, expect, it } from "vitest";
import * as browser from "../src/browser.js";
import { OMNI_MESSAGE_SHAPE } from "../src/envelope-shape.generated.js";
import { assistantText, requestEnd, tokenUsage, toolCall, toolCallOutput, userText, zeroTokens } from "../src/index.js";
import { OmniMessageSchema, decodeEnvelope } from "../src/schema.js";
import { shapeDecoder, shapeIssue, type PathKey, type Shape } from "../src/shape-decoder.js";
import { renderEnvelopeShapeModule, shapeOf } from "../src/shape-of-schema.js";

const SRC = join(dirname(fileURLToPath(import.meta.url)), "..", "src");
const at = "2026-12-01T09:00:00.000Z";

const effectDecode = Schema.decodeUnknownEither(OmniMessageSchema, { errors: "first" });
/** Every path effect's error lists for `value`, or undefined when it decodes. */
function effectPaths(value: unknown): PathKey[][] | undefined {
  const result = effectDecode(value);
  if (Either.isRight(result)) return undefined;
  return ParseResult.ArrayFormatter.formatErrorSync(result.left).map((issue) => issue.path.map((key) => key as PathKey));
}

/** Why `shape` and effect disagree on `value`, or undefined when they agree. */
function disagreement(shape: Shape, value: unknown): string | undefined {
  const expected = effectPaths(value);
  const issue = shapeIssue(shape, value);
  if (expected === undefined && issue === undefined) return undefined;
  if (expected === undefined) return `effect accepts, the shape rejects at ${JSON.stringify(issue!.path)}: ${issue!.message}`;
  if (issue === undefined) return `effect rejects at ${JSON.stringify(expected)}, the shape accepts`;
  const named = expected.some((path) => JSON.stringify(path) === JSON.stringify(issue.path));
  return named ? undefined : `the shape names ${JSON.stringify(issue.path)}, effect names ${JSON.stringify(expected)}`;
}

// ---------------------------------------------------------------------------------------------
// Generators: valid envelopes from the schema itself, and one field of one broken
// ---------------------------------------------------------------------------------------------

const envelope = Arbitrary.make(OmniMessageSchema);

/** Values a broken field takes: wrong types, the protocol's own tags in the wrong place, JSON at large. */
const replacement = fc.oneof(
  fc.constantFrom<unknown>(undefined, null, "", 0, -1, true, false, [], {}, "completed", "done", "text", "partial_text", "event_msg", "model_msg", "session_meta", "user", "assistant", "start", "unknown"),
  fc.jsonValue(),
);

type Edit = { kind: "delete" } | { kind: "set"; value: unknown } | { kind: "add"; key: string; value: unknown };
const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.constant<Edit>({ kind: "delete" }),
  replacement.map((value): Edit => ({ kind: "set", value })),
  fc.tuple(fc.constantFrom("type", "payload", "status", "role", "tools", "origin", "extra"), replacement).map(([key, value]): Edit => ({ kind: "add", key, value })),
);

/** Every place in `value` (the root too), depth first. */
function placesOf(value: unknown, path: PathKey[] = [], out: PathKey[][] = []): PathKey[][] {
  out.push(path);
  if (typeof value === "object" && value !== null) {
    for (const key of Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value)) placesOf((value as Record<PathKey, unknown>)[key], [...path, key], out);
  }
  return out;
}

/** A copy of `value` with `change` applied at the `pick`-th place. */
function broken(value: unknown, pick: number, change: Edit): unknown {
  const copy = structuredClone(value);
  const places = placesOf(copy);
  const path = places[pick % places.length]!;
  if (path.length === 0) return change.kind === "set" ? change.value : copy;
  const parent = path.slice(0, -1).reduce<any>((node, key) => node[key], copy);
  const key = path[path.length - 1]!;
  if (change.kind === "delete") {
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key];
  } else if (change.kind === "set") parent[key] = change.value;
  else if (typeof parent[key] === "object" && parent[key] !== null && !Array.isArray(parent[key])) parent[key][change.key] = change.value;
  else parent[key] = change.value;
  return copy;
}

const brokenEnvelope = fc.tuple(envelope, fc.nat(), edit).map(([value, pick, change]) => broken(value, pick, change));

/** JSON shaped like an envelope of a family, with a payload that is anything. */
const envelopeLike = fc.record(
  {
    type: fc.constantFrom("session_meta", "model_msg", "event_msg", "tool_msg"),
    timestamp: fc.oneof(fc.constant(at), fc.jsonValue()),
    payload: fc.oneof(fc.jsonValue(), fc.record({ type: fc.constantFrom("text", "request_end", "token_usage", "partial_text", "subagent"), status: fc.jsonValue() })),
    origin: fc.jsonValue(),
  },
  { requiredKeys: ["type"] },
);

const agrees = (shape: Shape) => (value: unknown) => {
  const why = disagreement(shape, value);
  if (why !== undefined) throw new Error(`${why}\n  value: ${JSON.stringify(value)}`);
};

describe("the browser decoder against effect/Schema", () => {
  it("given the schemas, when compiled, then envelope-shape.generated.ts is current", () => {
    const onDisk = readFileSync(join(SRC, "envelope-shape.generated.ts"), "utf8");
    expect(onDisk, "src/envelope-shape.generated.ts is stale: run `npx --yes pnpm@10.34.8 --filter @penguin/omnimessage generate`").toBe(renderEnvelopeShapeModule(OmniMessageSchema.ast));
  });

  it("given generated envelopes, when decoded, then both accept and the browser answers the very object", () => {
    fc.assert(
      fc.property(envelope, (value) => {
        expect(decodeEnvelope(value).ok).toBe(true);
        const result = browser.decodeEnvelope(value);
        expect(result.ok).toBe(true);
        expect(result.ok && result.message).toBe(value);
      }),
      { numRuns: 300 },
    );
  });

  it("given envelopes with one field broken, when decoded, then the verdicts agree and the field named is one effect names", () => {
    fc.assert(fc.property(brokenEnvelope, agrees(OMNI_MESSAGE_SHAPE)), { numRuns: 1500 });
  });

  it("given arbitrary JSON, and JSON shaped like envelopes, when decoded, then the verdicts agree", () => {
    fc.assert(fc.property(fc.oneof(fc.jsonValue(), envelopeLike), agrees(OMNI_MESSAGE_SHAPE)), { numRuns: 1000 });
  });

  it("given a shape that checks literals loosely, when compared the same way, then the comparison finds the difference", () => {
    // The properties above can fail: with every string literal widened to any string (a tag
    // or a status no longer checked), the broken-envelope comparison finds a counterexample.
    const loosen = (shape: Shape): Shape => {
      switch (shape.kind) {
        case "literal":
          return typeof shape.value === "string" ? { kind: "string", expected: "string" } : shape;
        case "struct":
          return { ...shape, fields: shape.fields.map((f) => ({ ...f, shape: loosen(f.shape) })), records: shape.records.map(loosen) };
        case "array":
          return { ...shape, item: loosen(shape.item) };
        case "union":
          return { ...shape, members: shape.members.map(loosen) };
        default:
          return shape;
      }
    };
    const run = fc.check(fc.property(brokenEnvelope, agrees(loosen(OMNI_MESSAGE_SHAPE))), { numRuns: 1500, seed: 16 });
    expect(run.failed).toBe(true);
  });

  it("given the builders' envelopes through JSON, when decoded by the browser entry, then each comes back equal", () => {
    for (const m of [
      userText("hi", { at }),
      assistantText("hello", { at, stopReason: "completed", fidelity: { signature: "abc" } }),
      toolCall({ name: "exec_command", arguments: "{}", tool_call_id: "call_1" }, { at }),
      toolCallOutput({ tool_call_id: "call_1", output: "ok", images: ["data:image/png;base64,AA"], stop_reason: "completed" }, { at }),
      requestEnd("failed", { error_message: "HTTP 500", attempt: 2, retry_in_ms: 2000, max_attempts: 6 }, { at }),
      tokenUsage(zeroTokens(), zeroTokens(), { at }),
    ]) {
      expect(browser.decodeEnvelope(JSON.parse(JSON.stringify(m)))).toEqual({ ok: true, message: m });
    }
  });

  it("given bad values, when decoded by the browser entry, then the error names the field and what it expected", () => {
    const event = (payload: unknown) => ({ type: "event_msg", timestamp: at, payload });
    const cases: Array<[unknown, string]> = [
      [null, "Expected OmniMessage, actual null"],
      [{ type: "bogus" }, `["type"]: Expected "session_meta" | "model_msg" | "event_msg", actual "bogus"`],
      [{ type: "event_msg" }, `["timestamp"]: is missing`],
      [event({ type: "request_end", status: "done" }), `["payload"]["status"]: Expected "completed" | "failed" | "aborted" | "timeout" | "malformed" | "auth", actual "done"`],
      [event(5), `["payload"]: Expected EventPayload, actual 5`],
      [event({ type: "token_usage", session: zeroTokens(), request: { cache_read: 1 } }), `["payload"]["request"]["cache_write"]: is missing`],
      [{ type: "model_msg", timestamp: at, payload: { type: "text", role: "bot", text: "x" } }, `["payload"]["role"]: Expected "user" | "assistant", actual "bot"`],
      [{ type: "model_msg", timestamp: at, payload: { type: "partial_text", role: "assistant", event_type: "middle", text: "x" } }, `["payload"]["event_type"]: Expected "start" | "delta" | "stop", actual "middle"`],
      [{ type: "model_msg", timestamp: at, payload: { type: "text", role: "user", text: "x" }, origin: [1] }, `["origin"][0]: Expected string, actual 1`],
    ];
    for (const [value, error] of cases) {
      expect(browser.decodeEnvelope(value)).toEqual({ ok: false, error });
      expect(disagreement(OMNI_MESSAGE_SHAPE, value)).toBeUndefined();
    }
    expect(browser.parseEnvelope(event({ type: "request_end", status: "done" }))).toBeUndefined();
  });

  it("given schema kinds the browser decoder does not implement, when compiled, then the compiler refuses them naming where", () => {
    const refuse = (schema: Schema.Schema.Any, kind: string) => expect(() => shapeOf(Schema.Struct({ field: schema }).ast)).toThrow(new RegExp(`root\\.field is a ${kind} node`));
    refuse(Schema.NonEmptyString, "Refinement");
    refuse(Schema.NumberFromString, "Transformation");
    refuse(Schema.Tuple(Schema.String), "TupleType");
    refuse(Schema.BigIntFromSelf, "BigIntKeyword");
    expect(shapeDecoder(shapeOf(Schema.Struct({ n: Schema.Number }).ast))({ n: "1" })).toEqual({ ok: false, error: `["n"]: Expected number, actual "1"` });
  });
});

describe("the browser entry's imports", () => {
  it("given browser.ts, when its runtime imports are followed, then none reaches effect", () => {
    // `import type` and `export type` are erased at build; every other import or re-export
    // is followed through the package's own files.
    const seen = new Set<string>();
    const effectImports: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(join(SRC, file), "utf8");
      for (const match of text.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+"([^"]+)"/gm)) {
        const specifier = match[1]!;
        if (specifier.startsWith("./")) visit(specifier.slice(2).replace(/\.js$/, ".ts"));
        else effectImports.push(`${file} imports ${specifier}`);
      }
    };
    visit("browser.ts");
    expect(seen.size).toBeGreaterThan(5);
    expect(effectImports).toEqual([]);
    expect(seen.has("schema.ts")).toBe(false);
  });
});
