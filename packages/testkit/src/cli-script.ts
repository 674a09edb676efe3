/**
 * Load a script file for the CLI: a JSON array of scripted turns and fixture replays (function
 * steps cannot be written in JSON). Fixture paths are resolved against the script's own folder
 * first, then the fixtures folder (see fixturePath). Problems throw with the index of the step.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { isRecord, type JsonRecord } from "./json.js";
import type { FixtureReplay, ScriptedTurn } from "./script.js";

export type JsonStep = ScriptedTurn | FixtureReplay;

export function loadScriptFile(path: string): JsonStep[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(`cannot read script ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!Array.isArray(parsed)) throw new Error(`script ${path} must be a JSON array of steps`);
  return parsed.map((step, index) => {
    if (!isJsonStep(step)) throw new Error(`script ${path}: step #${index} is neither a turn nor a {"fixture": ...} replay`);
    return "fixture" in step ? { ...step, fixture: besideScript(step.fixture, dirname(path)) } : step;
  });
}

function besideScript(fixture: string, scriptDir: string): string {
  if (isAbsolute(fixture)) return fixture;
  const candidate = resolve(scriptDir, fixture);
  return existsSync(candidate) ? candidate : fixture;
}

/** A structural check of the fields a JSON step may carry, enough to catch a wrong file. */
export function isJsonStep(value: unknown): value is JsonStep {
  if (!isRecord(value)) return false;
  if ("fixture" in value) return typeof value["fixture"] === "string";
  return (
    optional(value, "thinking", "string") &&
    optional(value, "thinkingSignature", "string") &&
    optional(value, "text", "string") &&
    optional(value, "chunkSize", "number") &&
    optional(value, "delayMs", "number") &&
    (value["toolCalls"] === undefined || (Array.isArray(value["toolCalls"]) && value["toolCalls"].every(isToolCall))) &&
    (value["usage"] === undefined || isRecord(value["usage"])) &&
    (value["fault"] === undefined || (isRecord(value["fault"]) && typeof value["fault"]["kind"] === "string"))
  );
}

function isToolCall(value: unknown): boolean {
  return isRecord(value) && typeof value["name"] === "string" && (typeof value["arguments"] === "string" || isRecord(value["arguments"]));
}

function optional(record: JsonRecord, key: string, type: "string" | "number"): boolean {
  return record[key] === undefined || typeof record[key] === type;
}
