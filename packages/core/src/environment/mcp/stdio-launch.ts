/**
 * How a stdio MCP server is started: which file runs, whether the host lets it run, and the
 * process that is spawned for it (the command itself, or bwrap around it).
 *
 * - The command is resolved once, before anything runs: a bare name through the PATH the
 *   server will get (the entry's own `env.PATH` included, relative entries skipped), a path
 *   against the server's working directory. What is spawned is that absolute path, so the file
 *   a host's policy checked is the file that runs (an `env: {PATH: <workspace>}` cannot swap
 *   `npx` for a script the model wrote).
 * - A host may pass a policy (`McpStdioPolicy`): it sees the command as written, the real path
 *   of the file it resolves to (symlinks followed; undefined when nothing is found) and whether
 *   the server would be sandboxed, and answers with a refusal reason or nothing. A refused
 *   server is never spawned; the reason becomes its connect error (`mcp_connect_end`).
 * - With a CommandSandbox, the server runs inside the same bwrap sandbox as the session's
 *   commands (`bwrapArguments`, the same mounts, network only when the sandbox has it). No
 *   supervisor is needed: bwrap passes stdin and stdout through, so they stay the JSON-RPC
 *   pipe, and `--die-with-parent` ends the sandbox's pid namespace, the server and anything it
 *   started, as soon as bwrap (the process we signal on close) is gone.
 */
import { resolve } from "node:path";
import { homedir } from "node:os";
import { sandboxEnvironment } from "../commands/child-env.js";
import { bwrapArguments, DEFAULT_BWRAP, type CommandSandbox } from "../commands/sandbox.js";
import type { McpStdioConfig } from "./config.js";
import { findExecutable, existingRealPath } from "./executable.js";
import { stdioEnvironment } from "./stdio.js";
import type { StdioLaunch } from "./stdio-process.js";

export type { StdioLaunch } from "./stdio-process.js";

/** What a host's policy decides on: one stdio server about to start. */
export interface McpStdioLaunchRequest {
  /** The server's name in the config. */
  server: string;
  /** The command as configured. */
  command: string;
  args: readonly string[];
  /** The real path of the file that would run (symlinks followed); undefined when none is found. */
  resolvedPath: string | undefined;
  /** Whether it would run inside the session's bwrap sandbox. */
  sandboxed: boolean;
}

/** A host's rule for stdio servers: a refusal reason, or undefined to let the server start. */
export type McpStdioPolicy = (request: McpStdioLaunchRequest) => string | undefined;

/** A stdio server the policy refused, or whose command cannot be found; nothing was spawned. */
export class McpStdioLaunchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "McpStdioLaunchError";
  }
}

export interface StdioLaunchOptions {
  /** Working directory of a server without its own `cwd` (and base of a relative one). */
  baseCwd?: string;
  /** Run the server inside this sandbox (the session's). */
  sandbox?: CommandSandbox;
  policy?: McpStdioPolicy;
}

/** The working directory and environment a stdio server gets, and the file its command resolves to. */
export function resolveStdioCommand(config: McpStdioConfig, baseCwd: string | undefined): { cwd: string; env: Record<string, string>; executable: string | undefined } {
  const base = baseCwd ?? process.cwd();
  const cwd = config.cwd !== undefined ? resolve(base, config.cwd) : base;
  const env = stdioEnvironment(process.env, config.env);
  return { cwd, env, executable: findExecutable(config.command, cwd, env.PATH) };
}

/**
 * The process to spawn for `config` (see the header). Throws McpStdioLaunchError when the
 * policy refuses the server, or when it is to be sandboxed and its command cannot be found.
 */
export function planStdioLaunch(server: string, config: McpStdioConfig, options: StdioLaunchOptions): StdioLaunch {
  const { cwd, env, executable } = resolveStdioCommand(config, options.baseCwd);
  const args = config.args ?? [];
  const sandboxed = options.sandbox !== undefined;
  const refusal = options.policy?.({ server, command: config.command, args, resolvedPath: existingRealPath(executable), sandboxed });
  if (refusal !== undefined) throw new McpStdioLaunchError(refusal);
  // An unresolved command is never left to the spawn's own lookup when sandboxed or under a
  // policy: it would honour relative PATH entries and could run a file nothing was checked against.
  const notFound = (): McpStdioLaunchError =>
    new McpStdioLaunchError(`cannot start "${config.command}": command not found (is it installed, executable and on PATH? looked in ${commandPlace(config.command, cwd)})`);
  if (options.sandbox === undefined) {
    if (executable === undefined && options.policy !== undefined) throw notFound();
    // Unsandboxed, no policy: as before, the spawn reports a missing command itself (describeError names it).
    return { command: executable ?? config.command, args: [...args], env, cwd: config.cwd !== undefined || options.baseCwd !== undefined ? cwd : undefined, sandboxed };
  }
  if (executable === undefined) throw notFound();
  const bwrap = options.sandbox.bwrapPath ?? DEFAULT_BWRAP;
  // Inside, the server gets what a sandboxed command gets (the allowlist: PATH, locale, TERM,
  // the sandbox's HOME, the pinned pagers) plus the entry's own `env`, which its owner wrote for
  // it; nothing else of the host's environment (keys the server process holds) goes in.
  const inside = { ...sandboxEnvironment(process.env, undefined, process.env.HOME ?? homedir()), PATH: env.PATH ?? "", ...(config.env ?? {}) };
  return { command: bwrap, args: [...bwrapArguments(options.sandbox, cwd, env), "--", executable, ...args], env: inside, cwd, sandboxed };
}

function commandPlace(command: string, cwd: string): string {
  return command.includes("/") ? resolve(cwd, command) : "the PATH the server gets";
}
