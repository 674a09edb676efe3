/**
 * Structural comparison against the recorded provider streams: a reference "shape" is the
 * union of many real payloads (every key seen, every JSON kind seen per key, every value seen
 * for discriminator keys), and a payload conforms when each key it has was seen at that
 * place in a real payload, with a kind seen there. So an event we emit may omit optional
 * fields, but may not invent, misspell or mis-nest one, nor use an unseen `type`. Tool
 * arguments are free-form, so only their kind is compared.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fixturesDir } from "../../src/index.js";

export interface Shape {
  kinds: Set<string>;
  keys: Map<string, Shape>;
  elements: Shape | undefined;
  values: Set<string>;
}

const DISCRIMINATORS = new Set(["type", "object", "role", "status"]);
/** Free-form payloads (tool arguments): only their kind is compared, not their keys. */
const OPAQUE = new Set(["args", "input", "metadata"]);

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function emptyShape(): Shape {
  return { kinds: new Set(), keys: new Map(), elements: undefined, values: new Set() };
}

export function addToShape(shape: Shape, value: unknown): Shape {
  shape.kinds.add(kindOf(value));
  if (typeof value === "string") shape.values.add(value);
  if (Array.isArray(value)) {
    for (const element of value) shape.elements = addToShape(shape.elements ?? emptyShape(), element);
  } else if (typeof value === "object" && value !== null) {
    for (const [key, child] of Object.entries(value)) shape.keys.set(key, addToShape(shape.keys.get(key) ?? emptyShape(), child));
  }
  return shape;
}

export function shapeOf(values: unknown[]): Shape {
  return values.reduce<Shape>((shape, value) => addToShape(shape, value), emptyShape());
}

/** Problems found, as paths; `allowed` names keys known to exist in the API but in no fixture. */
export function conformance(value: unknown, shape: Shape, allowed: string[] = [], path = "$", key = ""): string[] {
  const kind = kindOf(value);
  if (!shape.kinds.has(kind) && !shape.kinds.has("null")) return [`${path}: ${kind} where real streams have ${[...shape.kinds].join("|")}`];
  if (DISCRIMINATORS.has(key) && typeof value === "string" && !shape.values.has(value)) return [`${path}: unseen value "${value}"`];
  if (OPAQUE.has(key)) return [];
  if (Array.isArray(value)) {
    if (value.length === 0) return [];
    if (shape.elements === undefined) return [`${path}: non-empty array where real streams have only empty ones`];
    const elements = shape.elements;
    return value.flatMap((element, i) => conformance(element, elements, allowed, `${path}[${i}]`));
  }
  if (kind !== "object" || typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([childKey, child]) => {
    const childShape = shape.keys.get(childKey);
    if (childShape === undefined) return allowed.includes(childKey) ? [] : [`${path}.${childKey}: no real stream has this key here`];
    return conformance(child, childShape, allowed, `${path}.${childKey}`, childKey);
  });
}

/** Payloads of the named fixture files (paths relative to the fixtures folder). */
export function fixturePayloads(names: string[]): Record<string, unknown>[] {
  return names.flatMap((name) =>
    readFileSync(join(fixturesDir(), name), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line)),
  );
}

/** One reference shape per payload `type` (Anthropic, Responses). */
export function shapesByType(payloads: Record<string, unknown>[]): Map<string, Shape> {
  const groups = new Map<string, unknown[]>();
  for (const payload of payloads) {
    const type = String(payload["type"]);
    groups.set(type, [...(groups.get(type) ?? []), payload]);
  }
  return new Map([...groups].map(([type, values]) => [type, shapeOf(values)]));
}
