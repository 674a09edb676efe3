/**
 * exec_command (rw): run a shell command.
 *
 * The command runs as `bash -c <cmd>` in its own process group, in `workdir` (default: the
 * workspace), in the session's shell environment (the login shell's, captured once at the
 * first command: commands/shell-environment.ts; `bash -lc` per command with the login-shell
 * setting), scrubbed (allowlisted in the sandbox), plus the vault. A failed capture adds its
 * note to the first command's result. Its output (stdout and stderr
 * merged) streams while the Environment waits for it, up to `yield_time_ms` (default 60000,
 * clamped to [250, timeout − 1000]):
 *   - it exits within the window: the output and `[exit code: N]`; non-zero is `failed`;
 *   - it is still running: it moves to the background and the note gives its `process_id`
 *     for input_command / kill_command;
 *   - the call is interrupted or times out: the process group is stopped and reaped first.
 * With `run_in_background` the call returns at once with the `process_id`; when such a
 * command exits, a `[background_task_done]` notice is queued (not when it is killed).
 */
import { stat } from "node:fs/promises";
import { Schema } from "effect";
import type { BuiltinTool } from "../tool.js";
import { NonEmptyString, optional, required, wholeNumberFrom, withDefault } from "../tool-params.js";
import { failed } from "../tool.js";
import { clampYield } from "../limits.js";
import { displayPath, resolveToolPath } from "../tool-paths.js";
import { describeExit, type ExitStatus } from "../commands/command-process.js";
import { follow } from "../commands/follow.js";
import type { ProcessTable } from "../commands/process-table.js";
import type { SessionShell } from "../commands/shell-environment.js";
import { markToolTurn } from "../../engine/turn-timing.js";

export const DEFAULT_EXEC_YIELD_MS = 60_000;

export const execCommandParams = Schema.Struct({
  // The model-facing texts still say `bash -lc`: what the model can rely on (the login
  // environment, a fresh shell per call) is unchanged, and the recorded sessions under
  // fixtures/traces replay only against the descriptions they were recorded with.
  cmd: required(NonEmptyString, "The shell command, run with `bash -lc`."),
  workdir: optional(NonEmptyString, "Directory to run in: absolute, or relative to the workspace (default: the workspace)."),
  yield_time_ms: withDefault(
    wholeNumberFrom(0),
    DEFAULT_EXEC_YIELD_MS,
    "How long to wait for the command before it moves to the background (ms).",
  ),
  run_in_background: withDefault(Schema.Boolean, false, "Start in the background and return at once; you are notified when it exits."),
});

export type ExecCommandParams = Schema.Schema.Type<typeof execCommandParams>;

export interface ExecCommandDetails {
  processId: string;
  /** Absent while the command is still running (backgrounded). */
  exit?: ExitStatus;
  background: boolean;
}

export interface ExecCommandToolOptions {
  workspaceDir: string;
  processes: ProcessTable;
  /** Prepares each command's environment (the login shell's, captured once per session). */
  shell: SessionShell;
  /** The tool's effective timeout: the yield window stays 1 s below it. */
  timeoutMs: number;
}

/** `[exit code: N]`, or how else the command ended. */
export function exitNote(status: ExitStatus): string {
  return status.kind === "exited" ? `[exit code: ${status.code}]` : `[${describeExit(status)}]`;
}

/** The shell's one-time note (a failed capture), before the command's own. */
function withShellNote(shellNote: string | undefined, note: string): string {
  return shellNote === undefined ? note : `${shellNote}\n${note}`;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

export function createExecCommandTool(options: ExecCommandToolOptions): BuiltinTool<ExecCommandParams, ExecCommandDetails> {
  return {
    name: "exec_command",
    description:
      "Run a shell command with `bash -lc` in the workspace (or `workdir`). Output (stdout and stderr) is returned with the exit code. A command still running after `yield_time_ms` moves to the background and you get a `process_id`: poll or send input with input_command, stop it with kill_command. Set `run_in_background` for servers and long jobs; you are notified when they exit.",
    permission: "rw",
    params: execCommandParams,
    takesDescription: true,
    async *execute(params, ctx) {
      const cwd = params.workdir === undefined ? options.workspaceDir : resolveToolPath(options.workspaceDir, params.workdir);
      if (!(await isDirectory(cwd))) {
        return failed(`workdir ${displayPath(options.workspaceDir, cwd)} is not an existing directory.`);
      }
      const shell = await options.shell.prepare(ctx.signal);
      // Interrupted while the session's login environment was being captured: nothing started.
      if (shell === undefined) return {};
      markToolTurn("shell-ready");
      const started = options.processes.start({
        command: params.cmd,
        cwd,
        label: ctx.description ?? params.cmd,
        notify: params.run_in_background,
        shell,
      });
      if (!started.ok) return failed(withShellNote(shell.note, started.error));
      markToolTurn("spawned");
      const entry = started.entry;
      const proc = entry.process;
      if (params.run_in_background) {
        return {
          note: withShellNote(shell.note, `[started in the background as process_id ${entry.id}; you will be notified when it exits. Poll it or send input with input_command; stop it with kill_command.]`),
          details: { processId: entry.id, background: true },
        };
      }
      const windowMs = clampYield(params.yield_time_ms, options.timeoutMs);
      yield* follow(proc, { windowMs, signal: ctx.signal });
      markToolTurn("exited");
      const status = proc.status;
      if (status === undefined) {
        if (ctx.signal.aborted) {
          await options.processes.kill(entry);
          options.processes.forget(entry.id);
          const rest = proc.drain();
          if (rest !== "") yield rest;
          return { ...(shell.note === undefined ? {} : { note: shell.note }), details: { processId: entry.id, background: false } };
        }
        entry.background = true;
        return {
          note: withShellNote(shell.note, `[still running after ${windowMs} ms; moved to the background as process_id ${entry.id}. Poll it or send input with input_command; stop it with kill_command.]`),
          details: { processId: entry.id, background: true },
        };
      }
      entry.exitReported = true;
      options.processes.forget(entry.id);
      const details: ExecCommandDetails = { processId: entry.id, exit: status, background: false };
      if (status.kind === "spawn-failed") return failed(withShellNote(shell.note, `The command could not start: ${status.error}`), details);
      const ok = status.kind === "exited" && status.code === 0;
      const note = withShellNote(shell.note, exitNote(status));
      return ok ? { note, details } : { stopReason: "failed", note, details };
    },
  };
}
