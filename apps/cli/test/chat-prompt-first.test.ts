// `penguin chat` on a terminal draws its first frame from the bundle's small chat-prompt.js,
// before the CLI script and its code cache are read (src/launch/chat-prompt.ts); the chat in
// the CLI script claims that prompt instead of drawing its own (tui/early-prompt.ts). Observed
// with V8's coverage: the prompt is drawn once, by chat-prompt.js, and the chat goes on with
// it. A command line the CLI refuses after the prompt is drawn takes the prompt down before its
// error is printed: the error stands on its own line below the frame, the terminal's modes
// restored (bracketed paste off, cursor shown), exit 2 as before.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { spawnScreen } from "./helpers/screen-pty.js";
import { startWorld, type World } from "./helpers/world.js";

interface CoverageFile {
  result: { url: string; functions: { functionName: string; ranges: { count: number }[] }[] }[];
}

const PROMPT = "◌ opening the session";
const BRACKETED_PASTE_OFF = "\u001b[?2004l";
const CURSOR_SHOWN = "\u001b[?25h";

let world: World | undefined;
const temps: string[] = [];
beforeAll(ensureBuilt, 300_000);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

/** Calls of `name` per loaded script whose URL ends with one of `files`. */
function callsIn(dir: string, name: string, files: string[]): Record<string, number> {
  const scripts = readdirSync(dir).flatMap((f) => (JSON.parse(readFileSync(join(dir, f), "utf8")) as CoverageFile).result);
  const calls: Record<string, number> = Object.fromEntries(files.map((f) => [f, 0]));
  for (const s of scripts) {
    const file = files.find((f) => s.url.endsWith(f));
    if (file === undefined) continue;
    for (const fn of s.functions) if (fn.functionName === name) calls[file]! += fn.ranges[0]?.count ?? 0;
  }
  return calls;
}

describe("the chat's prompt is drawn before the CLI script loads", { timeout: 60_000 }, () => {
  it("chat-prompt.js draws it once and the chat claims it: a line typed early is answered", async () => {
    world = await startWorld({ script: [{ text: "an early answer" }] });
    const coverage = mkdtempSync(join(tmpdir(), "penguin-prompt-first-"));
    temps.push(coverage);
    const cli = spawnScreen(["chat", "--workspace", world.workspace], { ...world.env, NODE_V8_COVERAGE: coverage });
    await cli.waitFor(PROMPT);
    cli.write("typed at once\r");
    await cli.waitFor("an early answer");
    cli.write("/exit\r");
    expect((await cli.exit).exitCode).toBe(0);
    expect(callsIn(coverage, "drawEarlyPrompt", ["/chat-prompt.js", "/cli-script.js"])).toEqual({ "/chat-prompt.js": 1, "/cli-script.js": 0 });
    expect(callsIn(coverage, "claimEarlyPrompt", ["/cli-script.js"])).toEqual({ "/cli-script.js": 1 });
  });

  it("a refused command line takes the drawn prompt down before its error, which stands below it", async () => {
    world = await startWorld();
    const cli = spawnScreen(["chat", "--workspace", world.workspace, "--mesage", "hi"], world.env);
    expect((await cli.exit).exitCode).toBe(2);
    const raw = cli.raw();
    const error = raw.indexOf("error: unknown option '--mesage'");
    expect(raw.indexOf(PROMPT), "the prompt was drawn first").toBeGreaterThanOrEqual(0);
    expect(error, raw).toBeGreaterThan(raw.indexOf(PROMPT));
    expect(raw.lastIndexOf(BRACKETED_PASTE_OFF, error), "bracketed paste off before the error").toBeGreaterThan(raw.indexOf(PROMPT));
    expect(raw.lastIndexOf(CURSOR_SHOWN, error), "cursor shown before the error").toBeGreaterThan(raw.indexOf(PROMPT));
    // On a line of its own, below the frame's last rule.
    const rows = cli.all().split("\n");
    const errorRow = rows.findIndex((r) => r.startsWith("error: unknown option '--mesage'"));
    expect(errorRow, cli.all()).toBeGreaterThan(rows.findLastIndex((r) => r.startsWith("────")));
  });
});
