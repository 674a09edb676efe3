/**
 * One running command: `bash -c <cmd>` (in the session's captured shell environment, see
 * shell-environment.ts; `bash -lc` with the login-shell setting) as the leader of its own
 * process group, with its stdout and stderr merged (in arrival order) into an unread buffer,
 * and stdin kept open so input_command can type into it.
 *
 * Exit is observed on the child's `exit` event; output still in the pipes is given a short
 * moment to arrive (`close`), but a background grandchild holding the pipe open does not
 * keep the command "running". Waiters (`waitForChange`) wake on new output and on exit, so
 * tools follow a command without polling.
 *
 * A spawn failure (no bash, a vanished directory) ends the process at once with the error,
 * never throws.
 *
 * With a sandbox, the command runs as `bwrap … -- <supervisor> <cmd>` in a pid namespace of
 * its own (see sandbox.ts). bwrap leads the spawned group; init, the supervisor and the
 * command share a second group, led by init, whose pid bwrap reports on fd 3. Ctrl-C goes to
 * that group, stopping goes to both (that group first, so the command gets its grace period;
 * its SIGKILL ends init and with it the whole namespace), and the process counts as gone only
 * when both groups are empty. The command's own exit is what the supervisor reports on fd 4,
 * the moment the command exits, even while jobs it left behind keep the namespace (and bwrap)
 * alive; bwrap's exit status counts only when no report came (bwrap could not start the
 * sandbox, or the namespace was killed before the command ended). A shell reports a command
 * killed by signal N as 128+N, as bwrap does; when N is a signal this process sent, the
 * status says "terminated by signal", as it would without the sandbox.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { constants } from "node:os";
import { StringDecoder } from "node:string_decoder";
import { UnreadBuffer } from "./unread-buffer.js";
import { groupAlive, signalGroup, terminateGroup } from "./process-group.js";
import { bwrapArguments, DEFAULT_BWRAP, SANDBOX_STATUS_FD, supervisedCommand, type CommandSandbox } from "./sandbox.js";

/** How long output may trail the exit of the shell before the exit counts as final. */
const EXIT_DRAIN_MS = 100;

export type ExitStatus =
  | { kind: "exited"; code: number }
  | { kind: "signalled"; signal: string }
  | { kind: "spawn-failed"; error: string };

export interface CommandProcessOptions {
  command: string;
  cwd: string;
  env: Record<string, string>;
  unreadBufferBytes: number;
  tailChars: number;
  /** Run inside this bubblewrap sandbox; absent: run directly. */
  sandbox?: CommandSandbox;
  /** true: `bash -lc`, the login profile sourced for this command; default false: `bash -c`. */
  loginShell?: boolean;
  /** Sandboxed: the PATH whose folders in private homes are bound back; default `env.PATH`. */
  mountPath?: string;
}

/** The fd on which bwrap reports the sandboxed command's pid (`--info-fd`). */
const INFO_FD = 3;

export function describeExit(status: ExitStatus): string {
  switch (status.kind) {
    case "exited":
      return `exit code ${status.code}`;
    case "signalled":
      return `terminated by signal ${status.signal}`;
    case "spawn-failed":
      return `could not start: ${status.error}`;
  }
}

export class CommandProcess {
  readonly started = new Date();
  readonly pid: number | undefined;
  readonly exited: Promise<ExitStatus>;
  #status: ExitStatus | undefined;
  #buffer: UnreadBuffer;
  #child: ChildProcess;
  #waiters = new Set<() => void>();
  /** The sandbox's process group (init, supervisor, command), once bwrap reported it. */
  #commandGroup: number | undefined;
  /** Settles when bwrap reported the command's pid, or can no longer report it. */
  #commandGroupReported: Promise<void> = Promise.resolve();
  /** Settles when the spawned process exited (or could not start). */
  #spawnedExited: Promise<void>;
  /** Signal numbers sent to the command (to read bwrap's 128+N exit codes back as signals). */
  #signalsSent = new Set<number>();

  constructor(readonly options: CommandProcessOptions) {
    this.#buffer = new UnreadBuffer(options.unreadBufferBytes, options.tailChars);
    let settle: (s: ExitStatus) => void = () => undefined;
    this.exited = new Promise<ExitStatus>((resolve) => {
      settle = resolve;
    });
    const finish = (status: ExitStatus): void => {
      if (this.#status !== undefined) return;
      this.#status = status;
      settle(status);
      this.#wake();
    };
    const sandbox = options.sandbox;
    const shellFlag = options.loginShell === true ? "-lc" : "-c";
    const mountEnv = options.mountPath === undefined ? options.env : { ...options.env, PATH: options.mountPath };
    const child =
      sandbox === undefined
        ? spawn("bash", [shellFlag, options.command], {
            cwd: options.cwd,
            env: options.env,
            detached: true,
            stdio: ["pipe", "pipe", "pipe"],
          })
        : spawn(
            sandbox.bwrapPath ?? DEFAULT_BWRAP,
            [...bwrapArguments(sandbox, options.cwd, mountEnv), "--info-fd", String(INFO_FD), "--", ...supervisedCommand(options.command, shellFlag)],
            { cwd: options.cwd, env: options.env, detached: true, stdio: ["pipe", "pipe", "pipe", "pipe", "pipe"] },
          );
    this.#child = child;
    this.pid = child.pid;
    this.#spawnedExited = new Promise<void>((exited) => {
      child.once("exit", () => exited());
      child.once("error", () => exited());
    });
    const info = sandbox === undefined ? undefined : child.stdio[INFO_FD];
    if (info !== undefined && info !== null) {
      this.#commandGroupReported = new Promise<void>((reported) => {
        let text = "";
        info.on("data", (data: Buffer) => {
          text += data.toString("utf8");
          const match = /"child-pid"\s*:\s*(\d+)/.exec(text);
          if (match?.[1] !== undefined && this.#commandGroup === undefined) {
            this.#commandGroup = Number(match[1]);
            reported();
          }
        });
        info.on("error", () => reported());
        info.on("close", () => reported());
      });
    }
    for (const stream of [child.stdout, child.stderr]) {
      if (stream === null) continue;
      const decoder = new StringDecoder("utf8");
      stream.on("data", (data: Buffer) => this.#append(decoder.write(data)));
      stream.on("end", () => this.#append(decoder.end()));
      stream.on("error", () => undefined);
    }
    child.stdin?.on("error", () => undefined); // EPIPE after the process exits
    child.on("error", (err) => finish({ kind: "spawn-failed", error: err.message }));
    let drainTimer: NodeJS.Timeout | undefined;
    const statusOf = (code: number | null, signal: NodeJS.Signals | null): ExitStatus => {
      if (signal !== null) return { kind: "signalled", signal };
      if (sandbox !== undefined && code !== null && code > 128 && this.#signalsSent.has(code - 128)) {
        const name = signalName(code - 128);
        if (name !== undefined) return { kind: "signalled", signal: name };
      }
      return { kind: "exited", code: code ?? 0 };
    };
    // Sandboxed: the command's status as the supervisor reported it, once it did.
    let reported: ExitStatus | undefined;
    const afterDrain = (status: () => ExitStatus): void => {
      clearTimeout(drainTimer);
      drainTimer = setTimeout(() => finish(status()), EXIT_DRAIN_MS);
    };
    const report = sandbox === undefined ? undefined : child.stdio[SANDBOX_STATUS_FD];
    if (report !== undefined && report !== null) {
      let text = "";
      report.on("data", (data: Buffer) => {
        text += data.toString("utf8");
        const match = /^exit-status (\d+)\n/.exec(text);
        if (match?.[1] === undefined || reported !== undefined) return;
        const status = statusOf(Number(match[1]), null);
        reported = status;
        afterDrain(() => status);
      });
      report.on("error", () => undefined);
    }
    child.on("exit", (code, signal) => {
      if (reported === undefined) afterDrain(() => reported ?? statusOf(code, signal));
    });
    child.on("close", (code, signal) => {
      clearTimeout(drainTimer);
      finish(reported ?? statusOf(code, signal));
    });
  }

  /** Undefined while running. */
  get status(): ExitStatus | undefined {
    return this.#status;
  }

  get running(): boolean {
    return this.#status === undefined;
  }

  /** Unread output, then the buffer is empty. */
  drain(): string {
    return this.#buffer.drain();
  }

  get hasUnread(): boolean {
    return this.#buffer.pendingBytes > 0;
  }

  /** The last characters ever written. */
  tail(): string {
    return this.#buffer.tail();
  }

  /** Resolves on new output, on exit, after `ms`, or when `signal` fires, whichever is first. */
  waitForChange(ms: number, signal?: AbortSignal): Promise<void> {
    if (!this.running || this.hasUnread || signal?.aborted === true) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        this.#waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal?.addEventListener("abort", done, { once: true });
      this.#waiters.add(done);
    });
  }

  /** Writes to stdin. Errors (the process exited, stdin closed) come back as a message. */
  write(text: string): Promise<{ ok: true } | { ok: false; error: string }> {
    const stdin = this.#child.stdin;
    if (!this.running || stdin === null || stdin.destroyed || !stdin.writable) {
      return Promise.resolve({ ok: false, error: "the process no longer accepts input" });
    }
    return new Promise((resolve) => {
      stdin.write(text, (err) => resolve(err ? { ok: false, error: err.message } : { ok: true }));
    });
  }

  /**
   * Ctrl-C: SIGINT to the command's whole group. Sandboxed, in the moment before bwrap has
   * reported the command's pid, the signal waits for it: sent to bwrap instead, it would end
   * bwrap and with it the command, which may well handle Ctrl-C itself.
   */
  interrupt(): boolean {
    this.#signalsSent.add(constants.signals.SIGINT);
    if (this.options.sandbox !== undefined && this.#commandGroup === undefined) {
      if (!this.running || this.pid === undefined) return false;
      const bwrapGroup = this.pid;
      void this.#commandGroupReported.then(() => signalGroup(this.#commandGroup ?? bwrapGroup, "SIGINT"));
      return true;
    }
    const group = this.#commandGroup ?? this.pid;
    return group !== undefined && signalGroup(group, "SIGINT");
  }

  /** True while any process of the command's group(s) is alive (zombies excluded). */
  groupAlive(): boolean {
    return [this.#commandGroup, this.pid].some((group) => group !== undefined && groupAlive(group));
  }

  /** SIGTERM, grace, SIGKILL; resolves once the group is gone (or the bound passed). */
  async terminate(graceMs: number, hurry?: AbortSignal): Promise<void> {
    if (this.pid === undefined) return;
    this.#signalsSent.add(constants.signals.SIGTERM).add(constants.signals.SIGKILL);
    if (this.options.sandbox !== undefined) {
      // The pid arrives within moments of the spawn; without it only bwrap's group is known.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.#commandGroupReported, new Promise((resolve) => (timer = setTimeout(resolve, Math.max(graceMs, 250))))]);
      clearTimeout(timer);
      if (this.#commandGroup !== undefined && (await terminateGroup(this.#commandGroup, graceMs, hurry))) {
        // The namespace is gone, so bwrap is leaving on its own: signalled now, bwrap's exit
        // would read as that signal's, not as the command's.
        await this.#bwrapExitedWithin(250);
      }
    }
    await terminateGroup(this.pid, graceMs, hurry);
    // The leader's own exit is observed via the child events; give them the same bound.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.exited, new Promise((resolve) => (timer = setTimeout(resolve, Math.max(graceMs, 250))))]);
    clearTimeout(timer);
  }

  /** Resolves once the spawned process (bwrap, sandboxed) has exited, or after `ms`. */
  async #bwrapExitedWithin(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.#spawnedExited, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }

  #append(text: string): void {
    if (text === "") return;
    this.#buffer.push(text);
    this.#wake();
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
}

/** The name of a signal number, if it is one. */
function signalName(signo: number): NodeJS.Signals | undefined {
  const entry = Object.entries(constants.signals).find(([, n]) => n === signo);
  return entry === undefined ? undefined : (entry[0] as NodeJS.Signals);
}
