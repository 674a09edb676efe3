// pi-tui's emoji regex is built on its first use, not when the chat loads pi-tui (the build's
// lazy-emoji-regex.mjs plugin; building it costs ~12 ms before the first frame otherwise).
// Observed with V8's coverage of the vendor file: a chat reaches "● ready" without calling the
// getter that builds it, and an emoji typed into the editor calls it and is drawn as before.
// The rewrite itself is checked on pi-tui's real module: it keeps the same widths, and a
// module whose text changed (a pi-tui upgrade) fails the build, naming what it looked for.
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
const PLUGIN = pathToFileURL(join(CLI_DIR, "scripts", "lazy-emoji-regex.mjs")).href;
const PI_TUI_UTILS = join(dirname(createRequire(join(CLI_DIR, "package.json")).resolve("@mariozechner/pi-tui")), "utils.js");

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

/** Calls of the emoji getter in pi-tui's vendor file, from every coverage file so far; undefined when the file has no such function. */
function getterCalls(dir: string): number | undefined {
  const scripts = readdirSync(dir).flatMap((f) => (JSON.parse(readFileSync(join(dir, f), "utf8")) as CoverageFile).result);
  const getters = scripts.filter((s) => s.url.includes("pi-tui")).flatMap((s) => s.functions).filter((fn) => fn.functionName === "rgiEmojiRegex");
  if (getters.length === 0) return undefined;
  return getters.reduce((n, fn) => n + (fn.ranges[0]?.count ?? 0), 0);
}

describe("pi-tui's emoji regex is built on first use", { timeout: 60_000 }, () => {
  it("a chat is ready without building it, and an emoji typed builds it and is drawn", async () => {
    world = await startWorld();
    const idle = tempDir("penguin-emoji-idle-");
    const first = spawnScreen(["chat", "--workspace", world.workspace], { ...world.env, NODE_V8_COVERAGE: idle });
    await first.waitFor("● ready");
    first.write("/exit\r");
    expect((await first.exit).exitCode).toBe(0);
    expect(getterCalls(idle)).toBe(0);

    const typed = tempDir("penguin-emoji-typed-");
    const second = spawnScreen(["chat", "--workspace", world.workspace], { ...world.env, NODE_V8_COVERAGE: typed });
    await second.waitFor("● ready");
    second.write("thumbs 👍 up");
    await second.waitFor("thumbs 👍 up", "the emoji in the editor");
    second.write("\u0015/exit\r");
    expect((await second.exit).exitCode).toBe(0);
    expect(getterCalls(typed)).toBeGreaterThan(0);
  });

  it("the rewritten module measures like the original, and a changed module fails the build by name", async () => {
    const { lazyEmojiSource } = (await import(PLUGIN)) as { lazyEmojiSource: (text: string, file: string) => string };
    const original = readFileSync(PI_TUI_UTILS, "utf8");
    const rewritten = lazyEmojiSource(original, PI_TUI_UTILS);
    expect(rewritten).not.toContain("const rgiEmojiRegex = /");
    // A copy in a temp folder, its one bare import pointed at the file pi-tui resolves it to.
    const eastAsianWidth = createRequire(PI_TUI_UTILS).resolve("get-east-asian-width");
    const bareImport = 'from "get-east-asian-width";';
    expect(rewritten).toContain(bareImport);
    const copy = join(tempDir("penguin-emoji-module-"), "utils.mjs");
    // (its source-map comment dropped: the map is not beside the copy)
    const copied = rewritten.replace(bareImport, `from ${JSON.stringify(pathToFileURL(eastAsianWidth).href)};`).replace(/^\/\/# sourceMappingURL=.*$/m, "");
    writeFileSync(copy, copied);
    const lazy = (await import(pathToFileURL(copy).href)) as { visibleWidth(s: string): number };
    const eager = (await import(pathToFileURL(PI_TUI_UTILS).href)) as { visibleWidth(s: string): number };
    for (const sample of ["plain", "👍", "👨‍👩‍👧", "🇫🇷", "❤️", "☺", "é", "漢字", "◌ ● ─"]) {
      expect(lazy.visibleWidth(sample), sample).toBe(eager.visibleWidth(sample));
    }
    const changed = original.replace("rgiEmojiRegex.test(segment)", "rgiEmojiRegex.exec(segment) !== null");
    expect(() => lazyEmojiSource(changed, "pi-tui/dist/utils.js")).toThrow(/pi-tui\/dist\/utils\.js: expected one .*update apps\/cli\/scripts\/lazy-emoji-regex\.mjs/);
  });
});
