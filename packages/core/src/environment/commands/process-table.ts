/**
 * The commands of one Environment: ids, the cap on live processes, background listing,
 * `[background_task_done]` notices, and stopping everything on dispose.
 *
 * - Ids are short (`p1`, `p2`, …) because the model types them back.
 * - At most `maxProcesses` commands run at once; one more is refused, not queued.
 * - A command started with `run_in_background` queues a notice when it exits, unless it was
 *   killed (kill_command or dispose) or the model already saw its exit through input_command.
 *   `drainNotices` hands the texts over once; the engine delivers them at a turn boundary.
 * - Every process group ever started is remembered until it is seen empty, so `dispose`
 *   also reaps what exited commands left behind (`sleep 100 &`).
 */
import { formatFields, wrapMarker } from "@penguin/omnimessage";
import { CommandProcess, describeExit, type ExitStatus } from "./command-process.js";
import type { CommandSandbox } from "./sandbox.js";
import type { CommandShell } from "./shell-environment.js";

export const NOTICE_LABEL_CHARS = 120;
/** Finished commands kept for listing; the oldest whose end the model has seen go first. */
const MAX_FINISHED_ENTRIES = 256;
export const NOTICE_TAIL_CHARS = 4000;

export interface ProcessEntry {
  readonly id: string;
  readonly command: string;
  readonly label: string;
  readonly process: CommandProcess;
  /** Listed for the host and reachable by the model (run_in_background, or outlived its yield window). */
  background: boolean;
  /** Queue a notice on exit (started with run_in_background). */
  notify: boolean;
  /** The model has seen the exit (input_command or kill_command reported it). */
  exitReported: boolean;
  killed: boolean;
}

export interface ProcessInfo {
  id: string;
  command: string;
  label: string;
  status: "running" | "exited" | "killed";
  /** ISO time the command started. */
  started: string;
  /** Exit code when it exited normally; null when a signal ended it; absent while running. */
  exitCode?: number | null;
}

export interface ProcessTableOptions {
  maxProcesses: number;
  unreadBufferBytes: number;
  killGraceMs: number;
  /** Every command runs in this sandbox; absent: commands run directly. */
  sandbox?: CommandSandbox;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The text of a `[background_task_done]` notice. */
export function backgroundNotice(input: { id: string; label: string; status: ExitStatus; tail: string }): string {
  const ok = input.status.kind === "exited" && input.status.code === 0;
  const fields = formatFields({
    kind: "command",
    id: input.id,
    status: ok ? "completed" : "failed",
    detail: describeExit(input.status),
  });
  const tail = input.tail.length > NOTICE_TAIL_CHARS ? `…${input.tail.slice(-(NOTICE_TAIL_CHARS - 1))}` : input.tail;
  const body = [fields, clip(input.label.replace(/\s+/g, " ").trim(), NOTICE_LABEL_CHARS), tail === "" ? "[no output]" : tail];
  return wrapMarker("background_task_done", body.join("\n"));
}

export class ProcessTable {
  #entries = new Map<string, ProcessEntry>();
  #groups = new Set<CommandProcess>();
  #notices: ProcessEntry[] = [];
  #next = 1;
  #disposed = false;

  constructor(readonly options: ProcessTableOptions) {}

  get liveCount(): number {
    let n = 0;
    for (const p of this.#groups) if (p.running) n += 1;
    return n;
  }

  start(input: {
    command: string;
    cwd: string;
    label: string;
    notify: boolean;
    /** The environment and shell it runs with (the session's SessionShell prepared it). */
    shell: CommandShell;
  }): { ok: true; entry: ProcessEntry } | { ok: false; error: string } {
    if (this.#disposed) return { ok: false, error: "The environment is shutting down; no new commands start." };
    if (this.liveCount >= this.options.maxProcesses) {
      const running = [...this.#entries.values()].filter((e) => e.process.running).map((e) => e.id);
      return {
        ok: false,
        error: `Too many running commands (limit ${this.options.maxProcesses}). Stop one with kill_command first${
          running.length > 0 ? ` (running: ${running.join(", ")})` : ""
        }.`,
      };
    }
    let process: CommandProcess;
    try {
      process = new CommandProcess({
        command: input.command,
        cwd: input.cwd,
        env: input.shell.env,
        loginShell: input.shell.loginShell,
        ...(input.shell.mountPath === undefined ? {} : { mountPath: input.shell.mountPath }),
        unreadBufferBytes: this.options.unreadBufferBytes,
        tailChars: NOTICE_TAIL_CHARS + 1, // one more, to know whether the tail was cut
        ...(this.options.sandbox === undefined ? {} : { sandbox: this.options.sandbox }),
      });
    } catch (err) {
      return { ok: false, error: `The command could not start: ${err instanceof Error ? err.message : String(err)}` };
    }
    const entry: ProcessEntry = {
      id: `p${this.#next++}`,
      command: input.command,
      label: input.label,
      process,
      background: input.notify,
      notify: input.notify,
      exitReported: false,
      killed: false,
    };
    this.#entries.set(entry.id, entry);
    this.#groups.add(process);
    this.#prune();
    void process.exited.then(() => {
      if (entry.notify && !entry.killed) this.#notices.push(entry);
      if (!process.groupAlive()) this.#groups.delete(process);
    });
    return { ok: true, entry };
  }

  #prune(): void {
    const finished = [...this.#entries.values()].filter((e) => !e.process.running && (e.exitReported || e.killed));
    for (const e of finished.slice(0, Math.max(0, finished.length - MAX_FINISHED_ENTRIES))) this.#entries.delete(e.id);
  }

  get(id: string): ProcessEntry | undefined {
    return this.#entries.get(id);
  }

  /** Ids the model can address, for error messages. */
  ids(): string[] {
    return [...this.#entries.values()].filter((e) => e.background).map((e) => e.id);
  }

  /** Drops a foreground command whose exit the model has seen; its group stays tracked. */
  forget(id: string): void {
    this.#entries.delete(id);
  }

  list(): ProcessInfo[] {
    return [...this.#entries.values()]
      .filter((e) => e.background)
      .map((e) => {
        const status = e.process.status;
        const info: ProcessInfo = {
          id: e.id,
          command: e.command,
          label: e.label,
          status: e.killed ? "killed" : status === undefined ? "running" : "exited",
          started: e.process.started.toISOString(),
        };
        if (status !== undefined) info.exitCode = status.kind === "exited" ? status.code : null;
        return info;
      });
  }

  /** Stops a command's group; no notice will be sent for it. */
  async kill(entry: ProcessEntry, hurry?: AbortSignal): Promise<void> {
    entry.killed = true;
    await entry.process.terminate(this.options.killGraceMs, hurry);
  }

  /** Notices of finished run_in_background commands the model has not seen end; once each. */
  drainNotices(): string[] {
    const ready = this.#notices.filter((e) => !e.exitReported && !e.killed);
    this.#notices = [];
    return ready.map((e) => {
      e.exitReported = true;
      const status = e.process.status ?? { kind: "exited", code: 0 };
      return backgroundNotice({ id: e.id, label: e.label, status, tail: e.process.tail() });
    });
  }

  /** Stops every process group this table started and waits for them. Idempotent. */
  async dispose(): Promise<void> {
    this.#disposed = true;
    for (const e of this.#entries.values()) if (e.process.running) e.killed = true;
    const all = [...this.#groups];
    await Promise.all(all.map((p) => p.terminate(this.options.killGraceMs)));
    for (const p of all) if (!p.groupAlive()) this.#groups.delete(p);
  }
}
