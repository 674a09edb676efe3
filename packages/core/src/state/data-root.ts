/**
 * The data root's rule (`--root` > PENGUIN_HOME > ~/.penguin/data) and the files a start reads
 * there before the rest of core loads. It imports nothing but node:os and node:path, so the
 * CLI's early sandbox probe (`@penguin/core/data-root`) finds the memo without evaluating core;
 * paths.ts re-exports `resolveRoot`, so the rule is written once.
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** The data root: explicit > PENGUIN_HOME > ~/.penguin/data, always absolute. */
export function resolveRoot(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (explicit !== undefined && explicit !== "") return resolve(explicit);
  const home = env.PENGUIN_HOME;
  if (home !== undefined && home !== "") return resolve(home);
  return join(homedir(), ".penguin", "data");
}

/** The memo of a sandbox probe that succeeded (environment/commands/probe-memo.ts): a cache, safe to delete. */
export function sandboxProbeMemo(root: string): string {
  return join(root, ".cache", "sandbox-probe.json");
}
