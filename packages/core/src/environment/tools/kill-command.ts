/**
 * kill_command (rw): stop a background command.
 *
 * SIGTERM to its process group, then SIGKILL after the grace period (1 s by default); the
 * call returns once the group is gone, with the output not yet read and how the process
 * ended. If the call itself is interrupted or times out, SIGKILL is sent at once. A killed
 * command sends no `[background_task_done]` notice.
 */
import { Schema } from "effect";
import type { BuiltinTool } from "../tool.js";
import { NonEmptyString, required } from "../tool-params.js";
import { failed } from "../tool.js";
import { describeExit } from "../commands/command-process.js";
import type { ProcessTable } from "../commands/process-table.js";
import { unknownProcess } from "./input-command.js";

export const killCommandParams = Schema.Struct({
  process_id: required(NonEmptyString, "The process_id exec_command gave."),
});

export type KillCommandParams = Schema.Schema.Type<typeof killCommandParams>;

export interface KillCommandDetails {
  processId: string;
  /** False when the process had already exited on its own. */
  killed: boolean;
}

export interface KillCommandToolOptions {
  processes: ProcessTable;
}

export function createKillCommandTool(options: KillCommandToolOptions): BuiltinTool<KillCommandParams, KillCommandDetails> {
  return {
    name: "kill_command",
    description:
      "Stop a background command started by exec_command (SIGTERM to its process group, SIGKILL if it does not exit). Returns its remaining output.",
    permission: "rw",
    params: killCommandParams,
    takesDescription: true,
    async *execute(params, ctx) {
      const entry = options.processes.get(params.process_id);
      if (entry === undefined || !entry.background) return failed(unknownProcess(params.process_id, options.processes));
      const proc = entry.process;
      if (!proc.running) {
        const rest = proc.drain();
        if (rest !== "") yield rest;
        entry.exitReported = true;
        const how = proc.status === undefined ? "exited" : describeExit(proc.status);
        return {
          note: `[process ${entry.id} had already ${entry.killed ? "been killed" : `exited: ${how}`}]`,
          details: { processId: entry.id, killed: false },
        };
      }
      await options.processes.kill(entry, ctx.signal);
      const rest = proc.drain();
      if (rest !== "") yield rest;
      entry.exitReported = true;
      const status = proc.status;
      const how = status === undefined ? "stopped" : describeExit(status);
      return { note: `[process ${entry.id} killed (${how})]`, details: { processId: entry.id, killed: true } };
    },
  };
}
