#!/usr/bin/env node
/**
 * apps/cli/bundle/main.js, the file `./penguin` and the tests run: it only picks how the
 * bundled CLI is loaded (the build, apps/cli/scripts/cli-build.mjs, lays the files out beside
 * it), and imports nothing itself, so the help path pays for nothing it does not use.
 *
 * - Help and version (no arguments, or -h/--help/-v/-V/--version anywhere, the launcher's
 *   rule too) load `esm/main.js`, the code-split ES module build: only commander and the
 *   command tree load, which is the cheapest way to print help.
 * - Every other command loads `cached-main.js` (cached-main.ts), which runs the whole CLI as
 *   one script compiled with a V8 code cache.
 * - `penguin chat` on a terminal first draws its prompt with `chat-prompt.js` (chat-prompt.ts),
 *   a small module, so the editor takes keys before the CLI script and its cache are read.
 *
 * The specifiers are variables so that neither TypeScript nor esbuild follows them: they
 * name files of the bundle folder, resolved from this file at run time.
 */
const HELP_FLAGS = new Set(["-h", "--help", "-v", "-V", "--version"]);
const args = process.argv.slice(2);
const help = args.length === 0 || args.some((a) => HELP_FLAGS.has(a));
// `penguin chat` where it shows its terminal UI (the rule of commands/chat.ts): the prompt is
// drawn first by chat-prompt.js, then the CLI script loads behind it and claims it.
const chatScreen = args[0] === "chat" && !help && process.stdin.isTTY === true && process.stdout.isTTY === true && process.env.TERM !== "dumb";
const chatPrompt = "./chat-prompt.js";
if (chatScreen) await import(chatPrompt);
const entry = help ? "./esm/main.js" : "./cached-main.js";
await import(entry);
