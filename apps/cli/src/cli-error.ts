/**
 * The errors the CLI raises itself, and the one place every error becomes a line on stderr
 * plus an exit code.
 *
 * Commands throw typed values: `UsageError` for a bad flag combination (exit 2),
 * `CliFailure` for an outcome with its own code (a failed connectivity check, a missing
 * session to resume). Core's typed errors (`PenguinError` with a `code`, `ConfigError`,
 * `InvalidIdError`) are user errors too and map to exit 2; their messages already say what
 * to do, so they are printed as they are. Anything else is a bug: exit 1, with the stack
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
  if (error instanceof Error) {
    const described: DescribedError = { message: `internal error: ${error.message}`, exitCode: EXIT.failed };
    if (error.stack !== undefined) described.stack = error.stack;
    return described;
  }
  return { message: `internal error: ${String(error)}`, exitCode: EXIT.failed };
}
