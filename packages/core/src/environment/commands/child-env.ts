/**
 * The environment variables a command runs with.
 *
 * Unsandboxed (`childEnvironment`), starting from the host's environment (or the login
 * shell's, once captured: shell-environment.ts):
 *   - `PORT` and `HOST` are dropped: the server's own listen address must not leak into the
 *     dev servers a model starts (they would collide with it);
 *   - every `PENGUIN_*` variable is dropped: harness internals are not the model's business;
 *   - pagers and editors are pinned so nothing waits for a terminal that is not there:
 *     `PAGER=cat`, `GIT_PAGER=cat`, `EDITOR=true`, `VISUAL=true`, `GIT_EDITOR=true`,
 *     `GIT_TERMINAL_PROMPT=0`;
 *   - the vault is layered last, so its values win. Vault values exist only here: they are
 *     never part of a tool's output, a note, or a listing produced by the harness itself.
 * Everything else stays: an unsandboxed command runs on the user's own machine with the
 * user's own tools, which read their settings (tokens included) from the environment the user
 * gave the harness; the command could read the same values from the user's files anyway.
 *
 * Sandboxed (`sandboxEnvironment`, for commands and stdio MCP servers started in bwrap): an
 * allowlist instead, because the sandbox hides the host's files and an environment copied from
 * the server would hand their contents (API keys, tokens in the server's env) straight back.
 * Kept: `PATH`, `LANG`, `LANGUAGE`, `LC_*`, `TERM`, `TZ`, `USER`, `LOGNAME` (locale, terminal
 * and identity, no secrets), `HOME` set to the sandbox's home, the pinned pagers and editors,
 * then the vault (the values the session deliberately injects).
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

/** The host variables a sandboxed process keeps (besides `LC_*`, HOME, the pinned ones and the vault). */
export const SANDBOX_ENV_ALLOWLIST: readonly string[] = ["PATH", "LANG", "LANGUAGE", "TERM", "TZ", "USER", "LOGNAME"];

export function isScrubbed(name: string): boolean {
  return DROPPED.has(name) || name.startsWith("PENGUIN_");
}

function allowedInSandbox(name: string): boolean {
  return SANDBOX_ENV_ALLOWLIST.includes(name) || name.startsWith("LC_");
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

/**
 * The environment of a process started inside the sandbox: the allowlisted variables of
 * `base` (the host's environment, or the login shell's as captured), `HOME` = `sandboxHome`,
 * the pinned pagers and editors, then the vault. Everything else of `base` stays outside.
 */
export function sandboxEnvironment(
  base: NodeJS.ProcessEnv,
  vault: Readonly<Record<string, string>> | undefined,
  sandboxHome: string,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && allowedInSandbox(name)) env[name] = value;
  }
  env.HOME = sandboxHome;
  Object.assign(env, PINNED_ENV);
  if (vault !== undefined) Object.assign(env, vault);
  return env;
}
