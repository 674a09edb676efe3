// Building the CLI, in one place for the ./penguin launcher, the pretest hook and the CLI
// tests: `tsc -b apps/cli` (the CLI and every package it references), then esbuild bundles of
// the CLI into apps/cli/bundle/. A single module graph starts about 180 ms faster than ~150
// separate files, and a compiled-once script starts faster still, so the bundle folder holds:
//
//   main.js        the loader (src/launch/bundle-main.ts): help and version go to esm/, every
//                  other command to cached-main.js (src/launch/cached-main.ts), which runs
//                  cli-script.js with a V8 code cache (src/launch/code-cache.ts); `chat` on a
//                  terminal first draws its prompt with chat-prompt.js (src/launch/chat-prompt.ts)
//   cli-script.js  the whole CLI as one CommonJS-shaped function, for vm.Script + cachedData
//                  (Node 20 has no code cache for ES modules), whitespace-minified. Modules
//                  reached only by import() stay unevaluated until then (esbuild's lazy wrappers)
//   esm/           the same CLI as code-split ES modules, for --help and --version: only
//                  commander and the command tree load, the cheapest way to print help
//   vendor/        big third-party packages the CLI loads by import() only (marked,
//                  marked-terminal, undici, and the ACP SDK with its zod for `penguin acp`), as
//                  ES modules outside cli-script.js, so their source is not read into every
//                  `penguin run`. pi-tui's emoji regex is built on first use, not at import
//                  and marked loaded on first use (pi-tui-lazy-start.mjs)
//   rebuild-worker.js  the worker thread of a two-thread `projections rebuild`, with the
//                  projections in it (src/projections/rebuild-worker.ts), as one ES module
//   v8-cache/      written at run time by the loader, one file per command; removed by a build
//
// @penguin/server (it serves the web build from beside its own files, and is only loaded by
// `penguin server`) and native or test-only modules stay external and load from node_modules
// as usual. Every other workspace package is bundled; one that finds files next to its own
// module (@penguin/skills reads its library from `new URL("../skills/", import.meta.url)`)
// keeps doing so because the build rewrites `import.meta.url` in workspace files to the URL of
// the original file, as a path relative to the output file (see keepOwnLocation). Bundling
// @penguin/skills matters for start-up: as an external it pulled its own unbundled copy of
// `yaml` (~40 files) onto every `penguin run`.
//
// A build is stale when there is no bundle or stamp, or when any src file or tsconfig of a
// package, projection or app is newer than the stamp of the last successful build. Run
// directly (`node apps/cli/scripts/cli-build.mjs [--force]`) it builds when stale and exits non-zero on failure.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { piTuiLazyStart } from "./pi-tui-lazy-start.mjs";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const CLI = join(ROOT, "apps", "cli");
/** The workspace folders whose packages the CLI may bundle. */
const SOURCE_AREAS = ["packages", "projections", "apps"];
export const BUNDLE_DIR = join(CLI, "bundle");
export const BUNDLE_MAIN = join(BUNDLE_DIR, "main.js");
export const STAMP = join(BUNDLE_DIR, ".build-stamp");
const EXTERNAL = ["@penguin/server", "better-sqlite3", "@lydell/node-pty"];

/**
 * Big third-party packages the CLI reaches only through `import()`: built apart, as ES
 * modules in vendor/, and loaded from there by cli-script.js. `from` is the workspace package that
 * depends on it (pnpm makes it resolvable from there only). A CommonJS package's names are
 * not visible to a re-export (`export *` of CommonJS yields nothing), so for those the names
 * are read from the package itself at build time and re-exported one by one.
 */
const VENDOR = [
  { name: "marked", from: "apps/cli" },
  { name: "marked-terminal", from: "apps/cli" },
  { name: "@mariozechner/pi-tui", from: "apps/cli" },
  { name: "undici", from: "packages/models", commonjs: true },
  { name: "@agentclientprotocol/sdk", from: "apps/cli" },
];

/**
 * cli-script.js is one function expression the loader calls with CommonJS's parameters and
 * `__penguinImport`; "use strict" keeps the strict mode the same code has as ES modules.
 */
const SCRIPT_WRAPPER_START = '(function (exports, require, module, __filename, __dirname, __penguinImport) {"use strict";';
const SCRIPT_WRAPPER_END = "\n})";

/** The banner of cli-script.js: an ES module's `import.meta.url`, for the code that reads it. */
const IMPORT_META_URL = "__penguinImportMetaUrl";

/**
 * An esbuild plugin: in the built files of workspace packages, `import.meta.url` keeps
 * meaning "where this module's file is", not "where the bundle chunk is". Each occurrence
 * becomes the original file's URL, resolved from the output file's own URL by a relative path,
 * so the bundle keeps working when the checkout is moved as a whole. `outdir` is the folder
 * of the output files (the chunks of one build are all in one folder).
 *
 * With `effectImports` (a map from deepEffectImports), the same files also get their
 * `import { … } from "effect"` rewritten to the modules behind each name (see there).
 */
function keepOwnLocation(outdir, effectImports) {
  return {
    name: "keep-own-location",
    setup(build) {
      const workspaceFile = new RegExp(`^${ROOT.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/(packages|projections|apps)/[^/]+/dist/.*\\.js$`);
      build.onLoad({ filter: workspaceFile }, async (args) => {
        let text = readFileSync(args.path, "utf8");
        const original = text;
        if (effectImports !== undefined) text = rewriteEffectImports(text, effectImports, args.path);
        if (text.includes("import.meta.url")) {
          const fromOutput = relative(outdir, args.path).split(sep).join("/");
          text = text.replaceAll("import.meta.url", `new URL(${JSON.stringify(fromOutput)}, import.meta.url).href`);
        }
        if (text === original) return undefined;
        return { contents: text, loader: "js", resolveDir: dirname(args.path) };
      });
    },
  };
}

/**
 * Where each name of the `effect` barrel lives: `Effect` → `effect/Effect` as a namespace,
 * `pipe` → `{ pipe }` of `effect/Function`, read from the barrel itself at build time.
 *
 * Why: our packages import `{ Effect, Layer, … } from "effect"`, and in cli-script.js (one
 * CommonJS-shaped script whose modules are lazy initializers) importing the barrel evaluates
 * every module it re-exports: all of effect's ~330 modules and fast-check (effect/FastCheck),
 * about 1 MB of code run on every `penguin run` for the few dozen modules it uses. Importing
 * each name from its own module is the same binding (the barrel only re-exports), so the
 * script evaluates only what is used. A barrel line of another shape fails the build here
 * rather than leaving a name unmapped.
 */
function deepEffectImports() {
  const effectPackage = createRequire(join(ROOT, "packages", "core", "package.json")).resolve("effect/package.json");
  const esmBarrel = JSON.parse(readFileSync(effectPackage, "utf8")).exports["."].import;
  const barrel = readFileSync(join(dirname(effectPackage), esmBarrel), "utf8").replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, "");
  const map = new Map();
  for (const statement of barrel.split(";").map((x) => x.trim()).filter((x) => x !== "")) {
    const namespace = /^export \* as (\w+) from "\.\/(\w+)\.js"$/.exec(statement);
    if (namespace !== null) {
      map.set(namespace[1], { module: `effect/${namespace[2]}`, namespace: true });
      continue;
    }
    const named = /^export \{([^}]*)\} from "\.\/(\w+)\.js"$/.exec(statement);
    if (named === null) throw new Error(`cli-build.mjs: an effect barrel statement of an unknown shape: ${statement.slice(0, 120)}`);
    for (const name of named[1].split(",").map((x) => x.trim()).filter((x) => x !== "")) map.set(name, { module: `effect/${named[2]}`, namespace: false });
  }
  if (!map.has("Effect") || !map.has("pipe")) throw new Error("cli-build.mjs: the effect barrel was not read (no Effect or pipe)");
  return map;
}

/** `import { A, B as C, pipe } from "effect";` → one import per name, from its own module. */
function rewriteEffectImports(text, map, file) {
  return text.replace(/^import \{([^}]*)\} from "effect";$/gm, (_statement, list) => {
    const imports = [];
    for (const specifier of list.split(",").map((x) => x.trim()).filter((x) => x !== "")) {
      const [name, local = name] = specifier.split(/\s+as\s+/);
      const target = map.get(name);
      if (target === undefined) throw new Error(`cli-build.mjs: ${file} imports ${name} from "effect", which the barrel does not export`);
      imports.push(target.namespace ? `import * as ${local} from "${target.module}";` : `import { ${name} as ${local} } from "${target.module}";`);
    }
    return imports.join(" ");
  });
}

/** An esbuild plugin for cli-script.js: `import("marked")` and the other VENDOR packages become imports of their vendor/ file. */
const importVendorFiles = {
  name: "import-vendor-files",
  setup(build) {
    const names = new RegExp(`^(${VENDOR.map((v) => v.name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})$`);
    build.onResolve({ filter: names }, (args) => {
      if (args.kind !== "dynamic-import") return { errors: [{ text: `${args.path} is bundled apart (vendor/) and may only be loaded with import(), not a static import (${args.importer})` }] };
      return { path: `./vendor/${args.path}.js`, external: true };
    });
  },
};

/**
 * An esbuild plugin for cli-script.js: `@penguin/omnimessage` without building its effect/Schema
 * protocol schemas at start-up. Its schema module constructs ~40 schemas, their unions and the
 * structural guard when it is evaluated, which a `penguin run` paid on every start (about a
 * tenth of its CPU) although it decodes no trace line unless it resumes one. The bundle gets a
 * stand-in entry instead: the package's other modules (types, guards, builders, aggregator,
 * markers) as they are, and its decoding functions (decodeEnvelope, parseEnvelope,
 * describeParseError: every function schema.js exports, read from the module at build time) as
 * wrappers that evaluate schema.js on their first call. esbuild turns that `require` of an ES
 * module into its lazy module initializer, so the first decode costs what the import did, once.
 * The schema constants themselves are not re-exported: no bundled module imports them, and one
 * that did would fail this build ("No matching export"), not misbehave at run time.
 */
async function lazyProtocolSchemas() {
  const pkgDir = join(ROOT, "packages", "omnimessage");
  const dist = join(pkgDir, "dist");
  const { isSchema } = await import(pathToFileURL(createRequire(join(pkgDir, "package.json")).resolve("effect/Schema")).href);
  const schemaModule = await import(pathToFileURL(join(dist, "schema.js")).href);
  const decoders = Object.entries(schemaModule)
    .filter(([, value]) => typeof value === "function" && !isSchema(value))
    .map(([name]) => name);
  if (!decoders.includes("decodeEnvelope")) throw new Error("packages/omnimessage/dist/schema.js exports no decodeEnvelope: the lazy entry of cli-build.mjs no longer matches the package");
  const index = readFileSync(join(dist, "index.js"), "utf8");
  const reexported = [...index.matchAll(/^export \* from "(\.\/[\w-]+\.js)";$/gm)].map((m) => m[1]);
  if (!reexported.includes("./schema.js")) throw new Error("packages/omnimessage/dist/index.js no longer re-exports ./schema.js: update the lazy entry of cli-build.mjs");
  const lines = reexported.filter((f) => f !== "./schema.js").map((f) => `export * from ${JSON.stringify(join(dist, f))};`);
  lines.push("let schemaModule;");
  lines.push(`const loadSchemas = () => (schemaModule ??= require(${JSON.stringify(join(dist, "schema.js"))}));`);
  for (const name of decoders) lines.push(`export function ${name}(...args) { return loadSchemas().${name}(...args); }`);
  const contents = `${lines.join("\n")}\n`;
  return {
    name: "lazy-protocol-schemas",
    setup(build) {
      build.onResolve({ filter: /^@penguin\/omnimessage$/ }, () => ({ path: "@penguin/omnimessage", namespace: "penguin-lazy-omnimessage" }));
      build.onLoad({ filter: /.*/, namespace: "penguin-lazy-omnimessage" }, () => ({ contents, loader: "js", resolveDir: dist }));
    },
  };
}

async function buildVendor(build, vendorDir) {
  const shims = {};
  for (const v of VENDOR) {
    const pkgDir = join(ROOT, v.from);
    let contents = `export * from ${JSON.stringify(v.name)};\n`;
    if (v.commonjs === true) {
      const loaded = createRequire(join(pkgDir, "package.json"))(v.name);
      const exported = Object.keys(loaded).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k) && k !== "default");
      contents = `export { ${exported.join(", ")} } from ${JSON.stringify(v.name)};\n`;
    }
    shims[v.name] = { contents, resolveDir: pkgDir };
  }
  await build({
    entryPoints: Object.fromEntries(VENDOR.map((v) => [v.name, `penguin-vendor:${v.name}`])),
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    outdir: vendorDir,
    banner: { js: 'import { createRequire as __penguinRequire } from "node:module"; const require = __penguinRequire(import.meta.url);' },
    plugins: [
      piTuiLazyStart,
      {
        name: "vendor-shims",
        setup(b) {
          b.onResolve({ filter: /^penguin-vendor:/ }, (args) => ({ path: args.path.slice("penguin-vendor:".length), namespace: "penguin-vendor" }));
          b.onLoad({ filter: /.*/, namespace: "penguin-vendor" }, (args) => ({ ...shims[args.path], loader: "js" }));
        },
      },
    ],
    logLevel: "error",
  });
  // A vendor file without names would turn into `undefined` at the first use, long after the build.
  for (const v of VENDOR) {
    const m = await import(pathToFileURL(join(vendorDir, `${v.name}.js`)).href);
    if (Object.keys(m).length === 0) throw new Error(`vendor/${v.name}.js exports nothing: the package's names were not visible to the build`);
  }
}

/**
 * cli-script.js: the CLI as one script. Every `import()` esbuild leaves in it (externals, node:
 * built-ins, vendor files) becomes `__penguinImport(`, the loader's real import(); the count
 * must match the external dynamic imports the metafile lists, so no other text is touched.
 */
async function buildScript(build, scriptPath) {
  const result = await build({
    entryPoints: [join(CLI, "dist", "main.js")],
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    outfile: scriptPath,
    write: false,
    metafile: true,
    external: EXTERNAL,
    plugins: [importVendorFiles, await lazyProtocolSchemas(), keepOwnLocation(dirname(scriptPath), deepEffectImports())],
    define: { "import.meta.url": IMPORT_META_URL },
    // Less source to read and hold: every megabyte of it costs about 4 MiB of peak RSS.
    // Identifiers stay, so stack traces still name their functions.
    minifyWhitespace: true,
    banner: { js: `const ${IMPORT_META_URL} = require("node:url").pathToFileURL(__filename).href;` },
    logLevel: "error",
  });
  let text = result.outputFiles[0].text.replace(/^#!.*\n/, "");
  const expected = Object.values(result.metafile.outputs)[0].imports.filter((i) => i.kind === "dynamic-import" && i.external === true).length;
  let replaced = 0;
  text = text.replace(/(?<![\w$.])import\(/g, () => {
    replaced += 1;
    return "__penguinImport(";
  });
  if (replaced !== expected) throw new Error(`cli-script.js: found ${replaced} import( calls, the metafile lists ${expected} external dynamic imports; the text replacement would touch something else`);
  // ASCII only, so V8 holds the source as one byte a character instead of two (3 MB of heap).
  // esbuild escapes strings but not regular expression literals; \uXXXX means the same code
  // unit in a regex, a string or an identifier (an astral character's two halves, likewise).
  text = text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  // Stored already wrapped, so the loader compiles the file's text as it is read: wrapping it at
  // run time would copy the whole source once more.
  const wrapped = `${SCRIPT_WRAPPER_START}${text}${SCRIPT_WRAPPER_END}`;
  writeFileSync(scriptPath, wrapped);
  return createHash("sha256").update(wrapped).digest("hex");
}

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
    for (const d of ["esm", "vendor", "v8-cache"]) rmSync(join(BUNDLE_DIR, d), { recursive: true, force: true });
    const esmDir = join(BUNDLE_DIR, "esm");
    await build({
      entryPoints: { main: join(CLI, "dist", "main.js") },
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "node",
      target: "node20",
      outdir: esmDir,
      external: EXTERNAL,
      plugins: [keepOwnLocation(esmDir)],
      // CommonJS dependencies inside the ESM bundle still call require().
      banner: { js: 'import { createRequire as __penguinRequire } from "node:module"; const require = __penguinRequire(import.meta.url);' },
      logLevel: "error",
    });
    await buildVendor(build, join(BUNDLE_DIR, "vendor"));
    const scriptId = await buildScript(build, join(BUNDLE_DIR, "cli-script.js"));
    // rebuild-worker.js: the worker thread of a two-thread `projections rebuild`, the projections
    // in one file (src/projections/rebuild-worker.ts), so the thread starts without importing
    // effect, Kysely and the workspace packages module by module.
    await build({
      entryPoints: { "rebuild-worker": join(CLI, "dist", "projections", "rebuild-worker.js") },
      bundle: true,
      format: "esm",
      platform: "node",
      target: "node20",
      outdir: BUNDLE_DIR,
      external: EXTERNAL,
      plugins: [keepOwnLocation(BUNDLE_DIR, deepEffectImports())],
      banner: { js: 'import { createRequire as __penguinRequire } from "node:module"; const require = __penguinRequire(import.meta.url);' },
      logLevel: "error",
    });
    // chat-prompt.js: the chat's first frame (src/launch/chat-prompt.ts), drawn before cli-script.js
    // is read; pi-tui stays the vendor file, so both bundles share its one module instance.
    await build({
      entryPoints: { "chat-prompt": join(CLI, "dist", "launch", "chat-prompt.js") },
      bundle: true,
      format: "esm",
      platform: "node",
      target: "node20",
      outdir: BUNDLE_DIR,
      external: EXTERNAL,
      plugins: [importVendorFiles, keepOwnLocation(BUNDLE_DIR)],
      banner: { js: 'import { createRequire as __penguinRequire } from "node:module"; const require = __penguinRequire(import.meta.url);' },
      logLevel: "error",
    });
    await build({
      entryPoints: { main: join(CLI, "dist", "launch", "bundle-main.js"), "cached-main": join(CLI, "dist", "launch", "cached-main.js") },
      bundle: true,
      format: "esm",
      platform: "node",
      target: "node20",
      outdir: BUNDLE_DIR,
      define: { PENGUIN_SCRIPT_ID: JSON.stringify(scriptId) },
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
