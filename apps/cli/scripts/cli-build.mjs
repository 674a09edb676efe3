// Building the CLI, in one place for the ./penguin launcher, the pretest hook and the CLI
// tests: `tsc -b apps/cli` (the CLI and every package it references), then one esbuild
// bundle of the CLI into apps/cli/bundle/ (ESM, code-split so lazily imported parts stay
// lazy). The bundle is what `./penguin` runs: a single module graph starts about 180 ms
// faster than ~150 separate files. @penguin/server (it serves the web build from beside
// its own files, and is only loaded by `penguin server`) and native or test-only modules
// stay external and load from node_modules as usual. Every other workspace package is
// bundled; one that finds files next to its own module (@penguin/skills reads its library
// from `new URL("../skills/", import.meta.url)`) keeps doing so because the build rewrites
// `import.meta.url` in workspace files to the URL of the original file, as a path relative
// to the bundle (see keepOwnLocation). Bundling @penguin/skills matters for start-up: as an
// external it pulled its own unbundled copy of `yaml` (~40 files) onto every `penguin run`.
//
// A build is stale when there is no bundle or stamp, or when any src file or tsconfig of a
// package, projection or app is newer than the stamp of the last successful build. Run
// directly (`node apps/cli/scripts/cli-build.mjs [--force]`) it builds when stale and exits non-zero on failure.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const CLI = join(ROOT, "apps", "cli");
/** The workspace folders whose packages the CLI may bundle. */
const SOURCE_AREAS = ["packages", "projections", "apps"];
export const BUNDLE_DIR = join(CLI, "bundle");
export const BUNDLE_MAIN = join(BUNDLE_DIR, "main.js");
export const STAMP = join(BUNDLE_DIR, ".build-stamp");
const EXTERNAL = ["@penguin/server", "better-sqlite3", "@lydell/node-pty"];

/**
 * An esbuild plugin: in the built files of workspace packages, `import.meta.url` keeps
 * meaning "where this module's file is", not "where the bundle chunk is". Each occurrence
 * becomes the original file's URL, resolved from the chunk's own URL by a relative path, so
 * the bundle keeps working when the checkout is moved as a whole.
 */
const keepOwnLocation = {
  name: "keep-own-location",
  setup(build) {
    const workspaceFile = new RegExp(`^${ROOT.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/(packages|projections)/[^/]+/dist/.*\\.js$`);
    build.onLoad({ filter: workspaceFile }, async (args) => {
      const text = readFileSync(args.path, "utf8");
      if (!text.includes("import.meta.url")) return undefined;
      const fromBundle = relative(BUNDLE_DIR, args.path).split(sep).join("/");
      return { contents: text.replaceAll("import.meta.url", `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`), loader: "js", resolveDir: dirname(args.path) };
    });
  },
};

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
  return SOURCE_AREAS.some((area) => {
    const folder = join(ROOT, area);
    if (!existsSync(folder)) return false;
    return readdirSync(folder).some((name) => {
      if (area === "apps" && name === "web") return false; // the web app is not part of the CLI
      const config = join(folder, name, "tsconfig.json");
      return newerThan(join(folder, name, "src"), since) || (existsSync(config) && statSync(config).mtimeMs > since);
    });
  });
}

/** Build now. Returns { ok, output }; `output` holds the tools' messages when not inherited. */
export async function buildCli({ inherit = false } = {}) {
  mkdirSync(BUNDLE_DIR, { recursive: true });
  // Stamp the start of the build: a source edited while it runs stays newer than the stamp.
  const next = `${STAMP}.next`;
  writeFileSync(next, "");
  const tsc = spawnSync(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-b", "apps/cli"], {
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
      plugins: [keepOwnLocation],
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
