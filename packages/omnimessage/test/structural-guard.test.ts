// The compiled structural guard against effect's own decoder: it must say "yes" to every real
// Trace line (else decoding loses its fast path) and may say "yes" only where the decoder
// accepts (else a bad line would get through). Real lines come from the recorded sessions in
// fixtures/traces; the bad ones are those lines with one field replaced, removed or retyped at
// a random depth, driven by fast-check. decodeEnvelope's answer must stay the decoder's answer.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as Either from "effect/Either";
import * as Schema from "effect/Schema";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeEnvelope, OmniMessageSchema } from "../src/index.js";
import { compileStructuralGuard } from "../src/structural-guard.js";

const TRACES = fileURLToPath(new URL("../../../fixtures/traces/", import.meta.url));

function recordedLines(): unknown[] {
  const out: unknown[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".jsonl")) for (const line of readFileSync(path, "utf8").split("\n")) if (line.trim() !== "") out.push(JSON.parse(line));
    }
  };
  walk(TRACES);
  return out;
}

const lines = recordedLines();
const fullDecode = Schema.decodeUnknownEither(OmniMessageSchema);
const isEnvelope = compileStructuralGuard(OmniMessageSchema.ast);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every path to a value inside `value` (the empty path is the value itself). */
function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...pathsOf(v, [...prefix, i])));
  else if (typeof value === "object" && value !== null) for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, [...prefix, k]));
  return out;
}

/** A copy of `value` with the value at `path` replaced (`undefined`: the key removed). */
function withAt(value: unknown, path: (string | number)[], replacement: Json | undefined): unknown {
  if (path.length === 0) return replacement;
  const copy = (Array.isArray(value) ? [...(value as unknown[])] : { ...(value as object) }) as Record<string | number, unknown>;
  const [head, ...rest] = path;
  const next = withAt(copy[head!], rest, replacement);
  if (next === undefined && !Array.isArray(copy)) delete copy[head!];
  else copy[head!] = next;
  return copy;
}

describe("compileStructuralGuard", () => {
  it("given every line of the recorded sessions, when checked, then the guard and the decoder both accept it", () => {
    expect(lines.length).toBeGreaterThan(50);
    const kinds = new Set(lines.map((l) => `${(l as { type: string }).type}/${(l as { payload: { type?: string } }).payload.type ?? ""}`));
    expect(kinds.size).toBeGreaterThan(10);
    for (const line of lines) {
      expect(Either.isRight(fullDecode(line))).toBe(true);
      expect(isEnvelope(line)).toBe(true);
    }
  });

  it("given a recorded line with one field changed anywhere, when checked, then the guard accepts only what the decoder accepts, and decodeEnvelope answers as the decoder does", () => {
    const replacement = fc.oneof(
      fc.constant(undefined),
      fc.constant(null),
      fc.boolean(),
      fc.double({ noNaN: true }),
      fc.string(),
      fc.constantFrom("user", "assistant", "tool_call", "request_end", "completed", "model_msg", "event_msg", "session_meta", "unknown"),
      fc.array(fc.string(), { maxLength: 2 }),
      fc.dictionary(fc.constantFrom("type", "text", "role", "name"), fc.string(), { maxKeys: 2 }),
    );
    fc.assert(
      fc.property(fc.nat({ max: lines.length - 1 }), fc.nat(), replacement, (lineIndex, pathPick, value) => {
        const line = lines[lineIndex]!;
        const paths = pathsOf(line);
        // Through JSON, as a Trace line arrives (and as effect's decoder expects plain objects).
        const changed: unknown = JSON.parse(JSON.stringify(withAt(line, paths[pathPick % paths.length]!, value as Json | undefined)) ?? "null");
        const accepted = Either.isRight(fullDecode(changed));
        if (isEnvelope(changed)) expect(accepted).toBe(true);
        expect(decodeEnvelope(changed).ok).toBe(accepted);
      }),
      { numRuns: 3000 },
    );
  });

  it("given a schema node it does not mirror (a refinement), when checked, then effect's decoder answers for that node", () => {
    const guard = compileStructuralGuard(Schema.Struct({ n: Schema.Int, tags: Schema.Array(Schema.String) }).ast);
    expect(guard({ n: 1, tags: ["a"] })).toBe(true);
    expect(guard({ n: 1.5, tags: [] })).toBe(false);
    expect(guard({ n: 1, tags: [1] })).toBe(false);
    expect(guard([1])).toBe(false);
  });

  it("given optional and required fields, when absent or undefined, then the guard follows the decoder's default options", () => {
    const schema = Schema.Struct({ req: Schema.Unknown, opt: Schema.optionalWith(Schema.String, { exact: true }), maybe: Schema.optional(Schema.Number) });
    const guard = compileStructuralGuard(schema.ast);
    const decode = Schema.decodeUnknownEither(schema);
    for (const value of [{}, { opt: "x" }, { opt: undefined }, { maybe: undefined }, { maybe: "1" }, { req: null, opt: 3 }, null, []]) {
      expect(guard(value)).toBe(Either.isRight(decode(value)));
    }
  });
});
