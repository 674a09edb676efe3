// Building the CLI, in one place for the ./penguin launcher, the pretest hook and the CLI
// tests: `tsc -b packages/cli` (the CLI and every package it references), then one esbuild
// bundle of the CLI into packages/cli/bundle/ (ESM, code-split so lazily imported parts stay
// lazy). The bundle is what `./penguin` runs: a single module graph starts about 180 ms
// faster than ~150 separate files. Packages that find files next to their own modules
// (@penguin/server serves the web build, @penguin/skills reads its library) and native or
// test-only modules stay external and load from node_modules as usual.
//
// A build is stale when there is no bundle or stamp, or when any packages/*/src or
// projections/*/src file or package tsconfig is newer than the stamp of the last successful build. Run directly
// (`node scripts/cli-build.mjs [--force]`) it builds when stale and exits non-zero on failure.
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const CLI = join(ROOT, "packages", "cli");
export const BUNDLE_DIR = join(CLI, "bundle");
export const BUNDLE_MAIN = join(BUNDLE_DIR, "main.js");
export const STAMP = join(BUNDLE_DIR, ".build-stamp");
const EXTERNAL = ["@penguin/server", "@penguin/skills", "better-sqlite3", "@lydell/node-pty"];

function newerThan(dir, since) {
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

export function cliBuildIsStale() {
  if (!existsSync(BUNDLE_MAIN) || !existsSync(STAMP)) return true;
  const since = statSync(STAMP).mtimeMs;
  return ["packages", "projections"].some((area) => {
    const dir = join(ROOT, area);
    return existsSync(dir) && readdirSync(dir).some((name) => {
      const config = join(dir, name, "tsconfig.json");
      return newerThan(join(dir, name, "src"), since) || (existsSync(config) && statSync(config).mtimeMs > since);
    });
  });
}

/** Build now. Returns { ok, output }; `output` holds the tools' messages when not inherited. */
export async function buildCli({ inherit = false } = {}) {
  mkdirSync(BUNDLE_DIR, { recursive: true });
  // Stamp the start of the build: a source edited while it runs stays newer than the stamp.
  const next = `${STAMP}.next`;
  writeFileSync(next, "");
  const tsc = spawnSync(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-b", "packages/cli"], {
    cwd: ROOT,
    encoding: "utf8",
    stdio: inherit ? ["ignore", 2, 2] : "pipe",
  });
  if (tsc.status !== 0) {
    rmSync(next, { force: true });
    return { ok: false, output: `${tsc.stdout ?? ""}${tsc.stderr ?? ""}` };
  }
  const { build } = await import("esbuild");
  try {
    for (const f of readdirSync(BUNDLE_DIR)) if (f.endsWith(".js")) rmSync(join(BUNDLE_DIR, f));
    await build({
      entryPoints: { main: join(CLI, "dist", "main.js") },
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "node",
      target: "node20",
      outdir: BUNDLE_DIR,
      external: EXTERNAL,
      // CommonJS dependencies inside the ESM bundle still call require().
      banner: { js: 'import { createRequire as __penguinRequire } from "node:module"; const require = __penguinRequire(import.meta.url);' },
      logLevel: "error",
    });
  } catch (error) {
    rmSync(next, { force: true });
    return { ok: false, output: String(error) };
  }
  renameSync(next, STAMP);
  return { ok: true, output: "" };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes("--force") || cliBuildIsStale()) {
    const r = await buildCli({ inherit: true });
    if (!r.ok) {
      process.stderr.write(`${r.output}\npenguin: the build failed (see above)\n`);
      process.exit(1);
    }
  }
}
