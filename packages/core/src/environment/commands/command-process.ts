/**
 * One running command: `bash -lc <cmd>` as the leader of its own process group, with its
 * stdout and stderr merged (in arrival order) into an unread buffer, and stdin kept open so
 * input_command can type into it.
 *
 * Exit is observed on the child's `exit` event; output still in the pipes is given a short
 * moment to arrive (`close`), but a background grandchild holding the pipe open does not
 * keep the command "running". Waiters (`waitForChange`) wake on new output and on exit, so
 * tools follow a command without polling.
 *
 * A spawn failure (no bash, a vanished directory) ends the process at once with the error,
 * never throws.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { StringDecoder } from "node:string_decoder";
import { UnreadBuffer } from "./unread-buffer.js";
import { signalGroup, terminateGroup } from "./process-group.js";

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
}

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
    const child = spawn("bash", ["-lc", options.command], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.#child = child;
    this.pid = child.pid;
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
    const statusOf = (code: number | null, signal: NodeJS.Signals | null): ExitStatus =>
      signal !== null ? { kind: "signalled", signal } : { kind: "exited", code: code ?? 0 };
    child.on("exit", (code, signal) => {
      drainTimer = setTimeout(() => finish(statusOf(code, signal)), EXIT_DRAIN_MS);
    });
    child.on("close", (code, signal) => {
      clearTimeout(drainTimer);
      finish(statusOf(code, signal));
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

  /** Ctrl-C: SIGINT to the whole group. */
  interrupt(): boolean {
    return this.pid !== undefined && signalGroup(this.pid, "SIGINT");
  }

  /** SIGTERM, grace, SIGKILL; resolves once the group is gone (or the bound passed). */
  async terminate(graceMs: number, hurry?: AbortSignal): Promise<void> {
    if (this.pid === undefined) return;
    await terminateGroup(this.pid, graceMs, hurry);
    // The leader's own exit is observed via the child events; give them the same bound.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.exited, new Promise((resolve) => (timer = setTimeout(resolve, Math.max(graceMs, 250))))]);
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
