// Makes sure the built CLI is current before a suite drives it (tsc -b packages/cli builds it
// and the packages it references): the tests run
// `node packages/cli/dist/main.js`, not the sources. Same staleness rule and stamp as the
// ./penguin launcher and the pretest hook (a packages/*/src file newer than the stamp of
// the last successful build). Vitest runs files in parallel, so the build takes a lock
// directory: one file builds, the others wait for it and then see a fresh stamp.
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { REPO } from "./paths.js";

const CLI_DIST = join(REPO, "packages", "cli", "dist");
const STAMP = join(CLI_DIST, ".build-stamp");
const LOCK = join(REPO, "node_modules", ".cache", "penguin-cli-build.lock");
const STALE_LOCK_MS = 10 * 60_000;

function newerThan(dir: string, since: number): boolean {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  return entries.some((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? newerThan(path, since) : statSync(path).mtimeMs > since;
  });
}

function stale(): boolean {
  if (!existsSync(join(CLI_DIST, "main.js")) || !existsSync(STAMP)) return true;
  const since = statSync(STAMP).mtimeMs;
  const packages = join(REPO, "packages");
  return readdirSync(packages).some((name) => {
    const config = join(packages, name, "tsconfig.json");
    return newerThan(join(packages, name, "src"), since) || (existsSync(config) && statSync(config).mtimeMs > since);
  });
}

function tryLock(): boolean {
  mkdirSync(join(LOCK, ".."), { recursive: true });
  try {
    mkdirSync(LOCK);
    return true;
  } catch {
    if (Date.now() - statSync(LOCK).mtimeMs > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
    return false;
  }
}

export async function ensureBuilt(): Promise<void> {
  while (stale()) {
    if (!tryLock()) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    try {
      if (!stale()) return;
      mkdirSync(CLI_DIST, { recursive: true });
      writeFileSync(`${STAMP}.next`, "");
      const r = spawnSync(process.execPath, [join(REPO, "node_modules", "typescript", "bin", "tsc"), "-b", "packages/cli"], { cwd: REPO, encoding: "utf8" });
      if (r.status !== 0) throw new Error(`tsc -b failed, the CLI cannot be tested:\n${r.stdout}${r.stderr}`);
      renameSync(`${STAMP}.next`, STAMP);
      return;
    } finally {
      rmSync(LOCK, { recursive: true, force: true });
    }
  }
}
