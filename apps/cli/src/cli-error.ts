/**
 * The errors the CLI raises itself, and the one place every error becomes a line on stderr
 * plus an exit code.
 *
 * Commands throw typed values: `UsageError` for a bad flag combination (exit 2),
 * `CliFailure` for an outcome with its own code (a failed connectivity check, a missing
 * session to resume). Core's typed errors (`PenguinError` with a `code`, `ConfigError`,
 * `InvalidIdError`) are user errors too and map to exit 2; their messages already say what
 * to do, so they are printed as they are. A write the disk refused (a read-only data root, a
 * full disk: errno EROFS, ENOSPC, EDQUOT, found on the error or its causes) is no bug either:
 * it is said in words naming the path (exit 1). Anything else is a bug: exit 1, with the stack
 * only when PENGUIN_DEBUG is set.
 *
 * Core is imported lazily here: `--help` and `--version` never load it, and by the time an
 * error reaches this function the command has usually loaded core already.
 */
import { EXIT, type ExitCode } from "./exit-codes.js";

export class UsageError extends Error {
  readonly exitCode: ExitCode = EXIT.usage;

  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export class CliFailure extends Error {
  readonly exitCode: ExitCode;

  constructor(message: string, exitCode: ExitCode) {
    super(message);
    this.name = "CliFailure";
    this.exitCode = exitCode;
  }
}

export interface DescribedError {
  message: string;
  exitCode: ExitCode;
  /** Set for unexpected errors: the stack, shown with PENGUIN_DEBUG. */
  stack?: string;
}

export async function describeError(error: unknown): Promise<DescribedError> {
  if (error instanceof UsageError || error instanceof CliFailure) return { message: error.message, exitCode: error.exitCode };
  const core = await import("@penguin/core");
  if (core.isPenguinError(error) || error instanceof core.ConfigError || error instanceof core.InvalidIdError) {
    return { message: error.message, exitCode: EXIT.usage };
  }
  const storage = storageProblem(error);
  if (storage !== undefined) return { message: storage, exitCode: EXIT.failed };
  if (error instanceof Error) {
    const described: DescribedError = { message: `internal error: ${error.message}`, exitCode: EXIT.failed };
    if (error.stack !== undefined) described.stack = error.stack;
    return described;
  }
  return { message: `internal error: ${String(error)}`, exitCode: EXIT.failed };
}

/** A read-only or full file system behind `error`, as a sentence naming the path; else undefined. */
function storageProblem(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; typeof e === "object" && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (code !== "EROFS" && code !== "ENOSPC" && code !== "EDQUOT") continue;
    const message = e instanceof Error ? e.message : String(e);
    const rawPath = (e as { path?: unknown }).path;
    const path = typeof rawPath === "string" ? rawPath : undefined;
    // The trace writer's own errors already name the file and say what happened.
    if (e instanceof Error && e.name === "TraceWriteError") return message;
    const where = path ?? "a file of the data root";
    return code === "EROFS"
      ? `${where} is on a read-only file system: penguin writes its data root there (traces, agent state, workspaces); remount it read-write, or use another data root (--root or PENGUIN_HOME)`
      : `no space left on the device holding ${where}: free some space there, then try again (what was recorded before is kept)`;
  }
  return undefined;
}
