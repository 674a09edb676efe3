/**
 * Edits of an agent's system_config.yaml that keep the user's file: comments, key order,
 * quoting and block styles survive because every edit goes through the `yaml` document
 * model (parse → change one node → print), never through a re-serialized object.
 *
 *   mergeKernelDefaults   the lossless "kernel update": keys the file lacks (top level, and
 *                         one level down inside mappings) are copied from core's current
 *                         default file with their comments; present keys are never touched,
 *                         except `kernel_version`, raised to the current generation
 *   addPromptPlaceholder  appends `{{VAULT}}` / `{{MEMORY}}` to `system_prompt` when absent
 *   setThinkingLevel      `model.thinking_level` (the web draft's picker writes it back)
 *   defaultsKeepingIdentity  core's default file with the old name, description, version
 *
 * Each returns the new text; callers validate it with core's `parseSystemConfig` before
 * writing, so an edit can never leave a file that sessions cannot load.
 */
import { defaultSystemConfigYaml, KERNEL_VERSION } from "@penguin/core";
import type { ThinkingLevel } from "@penguin/models";
import { isMap, isScalar, Pair, parseDocument, Scalar, type Document, type YAMLMap } from "yaml";
import { ApiError } from "../http/api-error.js";

const PRINT = { lineWidth: 0 } as const;

/** The document and its top-level mapping; a file that is not one is refused (400). */
function mapDocument(text: string): { doc: Document.Parsed; map: YAMLMap } {
  const doc = parseDocument(text);
  if (doc.errors.length > 0 || !isMap(doc.contents)) {
    throw new ApiError(400, "invalid_config", "system_config.yaml is not a readable YAML mapping; fix or restore it first");
  }
  return { doc, map: doc.contents };
}

function keyName(pair: Pair): string | undefined {
  return isScalar(pair.key) && (typeof pair.key.value === "string" || typeof pair.key.value === "number") ? String(pair.key.value) : undefined;
}

function findPair(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((p) => keyName(p) === key);
}

export interface KernelMerge {
  text: string;
  /** Dotted paths of the keys copied in, in file order. */
  added: string[];
  /** The kernel generation before and after. */
  kernelVersion: { from: number; to: number };
}

export function mergeKernelDefaults(text: string, agentId: string): KernelMerge {
  const { doc, map } = mapDocument(text);
  const defaults = mapDocument(defaultSystemConfigYaml(agentId)).map;
  const added: string[] = [];
  for (const pair of defaults.items) {
    const key = keyName(pair);
    if (key === undefined || key === "kernel_version") continue;
    const mine = findPair(map, key);
    if (mine === undefined) {
      map.items.push(pair.clone());
      added.push(key);
      continue;
    }
    if (!isMap(mine.value) || !isMap(pair.value)) continue;
    for (const inner of pair.value.items) {
      const innerKey = keyName(inner);
      if (innerKey === undefined || findPair(mine.value, innerKey) !== undefined) continue;
      mine.value.items.push(inner.clone());
      added.push(`${key}.${innerKey}`);
    }
  }
  const current = findPair(map, "kernel_version");
  const from = current !== undefined && isScalar(current.value) && typeof current.value.value === "number" ? current.value.value : 0;
  const to = Math.max(from, KERNEL_VERSION);
  if (to !== from) {
    if (current !== undefined && isScalar(current.value)) current.value.value = to;
    else map.items.push(new Pair(new Scalar("kernel_version"), new Scalar(to)));
  }
  if (added.length === 0 && to === from) return { text, added, kernelVersion: { from, to } };
  return { text: doc.toString(PRINT), added, kernelVersion: { from, to } };
}

/** The new text, or undefined when the prompt already holds the placeholder. */
export function addPromptPlaceholder(text: string, placeholder: "{{VAULT}}" | "{{MEMORY}}"): string | undefined {
  const { doc, map } = mapDocument(text);
  const pair = findPair(map, "system_prompt");
  if (pair === undefined || !isScalar(pair.value) || typeof pair.value.value !== "string") {
    throw new ApiError(400, "invalid_config", "system_config.yaml has no text system_prompt to add the placeholder to");
  }
  const prompt = pair.value.value;
  if (prompt.includes(placeholder)) return undefined;
  const surgical = appendToBlock(text, pair.value, placeholder);
  if (surgical !== undefined) return surgical;
  pair.value.value = `${prompt.replace(/\s+$/, "")}\n\n${placeholder}\n`;
  if (pair.value.type !== Scalar.BLOCK_LITERAL && pair.value.type !== Scalar.BLOCK_FOLDED) pair.value.type = Scalar.BLOCK_LITERAL;
  return doc.toString(PRINT);
}

/**
 * When the file already has a plain `model.thinking_level` value, only those characters are
 * replaced (the rest of the file stays byte for byte); otherwise the key is added through
 * the document model.
 */
/**
 * Appends a line to a literal block scalar by editing only its source lines, so the rest of
 * the file is untouched. Checked by parsing the result: undefined (use the document model)
 * unless the value is exactly the old text, a blank line and the new line.
 */
function appendToBlock(text: string, node: Scalar, line: string): string | undefined {
  if (node.type !== Scalar.BLOCK_LITERAL || node.range === undefined || node.range === null || typeof node.value !== "string") return undefined;
  const [start, end] = node.range;
  const source = text.slice(start, end);
  const indent = /\n([ \t]+)\S/.exec(source)?.[1];
  if (indent === undefined) return undefined;
  const body = source.replace(/\s+$/, "");
  const trailing = source.slice(body.length);
  const next = `${text.slice(0, start)}${body}\n\n${indent}${line}${trailing === "" ? "\n" : trailing}${text.slice(end)}`;
  const check = parseDocument(next);
  const value: unknown = check.errors.length === 0 ? check.get("system_prompt") : undefined;
  return value === `${node.value.replace(/\s+$/, "")}\n\n${line}\n` ? next : undefined;
}

export function setThinkingLevel(text: string, level: ThinkingLevel): string {
  const { doc, map } = mapDocument(text);
  const model = findPair(map, "model");
  if (model !== undefined && model.value !== null && !isMap(model.value)) {
    throw new ApiError(400, "invalid_config", "system_config.yaml: `model` is not a mapping, so thinking_level cannot be set in it");
  }
  const current = isMap(model?.value) ? findPair(model.value, "thinking_level")?.value : undefined;
  if (isScalar(current) && current.type === Scalar.PLAIN && current.range !== undefined && current.range !== null) {
    const [start, end] = current.range;
    return `${text.slice(0, start)}${level}${text.slice(end)}`;
  }
  doc.setIn(["model", "thinking_level"], level);
  return doc.toString(PRINT);
}

/** Core's default file for the agent, carrying over the old name, description and version. */
export function defaultsKeepingIdentity(oldText: string | undefined, agentId: string): string {
  const { doc } = mapDocument(defaultSystemConfigYaml(agentId));
  if (oldText === undefined) return doc.toString(PRINT);
  const old = parseDocument(oldText);
  if (old.errors.length > 0 || !isMap(old.contents)) return doc.toString(PRINT);
  for (const key of ["name", "description", "version"]) {
    const value: unknown = old.get(key);
    const valid = key === "version" ? typeof value === "number" && Number.isInteger(value) && value > 0 : typeof value === "string";
    if (valid) doc.set(key, value);
  }
  return doc.toString(PRINT);
}
