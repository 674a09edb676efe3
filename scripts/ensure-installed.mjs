// pretest hook: on a fresh clone `npm test` must work without a prior `npm ci` or build.
// 1. Installs exactly the locked dependencies when node_modules is missing or older than
//    the lockfile.
// 2. Builds the CLI (scripts/cli-build.mjs: tsc -b packages/cli, then the bundle) when that
//    build is stale, with the same rule and stamp as the ./penguin launcher, because the CLI
//    tests drive the built CLI.
// Otherwise returns at once so repeated test runs pay nothing. A failed build is reported
// but does not stop the other suites (they test sources); the CLI tests then say why.
import { existsSync, statSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const marker = join(root, "node_modules", ".package-lock.json");
const lock = join(root, "package-lock.json");

const stale = !existsSync(marker) || statSync(marker).mtimeMs < statSync(lock).mtimeMs;
if (stale) {
  process.stderr.write("penguin: installing dependencies (npm ci)…\n");
  const r = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: root, stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

// Imported only now: it needs the installed dependencies (esbuild).
const { buildCli, cliBuildIsStale } = await import("./cli-build.mjs");
if (stale || cliBuildIsStale()) {
  process.stderr.write("penguin: building (tsc -b packages/cli, then the CLI bundle)…\n");
  const r = await buildCli({ inherit: true });
  if (!r.ok) process.stderr.write("penguin: the build failed (see above); the CLI tests will fail until it builds\n");
}
