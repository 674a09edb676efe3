// Initial-JS budget check and the chat page's first-load figure, run after `vite build`
// (npm run build).
//
// "Initial JS" is what a first visit must download before anything renders: the entry chunk
// of index.html and every chunk it imports statically, transitively (dynamic imports such
// as pages and shiki grammars are excluded: they load on demand). The sizes are gzip level 9
// of the files in dist/, found through Vite's manifest. Prints the list and the total; exits
// 1 when the total is over the budget (300 KB, or WEB_JS_BUDGET_KB).
//
// "Chat page first load" is what opening /chat downloads before it can draw a session: the
// initial JS plus the chat page's lazy chunk and its static imports, which include the
// envelope decoder that history and SSE go through (shiki grammars, the charts and other
// pages are dynamic imports, fetched when first needed, so they are not in it; CSS is not
// counted). Printed beside the React build it replaced, measured the same way for that build
// (commit df517bd): entry 88 KB + chat page 76 KB = 164 KB. Exits 1 above 100 KB (the goal;
// WEB_CHAT_JS_BUDGET_KB overrides it) or when any of those files carries effect's runtime:
// the browser decodes with @penguin/omnimessage/browser, and effect/Schema alone would add
// about 55 KB.
import { readdirSync, readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const budgetKb = Number(process.env.WEB_JS_BUDGET_KB ?? 300);
const chatBudgetKb = Number(process.env.WEB_CHAT_JS_BUDGET_KB ?? 100);
// A string every build of effect carries (its global-value registry key), minified or not.
const EFFECT_MARKER = "effect/GlobalValue";

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

let failed = false;
const chatKey = Object.keys(manifest).find((key) => key.endsWith("features/chat/ChatPage.tsx"));
if (chatKey === undefined) {
  console.error("check-bundle-size: the manifest has no chunk for features/chat/ChatPage.tsx, so the chat page's first load cannot be measured");
  failed = true;
} else {
  const chatFiles = closure([...entries.map(([key]) => key), chatKey]);
  const chatKb = chatFiles.reduce((sum, file) => sum + gz(file), 0) / 1024;
  const pageKb = chatKb - kb;
  console.log(`chat page first load (gzip): ${chatKb.toFixed(1)} KB = initial ${kb.toFixed(1)} KB + chat page ${pageKb.toFixed(1)} KB, ${chatFiles.length} file(s) (React build before: 164 KB = 88 + 76; goal <= ${chatBudgetKb} KB)`);
  for (const file of chatFiles) {
    if (readFileSync(join(dist, file), "utf8").includes(EFFECT_MARKER)) {
      console.error(`check-bundle-size: ${file}, part of the chat page's first load, carries effect's runtime; the web app decodes with @penguin/omnimessage/browser (see vite.config.ts), so find the import that brings effect in`);
      failed = true;
    }
  }
  if (chatKb > chatBudgetKb) {
    console.error(`check-bundle-size: the chat page's first load is over its ${chatBudgetKb} KB goal by ${(chatKb - chatBudgetKb).toFixed(1)} KB`);
    failed = true;
  }
}
if (kb > budgetKb) {
  console.error(`check-bundle-size: over budget by ${(kb - budgetKb).toFixed(1)} KB`);
  failed = true;
}
if (failed) process.exit(1);
