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
import { preferBaselineWasm } from "./launch/baseline-wasm.js";
import { buildProgram } from "./program.js";

// Node's fetch parses HTTP with llhttp compiled to WebAssembly, and V8's optimizing tier for it
// costs a run ~30 MiB of peak RSS; V8's --liftoff-only avoids that. The flag is process-wide, so
// the process owner sets it, and only right before the first WebAssembly compile (a trap,
// launch/baseline-wasm.ts): a flag changed at start would make Node refuse its own code cache for
// every built-in loaded afterwards. The bundle's cached-main.js has installed the trap already
// for every command but help and version; this installs it when dist/main.js runs alone. Help
// and version compile no WebAssembly, so they skip even the trap.
const HELP_OR_VERSION = new Set(["-h", "--help", "-v", "-V", "--version"]);

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
  if (!argv.slice(2).some((a) => HELP_OR_VERSION.has(a))) preferBaselineWasm();
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
