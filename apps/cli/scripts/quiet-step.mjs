// One setup step of the ./penguin launcher (the install, the CLI build, the web build), run
// quietly: one progress line on stderr when it starts and one when it ends, its own output
// kept in a log file instead of on the screen (pnpm's ~130 lines of progress, vite's list of
// chunks). When the step fails, the lines of the log worth reading (noise filtered out, the
// last 40) go to stderr with the log's path, so a failure still shows its cause.
//
//   node apps/cli/scripts/quiet-step.mjs "<what it does>" -- <command> [args…]
//
// Plain Node with no dependencies: it runs before `pnpm install` has run. The filter is
// exported (`worthShowing`) for its unit test.
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Lines that say nothing about a failure: progress meters, bin-link warnings, vite's chunk list. */
const NOISE = [
  /^\s*$/,
  /^Progress: resolved \d+/,
  /WARN\s+Failed to create bin at /,
  /^\s*(Packages|Scope): /,
  /^\s*\+{3,}|^\s*-{3,}\s*$/,
  /^(transforming|rendering chunks|computing gzip size)/,
  /^✓ \d+ modules transformed/,
  /^\s*dist\/\S+\s+[\d.,]+ kB/,
  /^vite v\d/,
  /^✓ built in /,
];

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

/** The lines of a step's output worth showing when it failed: colour codes and noise removed, the last `keep`. */
export function worthShowing(output, keep = 40) {
  const lines = output
    .replace(ANSI, "")
    .split(/\r?\n|\r/)
    .filter((line) => !NOISE.some((noise) => noise.test(line)));
  return lines.slice(-keep);
}

function say(text) {
  process.stderr.write(`penguin: ${text}\n`);
}

async function main(argv) {
  const sep = argv.indexOf("--");
  const label = argv.slice(0, sep).join(" ");
  const [command, ...args] = argv.slice(sep + 1);
  if (sep < 1 || command === undefined) {
    say('usage: quiet-step.mjs "<what it does>" -- <command> [args…]');
    return 2;
  }
  const dir = mkdtempSync(join(tmpdir(), "penguin-setup-"));
  const log = join(dir, "output.log");
  const fd = openSync(log, "w");
  say(`${label}…`);
  const started = Date.now();
  const code = await new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ["ignore", fd, fd] });
    child.on("error", (error) => {
      closeSync(fd);
      say(`${label}: could not start ${command}: ${error.message}`);
      resolve(127);
    });
    child.on("exit", (exitCode, signal) => resolve(exitCode ?? (signal === null ? 1 : 128)));
  });
  try {
    closeSync(fd);
  } catch {
    // already closed by the start failure
  }
  if (code === 0) {
    rmSync(dir, { recursive: true, force: true });
    say(`${label}: done (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    return 0;
  }
  const shown = worthShowing(readFileSync(log, "utf8"));
  for (const line of shown) process.stderr.write(`  ${line}\n`);
  say(`${label}: failed (exit ${code}); its whole output is in ${log}`);
  return code;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main(process.argv.slice(2));
}
