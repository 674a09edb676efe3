// Initial-JS budget check and the chat page's first-load figure, run after `vite build`
// (npm run build).
//
// "Initial JS" is what a first visit must download before anything renders: the entry chunk
// of index.html and every chunk it imports statically, transitively (dynamic imports such
// as pages and shiki grammars are excluded: they load on demand). The sizes are gzip level 9
// of the files in dist/, found through Vite's manifest. Prints the list and the total; exits
// 1 when the total is over the budget (300 KB, or WEB_JS_BUDGET_KB).
//
// "Chat page first load" is what opening /chat downloads before it can draw: the initial JS
// plus the chat page's lazy chunk and its static imports (shiki grammars and the charts are
// dynamic, so they are not in it). Printed beside the React build it replaced, measured the
// same way for that build (commit df517bd): entry 88 KB + chat page 76 KB = 164 KB. Goal: 100 KB
// or less.
import { readdirSync, readFileSync } from "node:fs";
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

/** The JS files of `keys` and everything they import statically, in visiting order. */
function closure(keys) {
  const seen = new Set();
  const files = [];
  const visit = (key) => {
    if (seen.has(key)) return;
    seen.add(key);
    const chunk = manifest[key];
    if (chunk === undefined) return;
    if (chunk.file.endsWith(".js")) files.push(chunk.file);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  for (const key of keys) visit(key);
  return files;
}

const gzipped = new Map();
function gz(file) {
  let size = gzipped.get(file);
  if (size === undefined) {
    size = gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
    gzipped.set(file, size);
  }
  return size;
}

const files = closure(entries.map(([key]) => key));
let total = 0;
for (const file of files) {
  const size = gz(file);
  total += size;
  console.log(`  ${(size / 1024).toFixed(1).padStart(7)} KB  ${file}`);
}
// The app is Solid: fail when any built chunk carries React's runtime (markers of react and
// react-dom builds; grammar names such as shiki's "typescriptreact" do not match).
const REACT_MARKERS = ["__reactFiber", "react.transitional.element", "react-dom", "__SECRET_INTERNALS", "ReactCurrentOwner"];
for (const file of readdirSync(join(dist, "assets")).filter((f) => f.endsWith(".js"))) {
  const text = readFileSync(join(dist, "assets", file), "utf8");
  const hit = REACT_MARKERS.find((m) => text.includes(m));
  if (hit !== undefined) {
    console.error(`check-bundle-size: assets/${file} contains React ("${hit}"): the web app must not ship React`);
    process.exit(1);
  }
}
console.log("no React in the bundle");

const kb = total / 1024;
console.log(`initial JS (gzip): ${kb.toFixed(1)} KB of ${budgetKb} KB budget, ${files.length} file(s)`);

const chatKey = Object.keys(manifest).find((key) => key.endsWith("features/chat/ChatPage.tsx"));
if (chatKey !== undefined) {
  const chatFiles = closure([...entries.map(([key]) => key), chatKey]);
  const chatKb = chatFiles.reduce((sum, file) => sum + gz(file), 0) / 1024;
  const pageKb = chatKb - kb;
  console.log(`chat page first load (gzip): ${chatKb.toFixed(1)} KB = initial ${kb.toFixed(1)} KB + chat page ${pageKb.toFixed(1)} KB (React build before: 164 KB = 88 + 76; goal <= 100 KB)`);
}
if (kb > budgetKb) {
  console.error(`check-bundle-size: over budget by ${(kb - budgetKb).toFixed(1)} KB`);
  process.exit(1);
}
