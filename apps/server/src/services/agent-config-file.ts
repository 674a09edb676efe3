/**
 * Reading and writing an agent's config files from routes: a missing file reads as "" (the
 * editor shows an empty text rather than an error), and every text the server writes into
 * system_config.yaml passes core's `parseSystemConfig` first and is written atomically, so
 * no server-side edit can leave a file that sessions refuse to load. `insertPlaceholder` is
 * the shared body of the vault and memory tabs' one-click "add {{VAULT}} / {{MEMORY}}".
 */
import { readFile } from "node:fs/promises";
import { parseSystemConfig, type AgentPaths } from "@penguin/core";
import { conflict } from "../http/api-error.js";
import { addPromptPlaceholder } from "./config-yaml.js";
import { writeTextAtomic } from "./files.js";

export async function readTextOr(file: string, fallback = ""): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch {
    return fallback;
  }
}

export function saveSystemConfig(agent: AgentPaths, text: string): void {
  parseSystemConfig(text, agent.systemConfig);
  writeTextAtomic(agent.systemConfig, text);
}

/** Appends a section placeholder to system_prompt; 409 `placeholder_present` when it is there. */
export async function insertPlaceholder(agent: AgentPaths, placeholder: "{{VAULT}}" | "{{MEMORY}}"): Promise<string> {
  const next = addPromptPlaceholder(await readTextOr(agent.systemConfig), placeholder);
  if (next === undefined) throw conflict("placeholder_present", `the system prompt already contains ${placeholder}`);
  saveSystemConfig(agent, next);
  return next;
}
