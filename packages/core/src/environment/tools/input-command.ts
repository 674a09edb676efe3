/**
 * input_command (rw): type into a background command, or poll it.
 *
 * `chars` goes to the process's stdin; each `\u0003` in it is a Ctrl-C, sent as SIGINT to the
 * whole process group at that point of the text. Empty `chars` only polls. Then the new
 * output since the last read is collected for `yield_time_ms`:
 *   - after a write: default 250 ms, ending early when the process exits;
 *   - on a poll: default (and at most) 120000 ms, ending as soon as there is new output or
 *     the process exits.
 * The window is clamped to [250, timeout − 1000]. An interrupt or timeout only ends the
 * wait: the process keeps running in the background.
 */
import { Schema } from "effect";
import type { BuiltinTool } from "../tool.js";
import { NonEmptyString, optional, required, wholeNumberFrom, withDefault } from "../tool-params.js";
import { failed } from "../tool.js";
import { clampYield } from "../limits.js";
import { describeExit } from "../commands/command-process.js";
import { follow } from "../commands/follow.js";
import type { ProcessEntry, ProcessTable } from "../commands/process-table.js";

export const INPUT_WRITE_YIELD_MS = 250;
export const INPUT_POLL_YIELD_MS = 120_000;
export const CTRL_C = "\u0003";
const EXIT_SETTLE_MS = 500;

export const inputCommandParams = Schema.Struct({
  process_id: required(NonEmptyString, "The process_id exec_command gave."),
  chars: withDefault(
    Schema.String,
    "",
    "Text to write to the process's stdin (include \\n to submit a line); \\u0003 sends Ctrl-C. Empty: only poll for new output.",
  ),
  yield_time_ms: optional(
    wholeNumberFrom(0),
    "How long to collect output (ms): default 250 after a write; a poll waits up to 120000 for new output.",
  ),
});

export type InputCommandParams = Schema.Schema.Type<typeof inputCommandParams>;

export interface InputCommandDetails {
  processId: string;
  running: boolean;
  interrupts: number;
}

export interface InputCommandToolOptions {
  processes: ProcessTable;
  timeoutMs: number;
}

export function unknownProcess(id: string, processes: ProcessTable): string {
  const known = processes.ids();
  return `Unknown process_id ${id}.${known.length > 0 ? ` Known: ${known.join(", ")}.` : " No background commands exist."}`;
}

/** The status line after a read; marks an exit as seen by the model. */
export function statusNote(entry: ProcessEntry): string {
  const status = entry.process.status;
  if (entry.killed) return `[process ${entry.id} was killed]`;
  if (status === undefined) return `[process ${entry.id} is still running]`;
  entry.exitReported = true;
  return `[process ${entry.id} has exited: ${describeExit(status)}]`;
}

/** Writes text with Ctrl-C characters turned into SIGINTs; returns the SIGINT count or an error. */
async function send(entry: ProcessEntry, chars: string): Promise<{ ok: true; interrupts: number } | { ok: false; error: string }> {
  const parts = chars.split(CTRL_C);
  let interrupts = 0;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] ?? "";
    if (part !== "") {
      const written = await entry.process.write(part);
      if (!written.ok) return written;
    }
    if (i < parts.length - 1) {
      entry.process.interrupt();
      interrupts += 1;
    }
  }
  return { ok: true, interrupts };
}

/** Gives a process that is going away a moment to report its exit. */
async function settleExit(entry: ProcessEntry): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([entry.process.exited, new Promise((resolve) => (timer = setTimeout(resolve, EXIT_SETTLE_MS)))]);
  clearTimeout(timer);
}

export function createInputCommandTool(
  options: InputCommandToolOptions,
): BuiltinTool<InputCommandParams, InputCommandDetails> {
  return {
    name: "input_command",
    description:
      "Send input to a background command started by exec_command, or poll it. `chars` is written to its stdin (add \\n to submit a line; \\u0003 sends Ctrl-C). With empty `chars`, waits for new output. Returns the output produced since the last read.",
    permission: "rw",
    params: inputCommandParams,
    takesDescription: true,
    async *execute(params, ctx) {
      const entry = options.processes.get(params.process_id);
      if (entry === undefined || !entry.background) return failed(unknownProcess(params.process_id, options.processes));
      const proc = entry.process;
      const writing = params.chars !== "";
      let interrupts = 0;
      if (writing) {
        let sent = !proc.running || entry.killed ? undefined : await send(entry, params.chars);
        if (sent !== undefined && !sent.ok) {
          await settleExit(entry); // a write failing with EPIPE usually means the process just ended
          if (proc.running) return failed(`Could not write to process ${entry.id}: ${sent.error}`);
          sent = undefined;
        }
        if (sent === undefined) {
          const rest = proc.drain();
          if (rest !== "") yield rest;
          return failed(`${statusNote(entry)} The input was not sent.`, {
            processId: entry.id,
            running: false,
            interrupts: 0,
          });
        }
        interrupts = sent.interrupts;
      }
      const requested = params.yield_time_ms ?? (writing ? INPUT_WRITE_YIELD_MS : INPUT_POLL_YIELD_MS);
      const windowMs = clampYield(requested, options.timeoutMs, INPUT_POLL_YIELD_MS);
      yield* follow(proc, { windowMs, signal: ctx.signal, untilOutput: !writing });
      return { note: statusNote(entry), details: { processId: entry.id, running: proc.running, interrupts } };
    },
  };
}
