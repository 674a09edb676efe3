// Makes sure the built CLI is current before a suite drives it: the tests run the bundle
// `node apps/cli/bundle/main.js`, exactly what ./penguin runs, not the sources. The
// build itself and its staleness rule are apps/cli/scripts/cli-build.mjs, shared with the launcher
// and the pretest hook. Vitest runs files in parallel, so the build takes a lock directory:
// one file builds, the others wait for it and then see a fresh stamp.
import { mkdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
// @ts-expect-error: a plain ESM script without type declarations, shared with the launcher.
import { buildCli, cliBuildIsStale } from "../../scripts/cli-build.mjs";
import { REPO } from "./paths.js";

const LOCK = join(REPO, "node_modules", ".cache", "penguin-cli-build.lock");
const STALE_LOCK_MS = 10 * 60_000;

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
  while (cliBuildIsStale()) {
    if (!tryLock()) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    try {
      if (!cliBuildIsStale()) return;
      const r: { ok: boolean; output: string } = await buildCli();
      if (!r.ok) throw new Error(`the CLI build failed, the CLI cannot be tested:\n${r.output}`);
      return;
    } finally {
      rmSync(LOCK, { recursive: true, force: true });
    }
  }
}
