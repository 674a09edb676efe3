// Initial-JS budget check, run after `vite build` (npm run build).
//
// "Initial JS" is what a first visit must download before anything renders: the entry chunk
// of index.html and every chunk it imports statically, transitively (dynamic imports such
// as pages and shiki grammars are excluded: they load on demand). The sizes are gzip level 9
// of the files in dist/, found through Vite's manifest. Prints the list and the total; exits
// 1 when the total is over the budget (300 KB, or WEB_JS_BUDGET_KB).
import { readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const budgetKb = Number(process.env.WEB_JS_BUDGET_KB ?? 300);

let manifest;
try {
  manifest = JSON.parse(readFileSync(join(dist, ".vite", "manifest.json"), "utf8"));
} catch {
  console.error("check-bundle-size: dist/.vite/manifest.json not found; run `vite build` first");
  process.exit(1);
}

const entries = Object.entries(manifest).filter(([, chunk]) => chunk.isEntry);
if (entries.length === 0) {
  console.error("check-bundle-size: the manifest has no entry chunk");
  process.exit(1);
}

const seen = new Set();
const files = [];
function visit(key) {
  if (seen.has(key)) return;
  seen.add(key);
  const chunk = manifest[key];
  if (chunk === undefined) return;
  if (chunk.file.endsWith(".js")) files.push(chunk.file);
  for (const imported of chunk.imports ?? []) visit(imported);
}
for (const [key] of entries) visit(key);

let total = 0;
for (const file of files) {
  const size = gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
  total += size;
  console.log(`  ${(size / 1024).toFixed(1).padStart(7)} KB  ${file}`);
}
const kb = total / 1024;
console.log(`initial JS (gzip): ${kb.toFixed(1)} KB of ${budgetKb} KB budget, ${files.length} file(s)`);
if (kb > budgetKb) {
  console.error(`check-bundle-size: over budget by ${(kb - budgetKb).toFixed(1)} KB`);
  process.exit(1);
}
