// An esbuild plugin for the vendor build of @mariozechner/pi-tui: its utils module builds
// `/^\p{RGI_Emoji}$/v` when it is evaluated, which costs V8 about 12 ms (the set of every
// emoji sequence is expanded into one automaton) on every `penguin chat` before the first
// frame, although the regex is only consulted for a grapheme that may be an emoji. The build
// rewrites that one constant into a getter that builds the same regex on its first use, so the
// prompt is drawn without it and a screen with an emoji pays it once, as before.
//
// The module is matched by its exact text: if a pi-tui upgrade changes the line or its one use,
// the build fails here (naming what it looked for) instead of silently keeping the eager regex.
import { readFileSync } from "node:fs";
import { dirname } from "node:path";

const UTILS_FILE = /[\\/]@mariozechner[\\/]pi-tui[\\/]dist[\\/]utils\.js$/;
const DECLARATION = "const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;";
const USE = "rgiEmojiRegex.test(segment)";
const LAZY_DECLARATION = "let rgiEmojiRegexBuilt;\nconst rgiEmojiRegex = () => (rgiEmojiRegexBuilt ??= /^\\p{RGI_Emoji}$/v);";
const LAZY_USE = "rgiEmojiRegex().test(segment)";

function countOf(text, part) {
  return text.split(part).length - 1;
}

/** The pi-tui utils module with its emoji regex built on first use; throws when the text is not the expected one. */
export function lazyEmojiSource(text, file) {
  const declarations = countOf(text, DECLARATION);
  // References in code, not in comments: a declaration and one use.
  const code = text.split("\n").filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line)).join("\n");
  const uses = countOf(code, "rgiEmojiRegex") - declarations;
  if (declarations !== 1 || uses !== 1 || countOf(text, USE) !== 1) {
    throw new Error(
      `${file}: expected one \`${DECLARATION}\` used once as \`${USE}\` (found ${declarations} and ${uses} uses); ` +
        "pi-tui changed: update apps/cli/scripts/lazy-emoji-regex.mjs",
    );
  }
  return text.replace(DECLARATION, LAZY_DECLARATION).replace(USE, LAZY_USE);
}

export const lazyEmojiRegex = {
  name: "lazy-emoji-regex",
  setup(build) {
    let seen = false;
    build.onStart(() => {
      seen = false;
    });
    build.onLoad({ filter: UTILS_FILE }, (args) => {
      seen = true;
      return { contents: lazyEmojiSource(readFileSync(args.path, "utf8"), args.path), loader: "js", resolveDir: dirname(args.path) };
    });
    build.onEnd((result) => {
      if (result.errors.length === 0 && !seen) {
        result.errors.push({ text: "lazy-emoji-regex: @mariozechner/pi-tui/dist/utils.js was not part of the build; update apps/cli/scripts/lazy-emoji-regex.mjs" });
      }
    });
  },
};
