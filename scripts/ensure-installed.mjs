// pretest hook: on a fresh clone `npm test` must work without a prior `npm ci` or build.
// 1. Installs exactly the locked dependencies when node_modules is missing or older than
//    the lockfile.
// 2. Builds the CLI and what it references (tsc -b packages/cli) when that build is stale:
//    no CLI build yet, or a packages/*/src file or package tsconfig newer than the stamp of
//    the last successful build (the same rule and stamp as the ./penguin launcher), because
//    the CLI tests drive the built CLI.
// Otherwise returns at once so repeated test runs pay nothing. A failed build is reported
// but does not stop the other suites (they test sources); the CLI tests then say why.
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync, rmSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const marker = join(root, "node_modules", ".package-lock.json");
const lock = join(root, "package-lock.json");
const cliDist = join(root, "packages", "cli", "dist");
const stamp = join(cliDist, ".build-stamp");

const stale = !existsSync(marker) || statSync(marker).mtimeMs < statSync(lock).mtimeMs;
if (stale) {
  process.stderr.write("penguin: installing dependencies (npm ci)…\n");
  const r = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: root, stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

/** True when any file under `dir` is newer than `since` (ms). */
function newerThan(dir, since) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory() ? newerThan(path, since) : statSync(path).mtimeMs > since) return true;
  }
  return false;
}

function buildIsStale() {
  if (!existsSync(join(cliDist, "main.js")) || !existsSync(stamp)) return true;
  const since = statSync(stamp).mtimeMs;
  const packages = join(root, "packages");
  return readdirSync(packages).some((name) => {
    const config = join(packages, name, "tsconfig.json");
    return newerThan(join(packages, name, "src"), since) || (existsSync(config) && statSync(config).mtimeMs > since);
  });
}

if (stale || buildIsStale()) {
  process.stderr.write("penguin: building (tsc -b packages/cli)…\n");
  mkdirSync(cliDist, { recursive: true });
  const next = `${stamp}.next`;
  writeFileSync(next, "");
  const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
  const r = spawnSync(process.execPath, [tsc, "-b", "packages/cli"], { cwd: root, stdio: "inherit" });
  if (r.status === 0) renameSync(next, stamp);
  else {
    rmSync(next, { force: true });
    process.stderr.write("penguin: the build failed (see above); the CLI tests will fail until it builds\n");
  }
}
