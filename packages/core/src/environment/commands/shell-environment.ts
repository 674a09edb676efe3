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
 * than the timeout) is not an error: commands run with the harness's own (scrubbed)
 * environment, and the first command's result says so once.
 *
 * A capture is never killed mid-profile because nobody waits for it any more: a profile
 * stopped halfway can leave a lock behind (pyenv's rehash takes ~/.pyenv/shims/.pyenv-shim
 * and removes it at the end; every later login shell on the machine then waits 60 s for it).
 * When the timeout passes, or the session ends (a cancelled task, a disposed session), the
 * session only stops waiting: the login shell goes on in the background and ends by itself.
 * Its stderr goes to an unlinked temp file, not a pipe, so it can still write when the
 * harness has gone (a pipe's reader gone, its next write would kill it with SIGPIPE). Only a
 * profile still running at the hard limit (`limitMs`, default 120 s: past pyenv's own 60 s
 * wait for a stale lock) is stopped, SIGTERM then SIGKILL to its group: a hung profile must
 * not live for ever. A sandboxed capture dies with the harness anyway (bwrap's
 * --die-with-parent), but its home is the sandbox's throwaway one.
 *
 * `loginShell: true` (system_config `tools.exec.loginShell`, or PENGUIN_EXEC_LOGIN_SHELL=1)
 * keeps the old way: no capture, `bash -lc` for every command.
 */
import { spawn } from "node:child_process";
import { closeSync, fstatSync, openSync, readSync, unlinkSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { childEnvironment, sandboxEnvironment } from "./child-env.js";
import { terminateGroup } from "./process-group.js";
import { bwrapArguments, DEFAULT_BWRAP, type CommandSandbox } from "./sandbox.js";

/** How long the login shell may take to print its environment before commands go on without it. */
export const DEFAULT_SHELL_CAPTURE_TIMEOUT_MS = 10_000;

/**
 * How long a login shell nobody waits for any more may go on before it is stopped: past
 * pyenv's 60 s wait for a stale rehash lock, so a profile waiting out one still ends by itself.
 */
export const DEFAULT_SHELL_CAPTURE_LIMIT_MS = 120_000;

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
  /** How long to wait for it; then the result is a failure and the shell goes on unwaited. */
  timeoutMs: number;
  /** When a shell nobody waits for is stopped (its group: SIGTERM, then SIGKILL); default 120 s from its start. */
  limitMs?: number;
  sandbox?: CommandSandbox;
  /** Stops the wait (the session ends first): the result is a failure, the shell goes on unwaited. */
  signal?: AbortSignal;
}): Promise<CaptureResult> {
  return new Promise((resolve) => {
    const shell = ["bash", "-lc", CAPTURE_SCRIPT];
    const sandbox = input.sandbox;
    if (input.signal?.aborted === true) {
      resolve({ ok: false, reason: "the session ended before the login shell started" });
      return;
    }
    let child: ReturnType<typeof spawn>;
    let stderrFd: number | undefined;
    try {
      stderrFd = unlinkedTempFile();
      const stderr = stderrFd ?? "ignore";
      const [file, args] =
        sandbox === undefined
          ? [shell[0]!, shell.slice(1)]
          : [sandbox.bwrapPath ?? DEFAULT_BWRAP, [...bwrapArguments(sandbox, input.cwd, input.env), "--", ...shell]];
      child = spawn(file, args, { cwd: input.cwd, env: input.env, detached: true, stdio: ["ignore", "ignore", stderr, "pipe"] });
    } catch (err) {
      if (stderrFd !== undefined) closeSync(stderrFd);
      resolve({ ok: false, reason: `the login shell could not start: ${err instanceof Error ? err.message : String(err)}` });
      return;
    }
    const chunks: Buffer[] = [];
    let exitCode: number | null | undefined;
    let exitSignal: NodeJS.Signals | null = null;
    let settled = false;
    const dump = (): string => Buffer.concat(chunks).toString("utf8");
    const complete = (): boolean => dump().endsWith(`\0${END_MARKER}\0`) || dump() === `${END_MARKER}\0`;
    // The shell's stderr is read once, for a failure's reason, then its file is let go.
    const said = (): string => {
      const last = readTail(stderrFd).trim().split("\n").pop() ?? "";
      return last === "" ? "" : ` (it said: ${last.slice(0, 200)})`;
    };
    const finish = (result: CaptureResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      input.signal?.removeEventListener("abort", onAbort);
      if (stderrFd !== undefined) closeSync(stderrFd);
      stderrFd = undefined;
      resolve(result);
    };
    // Done when the marker came and the shell exited; a daemon the profile started may hold
    // the pipes open long after, so their end is not waited for.
    const settleIfDone = (): void => {
      if (exitCode === undefined || !complete()) return;
      finish(exitCode === 0 ? { ok: true, env: parseEnvironment(dump()) } : { ok: false, reason: `the login shell exited with code ${exitCode}${said()}` });
    };
    // Nobody waits any more: the shell is left to finish its profile (stopping it halfway can
    // leave a lock behind), and keeps neither the harness's event loop nor its pipe alive.
    const limitMs = input.limitMs ?? DEFAULT_SHELL_CAPTURE_LIMIT_MS;
    const stopWaiting = (reason: string): void => {
      finish({ ok: false, reason });
      if (exitCode !== undefined) return;
      child.unref();
      (child.stdio[CAPTURE_FD] as { unref?: () => void } | null)?.unref?.();
    };
    // Past the hard limit the profile is taken for hung: SIGTERM first (its traps clean up),
    // SIGKILL after a grace. Not when it exited: a daemon it left is none of the capture's business.
    const limit = setTimeout(() => {
      if (exitCode === undefined && child.pid !== undefined) void terminateGroup(child.pid, STOP_GRACE_MS);
      finish({ ok: false, reason: `the login shell did not finish within ${limitMs} ms and was stopped${said()}` });
    }, limitMs);
    limit.unref();
    const seconds = limitMs / 1000;
    const timer = setTimeout(
      () => stopWaiting(`the login shell did not finish within ${input.timeoutMs} ms; it goes on in the background, unwaited, and is stopped if still running ${seconds} s after its start${said()}`),
      input.timeoutMs,
    );
    const onAbort = (): void => stopWaiting("the session ended before the login shell finished (it goes on in the background, unwaited)");
    input.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdio[CAPTURE_FD]?.on("data", (data: Buffer) => {
      chunks.push(data);
      settleIfDone();
    });
    child.stdio[CAPTURE_FD]?.on("error", () => undefined);
    child.on("error", (err) => {
      clearTimeout(limit);
      finish({ ok: false, reason: `the login shell could not start: ${err.message}` });
    });
    child.on("exit", (code, signal) => {
      clearTimeout(limit);
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

/**
 * A temp file opened for reading and writing and unlinked at once: gone with its last
 * descriptor. Undefined where none can be made (no writable temp folder): the shell's stderr
 * then goes nowhere, and a failure's reason goes without its last line.
 */
function unlinkedTempFile(): number | undefined {
  const path = join(tmpdir(), `penguin-shell-capture-${process.pid}-${Math.random().toString(36).slice(2)}.stderr`);
  let fd: number;
  try {
    fd = openSync(path, "wx+", 0o600);
  } catch {
    return undefined;
  }
  try {
    unlinkSync(path);
  } catch {
    // Left in the temp folder: harmless, and the capture needs it no less.
  }
  return fd;
}

/** The last 2,000 bytes written to `fd` (empty once it is closed). */
function readTail(fd: number | undefined): string {
  if (fd === undefined) return "";
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, 2000);
    const buffer = Buffer.alloc(length);
    const read = readSync(fd, buffer, 0, length, size - length);
    return buffer.subarray(0, read).toString("utf8");
  } catch {
    return "";
  }
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
  /** When a capture nobody waits for is stopped; default 120 s from its start. */
  captureLimitMs?: number;
}

/** One session's command shell: the capture runs at the first `prepare()` and is kept. */
export class SessionShell {
  #capture: Promise<CaptureResult> | undefined;
  #noteGiven = false;
  #stop = new AbortController();

  constructor(readonly options: SessionShellOptions) {}

  /** Stops waiting for a capture still running (the session's end): it finishes unwaited, up to its limit. */
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
      ...(this.options.captureLimitMs === undefined ? {} : { limitMs: this.options.captureLimitMs }),
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
