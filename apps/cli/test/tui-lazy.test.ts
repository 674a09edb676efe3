// The chat's terminal UI costs nothing to the commands that do not show it: observed with V8's
// precise coverage (NODE_V8_COVERAGE lists every script a process loaded, with call counts),
// `penguin --help`, a one-turn `penguin run` and a piped `penguin chat` never load pi-tui's
// vendor file and never evaluate the UI's module (apps/cli/dist/tui/tui-chat.js), while a
// chat on a terminal (chat-tui.test.ts) does.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { runCli } from "./helpers/run-cli.js";
import { spawnScreen } from "./helpers/screen-pty.js";
import { startWorld, type World } from "./helpers/world.js";

const TUI_MODULE = "apps/cli/dist/tui/tui-chat.js";
const COMMANDS_CHAT = "apps/cli/dist/commands/chat.js";

interface CoverageFile {
  result: { url: string; functions: { functionName: string; ranges: { count: number }[] }[] }[];
}

let world: World | undefined;
const temps: string[] = [];
beforeAll(ensureBuilt, 300_000);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function coverageDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "penguin-tui-lazy-"));
  temps.push(dir);
  return dir;
}

/** The scripts the child loaded, and how often each named initializer of cli-script.js ran. */
async function observe(args: string[], input?: string): Promise<{ code: number | null; urls: string[]; count: (name: string) => number }> {
  const dir = coverageDir();
  const r = await runCli(args, { env: { ...world!.env, NODE_V8_COVERAGE: dir }, cwd: world!.workspace, ...(input === undefined ? {} : { input }) });
  return { code: r.code, ...loaded(dir) };
}

function loaded(dir: string): { urls: string[]; count: (name: string) => number } {
  const scripts = readdirSync(dir).flatMap((f) => (JSON.parse(readFileSync(join(dir, f), "utf8")) as CoverageFile).result);
  const count = (name: string): number =>
    scripts
      .filter((s) => s.url.endsWith("cli-script.js"))
      .flatMap((s) => s.functions)
      .filter((fn) => fn.functionName.endsWith(name))
      .reduce((n, fn) => n + (fn.ranges[0]?.count ?? 0), 0);
  return { urls: scripts.map((s) => s.url), count };
}

describe("the terminal UI is loaded only by a chat on a terminal", { timeout: 60_000 }, () => {
  it("--help, a one-turn run and a piped chat load neither pi-tui nor the UI's module", async () => {
    world = await startWorld({ script: [{ text: "an answer" }, { text: "a chat answer" }] });
    const help = await observe(["--help"]);
    const run = await observe(["run", "-m", "say something"]);
    const piped = await observe(["chat"], "hello\n/exit\n");
    for (const [name, r] of Object.entries({ help, run, piped })) {
      expect(r.code, name).toBe(0);
      expect(r.urls.filter((u) => u.includes("pi-tui")), name).toEqual([]);
      expect(r.count(TUI_MODULE), name).toBe(0);
    }
    // The observation is of the right script: the piped chat ran the chat command.
    expect(piped.count(COMMANDS_CHAT)).toBe(1);
  });

  it("a chat on a terminal does load both (the same observation sees them)", async () => {
    world = await startWorld();
    const dir = coverageDir();
    const cli = spawnScreen(["chat", "--workspace", world.workspace], { ...world.env, NODE_V8_COVERAGE: dir });
    await cli.waitFor("● ready");
    cli.write("/exit\r");
    expect((await cli.exit).exitCode).toBe(0);
    const tty = loaded(dir);
    expect(tty.count(TUI_MODULE)).toBe(1);
    expect(tty.urls.filter((u) => u.includes("pi-tui")).length).toBeGreaterThan(0);
  });
});
