// pi-tui's emoji regex and its markdown parser (marked) are made on first use, not when the
// chat loads pi-tui (the build's pi-tui-lazy-start.mjs plugin; together ~17 ms before the first
// frame otherwise). Observed with V8's coverage of the vendor file: a chat reaches "● ready"
// without calling either getter; an emoji typed into the editor calls the first, an answer
// laid out as markdown the second, and both are drawn. The rewrites themselves are checked on
// pi-tui's real modules: the same widths, the same rendered markdown, and a module whose text
// changed (a pi-tui upgrade) fails the build, naming what it looked for.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { spawnScreen } from "./helpers/screen-pty.js";
import { startWorld, type World } from "./helpers/world.js";

interface CoverageFile {
  result: { url: string; functions: { functionName: string; ranges: { count: number }[] }[] }[];
}

const CLI_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
const PLUGIN = pathToFileURL(join(CLI_DIR, "scripts", "pi-tui-lazy-start.mjs")).href;
const PI_TUI_DIST = dirname(createRequire(join(CLI_DIR, "package.json")).resolve("@mariozechner/pi-tui"));
const PI_TUI_UTILS = join(PI_TUI_DIST, "utils.js");
const PI_TUI_MARKDOWN = join(PI_TUI_DIST, "components", "markdown.js");

let world: World | undefined;
const temps: string[] = [];
beforeAll(ensureBuilt, 300_000);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

/** Calls of `getter` in pi-tui's vendor file, from every coverage file; undefined when the file has no such function. */
function getterCalls(dir: string, getter: string): number | undefined {
  const scripts = readdirSync(dir).flatMap((f) => (JSON.parse(readFileSync(join(dir, f), "utf8")) as CoverageFile).result);
  const getters = scripts.filter((s) => s.url.includes("pi-tui")).flatMap((s) => s.functions).filter((fn) => fn.functionName === getter);
  if (getters.length === 0) return undefined;
  return getters.reduce((n, fn) => n + (fn.ranges[0]?.count ?? 0), 0);
}

/** A rewritten pi-tui module as a temp file whose relative and bare imports point at what the original's resolve to. */
function importableCopy(text: string, original: string): string {
  const from = createRequire(original);
  const copied = text
    .replace(/from "([a-z][^"]*)";/g, (_m, bare: string) => `from ${JSON.stringify(pathToFileURL(from.resolve(bare)).href)};`)
    .replace(/from "(\.{1,2}\/[^"]+)";/g, (_m, rel: string) => `from ${JSON.stringify(pathToFileURL(join(dirname(original), rel)).href)};`)
    // (its source-map comment dropped: the map is not beside the copy)
    .replace(/^\/\/# sourceMappingURL=.*$/m, "");
  const copy = join(tempDir("penguin-pi-tui-module-"), "module.mjs");
  // A bare require (the markdown getter's) resolves from the original's folder, as in the bundle.
  writeFileSync(copy, `import { createRequire as __copyRequire } from "node:module"; const require = __copyRequire(${JSON.stringify(original)});\n${copied}`);
  return pathToFileURL(copy).href;
}

describe("pi-tui's emoji regex and markdown parser are made on first use", { timeout: 60_000 }, () => {
  it("a chat is ready without either; an emoji typed and a markdown answer make them, and are drawn", async () => {
    world = await startWorld({ script: [{ text: "a **bold** answer" }] });
    const idle = tempDir("penguin-lazy-idle-");
    const first = spawnScreen(["chat", "--workspace", world.workspace], { ...world.env, NODE_V8_COVERAGE: idle });
    await first.waitFor("● ready");
    first.write("/exit\r");
    expect((await first.exit).exitCode).toBe(0);
    expect(getterCalls(idle, "rgiEmojiRegex")).toBe(0);
    expect(getterCalls(idle, "markdownParser")).toBe(0);

    const used = tempDir("penguin-lazy-used-");
    const second = spawnScreen(["chat", "--workspace", world.workspace], { ...world.env, NODE_V8_COVERAGE: used });
    await second.waitFor("● ready");
    second.write("thumbs 👍 up");
    await second.waitFor("thumbs 👍 up", "the emoji in the editor");
    second.write("\r");
    await second.waitFor("a bold answer", "the answer laid out as markdown");
    second.write("/exit\r");
    expect((await second.exit).exitCode).toBe(0);
    expect(getterCalls(used, "rgiEmojiRegex")).toBeGreaterThan(0);
    expect(getterCalls(used, "markdownParser")).toBeGreaterThan(0);
  });

  it("the rewritten utils module measures like the original, and a changed one fails the build by name", async () => {
    const { lazyEmojiSource } = (await import(PLUGIN)) as { lazyEmojiSource: (text: string, file: string) => string };
    const original = readFileSync(PI_TUI_UTILS, "utf8");
    const rewritten = lazyEmojiSource(original, PI_TUI_UTILS);
    expect(rewritten).not.toContain("const rgiEmojiRegex = /");
    const lazy = (await import(importableCopy(rewritten, PI_TUI_UTILS))) as { visibleWidth(s: string): number };
    const eager = (await import(pathToFileURL(PI_TUI_UTILS).href)) as { visibleWidth(s: string): number };
    for (const sample of ["plain", "👍", "👨‍👩‍👧", "🇫🇷", "❤️", "☺", "é", "漢字", "◌ ● ─"]) {
      expect(lazy.visibleWidth(sample), sample).toBe(eager.visibleWidth(sample));
    }
    const changed = original.replace("rgiEmojiRegex.test(segment)", "rgiEmojiRegex.exec(segment) !== null");
    expect(() => lazyEmojiSource(changed, "pi-tui/dist/utils.js")).toThrow(/pi-tui\/dist\/utils\.js: expected one .*update apps\/cli\/scripts\/pi-tui-lazy-start\.mjs/);
  });

  it("the rewritten markdown module renders like the original, and a changed one fails the build by name", async () => {
    const { lazyMarkedSource } = (await import(PLUGIN)) as { lazyMarkedSource: (text: string, file: string) => string };
    const original = readFileSync(PI_TUI_MARKDOWN, "utf8");
    const rewritten = lazyMarkedSource(original, PI_TUI_MARKDOWN);
    expect(rewritten).not.toMatch(/^import .* from "marked";$/m);
    type MarkdownModule = { Markdown: new (text: string, px: number, py: number, theme: unknown) => { render(width: number): string[] } };
    const lazy = (await import(importableCopy(rewritten, PI_TUI_MARKDOWN))) as MarkdownModule;
    const eager = (await import(pathToFileURL(PI_TUI_MARKDOWN).href)) as MarkdownModule;
    const mark = (tag: string) => (s: string) => `<${tag}>${s}</${tag}>`;
    const theme = new Proxy({}, { get: (_t, key) => (key === "highlightCode" || key === "codeBlockIndent" ? undefined : mark(String(key))) });
    const text = "# Title\n\nsome **bold**, *italic*, ~~struck~~ and `code`\n\n- one\n- two\n\n```ts\nconst x = 1;\n```\n\n> quoted [a link](https://example.com)";
    const rendered = new lazy.Markdown(text, 1, 0, theme).render(60);
    expect(rendered).toEqual(new eager.Markdown(text, 1, 0, theme).render(60));
    // Laid out by marked, with the strict strikethrough tokenizer of the getter.
    expect(rendered.join("\n")).toContain("<bold>bold</bold>");
    expect(rendered.join("\n")).toContain("<strikethrough>struck</strikethrough>");
    const changed = original.replace("markdownParser.lexer(", "markdownParser.parse(");
    expect(() => lazyMarkedSource(changed, "pi-tui/dist/components/markdown.js")).toThrow(/markdown\.js: expected .*update apps\/cli\/scripts\/pi-tui-lazy-start\.mjs/);
  });
});
