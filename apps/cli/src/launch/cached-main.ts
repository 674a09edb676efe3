/**
 * apps/cli/bundle/cached-main.js: runs `cli-script.js`, the whole CLI as one script, compiled
 * with a V8 code cache (code-cache.ts), one cache file per command name (and set of node
 * flags) under `v8-cache/` in the bundle folder, so `penguin run` and `penguin chat` each keep
 * the functions they use. A cache that is missing or not valid for this script (V8 checks its
 * checksum, see code-cache.ts) is ignored, and a fresh one is written when the process exits.
 *
 * The script is a CommonJS-style function: `require` resolves from the bundle folder as an ES
 * module's `createRequire(import.meta.url)` did, `"use strict"` keeps the strict mode ES
 * modules had, and `__penguinImport` is a real `import()` from this module (so from the bundle
 * folder), which the build substitutes for every `import()` the script keeps (@penguin/server,
 * node: built-ins, the ES module vendor files in `vendor/`): a `vm.Script` has no module
 * loader of its own.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { preferBaselineWasm, restoreWasmTierDefaults } from "./baseline-wasm.js";
import { compileWithCache, fnv1a32Hex } from "./code-cache.js";

/** The SHA-256 of cli-script.js, written in by the build (esbuild `define`). */
declare const PENGUIN_SCRIPT_ID: string;

// No V8 flag stays changed at start: while one differs from its default, Node refuses its own
// code cache for the built-ins a run loads later. code-cache.ts turns V8's checksum flag on only
// around compiling and serializing our cache; `--liftoff-only` waits for the first WebAssembly
// compile (baseline-wasm.ts), and is put back before a cache is made at exit, so the cache has
// the flag hash of the next start's compile.
preferBaselineWasm();

const bundleDir = dirname(fileURLToPath(import.meta.url));
const scriptPath = join(bundleDir, "cli-script.js");
const command = process.argv[2];
const commandName = command !== undefined && /^[a-z][a-z0-9-]{0,31}$/.test(command) ? command : "other";
// V8 refuses a cache made under other V8 flags, so `node --inspect main.js run` or a
// NODE_OPTIONS with flags keeps caches of its own instead of rewriting the plain one each time,
// named by a short hash of the flags (FNV-1a: a name, not a check, and no node:crypto to load).
const nodeFlags = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].join("\n").trim();
const cacheName = nodeFlags === "" ? commandName : `${commandName}-${fnv1a32Hex(nodeFlags)}`;
const compiled = compileWithCache({
  // Already wrapped by the build as `(function (exports, require, module, __filename,
  // __dirname, __penguinImport) {"use strict"; … })`, and in ASCII, so latin1 is exact,
  // skips UTF-8 decoding, and the text is compiled as read, never copied.
  source: readFileSync(scriptPath, "latin1"),
  filename: scriptPath,
  scriptId: PENGUIN_SCRIPT_ID,
  cacheFile: join(bundleDir, "v8-cache", `${cacheName}.bin`),
});
if (compiled.status !== "used")
  process.once("exit", () => {
    restoreWasmTierDefaults();
    compiled.save();
  });
const cliModule = { exports: {} };
const run = compiled.script.runInThisContext() as (...args: unknown[]) => void;
run(cliModule.exports, createRequire(scriptPath), cliModule, scriptPath, bundleDir, (specifier: string) => import(specifier));
