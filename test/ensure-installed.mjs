// The pretest hook (and the bench and crash scripts' first step): on a fresh clone
// `npm test` must work without a prior install or build, on a machine with only Node and npm.
// 1. Installs exactly the locked dependencies with pnpm 10.34.8 (through `npx --yes`, no
//    global pnpm, no corepack) when node_modules is missing or older than pnpm-lock.yaml.
// 2. Builds the CLI (apps/cli/scripts/cli-build.mjs: tsc -b apps/cli, then the bundle) when
//    that build is stale, with the same rule and stamp as the ./penguin launcher, because the
//    CLI tests drive the built CLI.
// Otherwise returns at once so repeated test runs pay nothing. A failed build is reported
// but does not stop the other suites (they test sources); the CLI tests then say why.
// It uses nothing but Node's own modules until the install is done.
import { existsSync, statSync, utimesSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const PNPM = "pnpm@10.34.8";
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const marker = join(root, "node_modules", ".modules.yaml");
const lock = join(root, "pnpm-lock.yaml");

const stale = !existsSync(marker) || statSync(marker).mtimeMs < statSync(lock).mtimeMs;
if (stale) {
  process.stderr.write(`penguin: installing dependencies (${PNPM} install --frozen-lockfile)…\n`);
  const r = spawnSync("npx", ["--yes", PNPM, "install", "--frozen-lockfile"], { cwd: root, stdio: ["ignore", 2, 2] });
  if (r.status !== 0) process.exit(r.status ?? 1);
  const now = new Date();
  utimesSync(marker, now, now);
}

// Imported only now: it needs the installed dependencies (esbuild).
const { buildCli, cliBuildIsStale } = await import(pathToFileURL(join(root, "apps", "cli", "scripts", "cli-build.mjs")).href);
if (stale || cliBuildIsStale()) {
  process.stderr.write("penguin: building (tsc -b apps/cli, then the CLI bundle)…\n");
  const r = await buildCli({ inherit: true });
  if (!r.ok) process.stderr.write("penguin: the build failed (see above); the CLI tests will fail until it builds\n");
}
