/**
 * Syntax highlighting with shiki, loaded piece by piece: the core and the JavaScript regex
 * engine (no WASM) on the first code block, then each grammar the first time a block in
 * that language appears. Every piece is a dynamic import, so none of it counts toward the
 * initial JS budget, and a page without code never downloads shiki at all.
 *
 * Output is dual-themed HTML (github-light inline, github-dark via CSS variables; see
 * styles.css), produced by shiki from the code text alone, so it is safe to inject.
 * Unknown languages answer `undefined` and the block stays plain text.
 */
import type { HighlighterCore, LanguageInput } from "shiki/core";

type Loader = () => Promise<{ default: LanguageInput }>;

const LANGS: Record<string, Loader> = {
  typescript: () => import("shiki/langs/typescript.mjs"),
  tsx: () => import("shiki/langs/tsx.mjs"),
  javascript: () => import("shiki/langs/javascript.mjs"),
  jsx: () => import("shiki/langs/jsx.mjs"),
  json: () => import("shiki/langs/json.mjs"),
  bash: () => import("shiki/langs/bash.mjs"),
  python: () => import("shiki/langs/python.mjs"),
  yaml: () => import("shiki/langs/yaml.mjs"),
  toml: () => import("shiki/langs/toml.mjs"),
  markdown: () => import("shiki/langs/markdown.mjs"),
  html: () => import("shiki/langs/html.mjs"),
  css: () => import("shiki/langs/css.mjs"),
  go: () => import("shiki/langs/go.mjs"),
  rust: () => import("shiki/langs/rust.mjs"),
  java: () => import("shiki/langs/java.mjs"),
  c: () => import("shiki/langs/c.mjs"),
  cpp: () => import("shiki/langs/cpp.mjs"),
  sql: () => import("shiki/langs/sql.mjs"),
  diff: () => import("shiki/langs/diff.mjs"),
  dockerfile: () => import("shiki/langs/dockerfile.mjs"),
};

const ALIASES: Record<string, string> = {
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  sh: "bash",
  shell: "bash",
  zsh: "bash",
  console: "bash",
  py: "python",
  yml: "yaml",
  md: "markdown",
  htm: "html",
  golang: "go",
  rs: "rust",
  "c++": "cpp",
  h: "c",
  patch: "diff",
  docker: "dockerfile",
  jsonl: "json",
};

export function languageOf(lang: string | undefined): string | undefined {
  if (lang === undefined) return undefined;
  const l = lang.toLowerCase();
  const name = ALIASES[l] ?? l;
  return name in LANGS ? name : undefined;
}

let core: Promise<HighlighterCore> | undefined;
const loaded = new Map<string, Promise<void>>();

async function highlighter(): Promise<HighlighterCore> {
  core ??= (async () => {
    const [{ createHighlighterCore }, { createJavaScriptRegexEngine }, light, dark] = await Promise.all([
      import("shiki/core"),
      import("shiki/engine/javascript"),
      import("shiki/themes/github-light.mjs"),
      import("shiki/themes/github-dark.mjs"),
    ]);
    return createHighlighterCore({ themes: [light.default, dark.default], langs: [], engine: createJavaScriptRegexEngine() });
  })();
  return core;
}

/** Recent results, so a block re-mounted while its message streams shows highlighted at once. */
const recent = new Map<string, string>();
const RECENT_LIMIT = 200;

/** The HTML `highlight` produced for this code before, if it is still remembered. */
export function highlightedBefore(code: string, lang: string): string | undefined {
  return recent.get(`${lang}\u0000${code}`);
}

function remember(code: string, lang: string, html: string): void {
  recent.set(`${lang}\u0000${code}`, html);
  if (recent.size > RECENT_LIMIT) {
    const oldest = recent.keys().next();
    if (oldest.done !== true) recent.delete(oldest.value);
  }
}

/** Highlighted HTML for `code`, or undefined when the language is unknown or loading failed. */
export async function highlight(code: string, lang: string | undefined): Promise<string | undefined> {
  const name = languageOf(lang);
  if (name === undefined) return undefined;
  const loader = LANGS[name];
  if (loader === undefined) return undefined;
  try {
    const h = await highlighter();
    let ready = loaded.get(name);
    if (ready === undefined) {
      ready = loader().then((m) => h.loadLanguage(m.default));
      loaded.set(name, ready);
    }
    await ready;
    const html = h.codeToHtml(code, { lang: name, themes: { light: "github-light", dark: "github-dark" }, defaultColor: "light" });
    remember(code, name, html);
    return html;
  } catch {
    return undefined;
  }
}
