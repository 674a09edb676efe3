/**
 * A stdio MCP server as a child process: how it is started and how it is stopped.
 *
 * Start: the SDK's StdioClientTransport spawns what stdio-launch.ts planned (the resolved
 * command, or bwrap around it; through cross-spawn, so `npx` works on Windows too). The child gets a minimal inherited environment (HOME, LOGNAME, PATH,
 * SHELL, TERM, USER) plus the entry's `env`; the vault and the rest of our environment are
 * never passed (SPEC §4). Its stderr never reaches our stdout or stderr: `ignore` drops it,
 * `pipe` (the default) keeps the last few KB so a failed connect can say why.
 *
 * Stop: closing stdin lets a well-behaved server exit at once. One that does not gets
 * SIGTERM after `termAfterMs`, then SIGKILL after `killAfterMs`. The SDK's own close waits
 * 2 s per step and forgets the child as soon as it begins, so the transport is wrapped to
 * remember the pid and the exit, and we signal the pid ourselves. Only the direct child is
 * signalled: a server started through a wrapper (`sh -c`, `npx`) relies on the wrapper
 * passing the signal on, or on its stdin closing.
 */
import { DEFAULT_INHERITED_ENV_VARS, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";
import type { StdioLaunch } from "./stdio-process.js";

export type StderrMode = "ignore" | "pipe";

/** How much of a server's stderr is kept for error messages. */
const STDERR_TAIL_CHARS = 4096;

/**
 * The environment a stdio server starts with: the minimal inherited set taken from
 * `parent`, then `extra`. Values that look like exported shell functions are dropped.
 */
export function stdioEnvironment(
  parent: Readonly<Record<string, string | undefined>>,
  extra: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of DEFAULT_INHERITED_ENV_VARS) {
    const value = parent[key];
    if (value !== undefined && !value.startsWith("()")) env[key] = value;
  }
  return { ...env, ...extra };
}

/** The SDK transport, plus the child's pid (kept after close starts) and its exit. */
export class StdioProcess implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  readonly exit: Promise<void>;
  /** Started inside the session's sandbox (bwrap around the command). */
  readonly sandboxed: boolean;
  private readonly inner: StdioClientTransport;
  private childPid: number | null = null;
  private hasExited = false;
  private tail = "";

  constructor(launch: StdioLaunch, options: { stderr: StderrMode }) {
    this.sandboxed = launch.sandboxed;
    this.inner = new StdioClientTransport({
      command: launch.command,
      args: launch.args,
      env: launch.env,
      stderr: options.stderr,
      ...(launch.cwd !== undefined ? { cwd: launch.cwd } : {}),
    });
    this.inner.stderr?.on("data", (chunk: Buffer | string) => {
      this.tail = (this.tail + chunk.toString()).slice(-STDERR_TAIL_CHARS);
    });
    let markExited = (): void => undefined;
    this.exit = new Promise<void>((resolveExit) => {
      markExited = resolveExit;
    });
    this.inner.onclose = () => {
      this.hasExited = true;
      markExited();
      this.onclose?.();
    };
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onmessage = (message: JSONRPCMessage) => this.onmessage?.(message);
  }

  async start(): Promise<void> {
    await this.inner.start();
    this.childPid = this.inner.pid;
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.inner.send(message);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** The child's pid once spawned; kept after the transport starts closing. */
  get pid(): number | null {
    return this.childPid;
  }

  /** True once the child has exited and its pipes closed. */
  exited(): boolean {
    return this.hasExited;
  }

  /** The end of what the server wrote to stderr (empty under `ignore`). */
  stderrTail(): string {
    return this.tail.trim();
  }
}

function signalPid(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false; // already gone
  }
}

/** How often a stopping child is checked for, when its pipes do not tell us (see below). */
const EXIT_POLL_MS = 25;
/** The last wait, after SIGKILL: normally over at once. */
const AFTER_KILL_MS = 1000;

/**
 * Waits up to `ms` for the child to be gone: its exit event, or its pid no longer
 * answering (a grandchild holding our pipes open delays the exit event indefinitely).
 */
function waitGone(child: StdioProcess, pid: number, ms: number): Promise<void> {
  return new Promise<void>((resolveWait) => {
    const done = (): void => {
      clearTimeout(limit);
      clearInterval(poll);
      resolveWait();
    };
    const limit = setTimeout(done, ms);
    const poll = setInterval(() => {
      if (!signalPid(pid, 0)) done();
    }, EXIT_POLL_MS);
    void child.exit.then(done);
  });
}

export interface StopTiming {
  /** Wait after closing stdin before SIGTERM. */
  termAfterMs: number;
  /** Wait after SIGTERM before SIGKILL. */
  killAfterMs: number;
}

/**
 * Stops the child: `closeGracefully` (the client's close, which ends stdin) runs while we
 * escalate to SIGTERM and then SIGKILL for as long as the child outlives each wait.
 * Resolves once the child is gone (or a second after SIGKILL at worst); never rejects.
 */
export async function stopStdioProcess(
  child: StdioProcess,
  closeGracefully: () => Promise<void>,
  timing: StopTiming,
): Promise<void> {
  const pid = child.pid;
  const closing = closeGracefully().catch(() => undefined);
  if (pid === null) {
    if (child.exited()) await closing;
    return;
  }
  const gone = (): boolean => child.exited() || !signalPid(pid, 0);
  const steps: [number, NodeJS.Signals | undefined][] = [
    [timing.termAfterMs, "SIGTERM"],
    [timing.killAfterMs, "SIGKILL"],
    [AFTER_KILL_MS, undefined],
  ];
  for (const [waitMs, signal] of steps) {
    if (gone()) break;
    await waitGone(child, pid, waitMs);
    if (signal !== undefined && !gone()) signalPid(pid, signal);
  }
  if (child.exited()) await closing;
}
