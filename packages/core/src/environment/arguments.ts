/**
 * Tool-call arguments: from the model's JSON string to typed parameters, or to an error the
 * model can act on. Every message names the offending field, because the model's only way to
 * recover is to resend the call with that field fixed.
 *
 * An empty string counts as `{}` (some providers send it for calls without arguments); then
 * the missing required fields are reported like any other.
 */
import type { z } from "zod";

export type ParsedArguments<P> =
  | { ok: true; value: P; description?: string }
  | { ok: false; error: string };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return `a ${typeof v}`;
}

/** Parses the raw JSON into an object, or explains why it is not one. */
export function parseArgumentsObject(
  toolName: string,
  raw: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  if (raw.trim() === "") return { ok: true, value: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    return {
      ok: false,
      error: `Invalid arguments for ${toolName}: not valid JSON (${detail}). Resend the call with one complete JSON object.`,
    };
  }
  if (!isRecord(parsed)) {
    return { ok: false, error: `Invalid arguments for ${toolName}: expected a JSON object, got ${kindOf(parsed)}.` };
  }
  return { ok: true, value: parsed };
}

function describeIssue(issue: z.core.$ZodIssue, input: Record<string, unknown>): string {
  const path = issue.path.map(String).join(".");
  const field = path === "" ? "arguments" : `\`${path}\``;
  const top = issue.path[0];
  if (issue.code === "invalid_type" && typeof top === "string" && issue.path.length === 1 && !(top in input)) {
    return `${field}: missing required parameter`;
  }
  return `${field}: ${issue.message}`;
}

/**
 * Validates arguments against a tool's schema. With `requireDescription`, a non-empty
 * `description` string must be present too; it is returned apart from the parameters.
 */
export function parseToolArguments<P>(
  toolName: string,
  raw: string,
  schema: z.ZodType<P>,
  options: { requireDescription: boolean },
): ParsedArguments<P> {
  const object = parseArgumentsObject(toolName, raw);
  if (!object.ok) return object;
  const input = object.value;
  const problems: string[] = [];
  const result = schema.safeParse(input);
  if (!result.success) problems.push(...result.error.issues.map((i) => describeIssue(i, input)));
  const description = input.description;
  if (options.requireDescription) {
    if (description === undefined) problems.push("`description`: missing required parameter");
    else if (typeof description !== "string" || description.trim() === "") {
      problems.push("`description`: expected a non-empty string");
    }
  }
  if (problems.length > 0 || !result.success) {
    return { ok: false, error: `Invalid arguments for ${toolName}: ${problems.join("; ")}.` };
  }
  return typeof description === "string"
    ? { ok: true, value: result.data, description }
    : { ok: true, value: result.data };
}
