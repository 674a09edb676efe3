/**
 * The shell a session's commands run in: `bash -c` in the login shell's environment, captured
 * once, instead of a login shell (`bash -lc`) per command.
 *
 * Why: a login shell sources the user's profile every time (pyenv's init alone costs ~100 ms
 * a command here), and a login shell killed mid-profile can leave a lock behind (pyenv's
 * rehash) that every later login shell on the machine waits for.
 *
 * How: at the session's first command, `bash -lc` runs once and writes `env -0` on a pipe of
 * its own (fd 3, so whatever the profile prints goes nowhere); the result is kept for the
 * session, and every command runs `bash -c` with it. What carries over: every exported
 * variable (PATH from the profile, a toolchain's *_HOME), and functions the profile exported
 * (`export -f`: bash passes them in the environment as `BASH_FUNC_name%%`). What does not:
 * functions the profile did not export, and aliases: neither is inherited by a child shell
 * (a non-interactive shell does not expand aliases anyway, so `bash -lc` never used them
 * either unless the profile set `expand_aliases`). Bash's own bookkeeping (`PWD`, `OLDPWD`,
 * `SHLVL`, `_`) is not carried: each command's shell sets it afresh, as before. Each command
 * is still a fresh shell: `cd` and variables set by one command do not reach the next.
 *
 * Where the capture runs: where the commands run. Unsandboxed, on the host; sandboxed, inside
 * the same bwrap sandbox (private home, so the profile is the system's, as the per-command
 * login shell saw it there), never on the host: a sandboxed model can write files the sandbox
 * makes writable (a workspace that is the home folder, say), and a profile it planted must not
 * run outside the sandbox at the next session's capture. The sandboxed result then goes
 * through the sandbox allowlist (child-env.ts `sandboxEnvironment`).
 *
 * When: as soon as the session's first command is allowed to run (`warm`, from the engine's
 * `prepareTool` hint, before the call's workspace checkpoint), so the capture runs beside the
 * checkpoint and the trace's commit instead of after them; at the latest when that command
 * starts (`prepare`). A session that runs no command captures nothing.
 *
 * A capture that fails (the profile exits, `exec`s away or closes the pipe, or takes longer
 * than the timeout: its whole process group is then stopped, SIGTERM then SIGKILL) is not an error: commands run
 * with the harness's own (scrubbed) environment, and the first command's result says so once.
 *
 * `loginShell: true` (system_config `tools.exec.loginShell`, or PENGUIN_EXEC_LOGIN_SHELL=1)
 * keeps the old way: no capture, `bash -lc` for every command.
 */
import { spawn } from "node:child_process";
import { homedir } from "node:os";
import { childEnvironment, sandboxEnvironment } from "./child-env.js";
import { terminateGroup } from "./process-group.js";
import { bwrapArguments, DEFAULT_BWRAP, type CommandSandbox } from "./sandbox.js";

/** How long the login shell may take to print its environment before commands go on without it. */
export const DEFAULT_SHELL_CAPTURE_TIMEOUT_MS = 10_000;

/** How long a stopped capture's shell gets between SIGTERM and SIGKILL. */
const STOP_GRACE_MS = 2_000;

/** The fd the capturing shell writes its environment on. */
const CAPTURE_FD = 3;
/** Written after the environment, so a truncated dump is never taken for a whole one. */
const END_MARKER = "PENGUIN_SHELL_ENVIRONMENT_END";
/** Function names and aliases in the profile cannot reach these: `\command`, `builtin`. */
const CAPTURE_SCRIPT = `\\command env -0 >&${CAPTURE_FD} && builtin printf '%s\\0' ${END_MARKER} >&${CAPTURE_FD}`;
/** Bash sets these itself in every shell; a captured value would only be stale. */
const SHELL_OWN = new Set(["PWD", "OLDPWD", "SHLVL", "_"]);

export type CaptureResult = { ok: true; env: Record<string, string> } | { ok: false; reason: string };

/**
 * Runs `bash -lc` once (inside `sandbox` when given) with `env` in `cwd` and returns the
 * environment the profile left, without bash's own per-shell variables. Never throws.
 */
export function captureLoginEnvironment(input: {
  env: Record<string, string>;
  cwd: string;
  timeoutMs: number;
  sandbox?: CommandSandbox;
  /** Stops the capture (the session ends first): its group is killed, the result a failure. */
  signal?: AbortSignal;
}): Promise<CaptureResult> {
  return new Promise((resolve) => {
    const shell = ["bash", "-lc", CAPTURE_SCRIPT];
    const sandbox = input.sandbox;
    let child: ReturnType<typeof spawn>;
    try {
      const [file, args] =
        sandbox === undefined
          ? [shell[0]!, shell.slice(1)]
          : [sandbox.bwrapPath ?? DEFAULT_BWRAP, [...bwrapArguments(sandbox, input.cwd, input.env), "--", ...shell]];
      child = spawn(file, args, { cwd: input.cwd, env: input.env, detached: true, stdio: ["ignore", "ignore", "pipe", "pipe"] });
    } catch (err) {
      resolve({ ok: false, reason: `the login shell could not start: ${err instanceof Error ? err.message : String(err)}` });
      return;
    }
    const chunks: Buffer[] = [];
    let stderr = "";
    let exitCode: number | null | undefined;
    let exitSignal: NodeJS.Signals | null = null;
    let settled = false;
    const dump = (): string => Buffer.concat(chunks).toString("utf8");
    const complete = (): boolean => dump().endsWith(`\0${END_MARKER}\0`) || dump() === `${END_MARKER}\0`;
    const finish = (result: CaptureResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      input.signal?.removeEventListener("abort", onAbort);
      child.stdio[CAPTURE_FD]?.destroy();
      child.stderr?.destroy();
      resolve(result);
    };
    const said = (): string => {
      const last = stderr.trim().split("\n").pop() ?? "";
      return last === "" ? "" : ` (it said: ${last.slice(0, 200)})`;
    };
    // Done when the marker came and the shell exited; a daemon the profile started may hold
    // the pipes open long after, so their end is not waited for.
    const settleIfDone = (): void => {
      if (exitCode === undefined || !complete()) return;
      finish(exitCode === 0 ? { ok: true, env: parseEnvironment(dump()) } : { ok: false, reason: `the login shell exited with code ${exitCode}${said()}` });
    };
    // SIGTERM first, SIGKILL after a grace: a profile's own traps get to clean up (pyenv's
    // rehash removes its lock on exit; a SIGKILL mid-rehash would leave it for every shell).
    const stop = (reason: string): void => {
      if (child.pid !== undefined) void terminateGroup(child.pid, STOP_GRACE_MS);
      finish({ ok: false, reason });
    };
    const timer = setTimeout(() => stop(`the login shell did not finish within ${input.timeoutMs} ms${said()}`), input.timeoutMs);
    const onAbort = (): void => stop("the session ended before the login shell finished");
    if (input.signal?.aborted === true) onAbort();
    input.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdio[CAPTURE_FD]?.on("data", (data: Buffer) => {
      chunks.push(data);
      settleIfDone();
    });
    child.stdio[CAPTURE_FD]?.on("error", () => undefined);
    child.stderr?.on("data", (data: Buffer) => {
      stderr = (stderr + data.toString("utf8")).slice(-2000);
    });
    child.stderr?.on("error", () => undefined);
    child.on("error", (err) => finish({ ok: false, reason: `the login shell could not start: ${err.message}` }));
    child.on("exit", (code, signal) => {
      exitCode = code;
      exitSignal = signal;
      settleIfDone();
    });
    child.on("close", () => {
      settleIfDone();
      const how = exitSignal !== null ? `was ended by ${exitSignal}` : exitCode === 0 ? "closed its output early" : `exited with code ${exitCode}`;
      finish({ ok: false, reason: `the login shell ${how} before printing its environment${said()}` });
    });
  });
}

/** `NAME=value\0` entries, the end marker and bash's own variables left out. */
function parseEnvironment(dump: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of dump.split("\0")) {
    const eq = entry.indexOf("=");
    if (eq <= 0) continue;
    const name = entry.slice(0, eq);
    if (!SHELL_OWN.has(name)) env[name] = entry.slice(eq + 1);
  }
  return env;
}

/** What one command is started with. */
export interface CommandShell {
  env: Record<string, string>;
  /** true: `bash -lc` (the profile runs for this command); false: `bash -c`. */
  loginShell: boolean;
  /** Sandboxed: the PATH whose folders inside private homes are bound back read-only. */
  mountPath?: string;
  /** Said once, with the first command after a failed capture. */
  note?: string;
}

export interface SessionShellOptions {
  /** The host environment commands start from (scrubbed or allowlisted here). */
  baseEnv: NodeJS.ProcessEnv;
  vault?: Readonly<Record<string, string>>;
  /** Where the capture runs (the workspace). */
  cwd: string;
  sandbox?: CommandSandbox;
  /** Keep the old way: `bash -lc` per command, no capture. */
  loginShell?: boolean;
  captureTimeoutMs?: number;
}

/** One session's command shell: the capture runs at the first `prepare()` and is kept. */
export class SessionShell {
  #capture: Promise<CaptureResult> | undefined;
  #noteGiven = false;
  #stop = new AbortController();

  constructor(readonly options: SessionShellOptions) {}

  /** Stops a capture still running (the session's end); later commands are refused anyway. */
  dispose(): void {
    this.#stop.abort();
  }

  /**
   * Starts the capture now, if it is due and not started: a command was allowed and is about
   * to run, and what comes before it (its workspace checkpoint, the trace's commit of its
   * decision) need not wait for it. Does nothing with `loginShell` or once the session ended.
   */
  warm(): void {
    if (this.options.loginShell === true || this.#stop.signal.aborted) return;
    this.#startCapture();
  }

  #startCapture(): Promise<CaptureResult> {
    const { baseEnv, sandbox } = this.options;
    this.#capture ??= captureLoginEnvironment({
      env: this.#outside(baseEnv, undefined),
      cwd: this.options.cwd,
      timeoutMs: this.options.captureTimeoutMs ?? DEFAULT_SHELL_CAPTURE_TIMEOUT_MS,
      signal: this.#stop.signal,
      ...(sandbox === undefined ? {} : { sandbox }),
    });
    return this.#capture;
  }

  /** `env` scrubbed (unsandboxed) or allowlisted (sandboxed) for a child, with `vault` added. */
  #outside(env: NodeJS.ProcessEnv, withVault: Readonly<Record<string, string>> | undefined): Record<string, string> {
    const { baseEnv, sandbox } = this.options;
    return sandbox === undefined ? childEnvironment(env, withVault) : sandboxEnvironment(env, withVault, baseEnv.HOME ?? homedir());
  }

  /**
   * The shell for the next command; undefined when `signal` fires first (the call was
   * interrupted while the capture ran: nothing is started, the capture goes on for later).
   */
  async prepare(signal?: AbortSignal): Promise<CommandShell | undefined> {
    const { baseEnv, vault, sandbox } = this.options;
    const outside = (env: NodeJS.ProcessEnv, withVault: Readonly<Record<string, string>> | undefined): Record<string, string> => this.#outside(env, withVault);
    const mountPath = (env: Record<string, string>): { mountPath?: string } => {
      if (sandbox === undefined) return {};
      const entries = [...(env.PATH ?? "").split(":"), ...(baseEnv.PATH ?? "").split(":")].filter((e) => e !== "");
      return { mountPath: [...new Set(entries)].join(":") };
    };
    if (this.options.loginShell === true) {
      const env = outside(baseEnv, vault);
      return { env, loginShell: true, ...mountPath(env) };
    }
    const captured = await untilAborted(this.#startCapture(), signal);
    if (captured === undefined) return undefined;
    if (captured.ok) {
      const kept = baseEnv.SHLVL === undefined || sandbox !== undefined ? captured.env : { ...captured.env, SHLVL: baseEnv.SHLVL };
      const env = outside(kept, vault);
      return { env, loginShell: false, ...mountPath(env) };
    }
    const env = outside(baseEnv, vault);
    const first = !this.#noteGiven;
    this.#noteGiven = true;
    return {
      env,
      loginShell: false,
      ...mountPath(env),
      ...(first
        ? {
            note: `[shell: ${captured.reason}; commands in this session run with the harness's own environment, without what the login profile sets (PATH additions included). To source the profile for every command instead, set tools.exec.loginShell: true in system_config.yaml.]`,
          }
        : {}),
    };
  }
}

/** `promise`'s value, or undefined as soon as `signal` fires. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T | undefined> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const onAbort = (): void => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    void promise.then((value) => {
      signal.removeEventListener("abort", onAbort);
      resolve(value);
    });
  });
}
