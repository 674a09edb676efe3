/**
 * The environment variables a command runs with.
 *
 * Starting from the host's environment:
 *   - `PORT` and `HOST` are dropped: the server's own listen address must not leak into the
 *     dev servers a model starts (they would collide with it);
 *   - every `PENGUIN_*` variable is dropped: harness internals are not the model's business;
 *   - pagers and editors are pinned so nothing waits for a terminal that is not there:
 *     `PAGER=cat`, `GIT_PAGER=cat`, `EDITOR=true`, `VISUAL=true`, `GIT_EDITOR=true`,
 *     `GIT_TERMINAL_PROMPT=0`;
 *   - the vault is layered last, so its values win. Vault values exist only here: they are
 *     never part of a tool's output, a note, or a listing produced by the harness itself.
 */

export const PINNED_ENV: Readonly<Record<string, string>> = {
  PAGER: "cat",
  GIT_PAGER: "cat",
  EDITOR: "true",
  VISUAL: "true",
  GIT_EDITOR: "true",
  GIT_TERMINAL_PROMPT: "0",
};

const DROPPED = new Set(["PORT", "HOST"]);

export function isScrubbed(name: string): boolean {
  return DROPPED.has(name) || name.startsWith("PENGUIN_");
}

export function childEnvironment(
  base: NodeJS.ProcessEnv,
  vault: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && !isScrubbed(name)) env[name] = value;
  }
  Object.assign(env, PINNED_ENV);
  if (vault !== undefined) Object.assign(env, vault);
  return env;
}
