#!/usr/bin/env node
/**
 * The `penguin` executable. Parses the command line, runs one command, and owns the exit
 * code contract: commander's usage errors exit 2, help and version exit 0, every other error
 * becomes one `error: …` line on stderr with the code `describeError` gives it (2 for
 * configuration errors, 1 for bugs). It exits only after stdout and stderr have flushed, so
 * piped JSON Lines are never cut short, and it exits explicitly so an idle keep-alive socket
 * cannot hold the process open.
 *
 * Kept small on purpose: this file and program.ts are all that load for `--help` and
 * `--version` (the cold-start path); commands import core when they run.
 */
import { CommanderError } from "commander";
import { describeError } from "./cli-error.js";
import { EXIT, type ExitCode } from "./exit-codes.js";
import { buildProgram } from "./program.js";

// Node's fetch parses HTTP with llhttp compiled to WebAssembly. By default V8 also compiles that
// module with its optimizing tier on background threads, which on a one-turn `penguin run`
// costs about 30 MiB of peak RSS and 40 ms of CPU for a parser that only ever reads a few
// kilobytes of SSE. The baseline tier alone (Liftoff) is plenty for that. The flag is
// process-wide, so it is set here, by the process owner, and not in the library that fetches.
// Nothing else in the CLI runs WebAssembly; the flag only has to precede the first fetch.
// Help and version fetch nothing, so they do not load node:v8 for it (about 1.5 ms of a
// `penguin --help` that costs ~20 ms over bare node); the bundle's cached-main.js has set the
// flag already for every other command, and this keeps it set when dist/main.js runs alone.
const HELP_OR_VERSION = new Set(["-h", "--help", "-v", "-V", "--version"]);

async function preferBaselineWasm(argv: string[]): Promise<void> {
  if (argv.length <= 2 || argv.slice(2).some((a) => HELP_OR_VERSION.has(a))) return;
  const { setFlagsFromString } = await import("node:v8");
  setFlagsFromString("--liftoff-only");
}

function flushAndExit(code: ExitCode): void {
  let pending = 2;
  const done = (): void => {
    pending -= 1;
    if (pending === 0) process.exit(code);
  };
  process.stdout.write("", done);
  process.stderr.write("", done);
}

async function main(argv: string[]): Promise<ExitCode> {
  let code: ExitCode = EXIT.done;
  const program = buildProgram((c) => {
    code = c;
  });
  if (argv.length <= 2) {
    program.outputHelp();
    return EXIT.done;
  }
  await preferBaselineWasm(argv);
  try {
    await program.parseAsync(argv);
    return code;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.done : EXIT.usage;
    const described = await describeError(error);
    process.stderr.write(`error: ${described.message}\n`);
    if (described.stack !== undefined && process.env.PENGUIN_DEBUG !== undefined) process.stderr.write(`${described.stack}\n`);
    return described.exitCode;
  }
}

// Not a top-level await: the same file is bundled as an ES module (esm/, for help) and as a
// CommonJS-shaped script (cli.cjs, for every command), and the script form has none.
void main(process.argv).then(flushAndExit);
