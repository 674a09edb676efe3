/**
 * Every builtin tool's parameter schema, by the name the tool is offered under: what
 * scripts/generate-tool-json-schemas.ts derives tool-json-schemas.generated.ts from, and what
 * its test compares that file with. The Environment does not import this list (it primes the
 * cache from the tools it builds, by their own names and schemas); the test checks that every
 * tool an Environment offers is here, with the schema it uses.
 */
import type { Schema } from "effect";
import { deriveJsonSchema, paramsFingerprint, type GeneratedJsonSchema } from "./catalog.js";
import { describeImageParams } from "./tools/describe-image.js";
import { editFileParams } from "./tools/edit-file.js";
import { execCommandParams } from "./tools/exec-command.js";
import { inputCommandParams } from "./tools/input-command.js";
import { inputSubagentParams } from "./tools/input-subagent.js";
import { killCommandParams } from "./tools/kill-command.js";
import { killSubagentParams } from "./tools/kill-subagent.js";
import { readFileParams } from "./tools/read-file.js";
import { readImageParams } from "./tools/read-image.js";
import { runSubagentParams } from "./tools/run-subagent.js";
import { writeFileParams } from "./tools/write-file.js";

export const BUILTIN_TOOL_PARAMS: Readonly<Record<string, Schema.Schema.AnyNoContext>> = {
  read_file: readFileParams,
  edit_file: editFileParams,
  write_file: writeFileParams,
  exec_command: execCommandParams,
  input_command: inputCommandParams,
  kill_command: killCommandParams,
  read_image: readImageParams,
  describe_image: describeImageParams,
  run_subagent: runSubagentParams,
  input_subagent: inputSubagentParams,
  kill_subagent: killSubagentParams,
};

/** Each builtin tool's entry as the generator writes it now: the slow derivation and its fingerprint. */
export function currentToolJsonSchemas(): Record<string, GeneratedJsonSchema> {
  const out: Record<string, GeneratedJsonSchema> = {};
  for (const [name, params] of Object.entries(BUILTIN_TOOL_PARAMS)) {
    const fingerprint = paramsFingerprint(params);
    if (fingerprint === undefined) throw new Error(`${name}: its params are not a Schema.Struct, which the generated file cannot fingerprint`);
    out[name] = { fingerprint, parameters: deriveJsonSchema(params) };
  }
  return out;
}
