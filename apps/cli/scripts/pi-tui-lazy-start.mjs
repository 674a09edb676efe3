// An esbuild plugin for the vendor build of @mariozechner/pi-tui: two of its modules build
// costly things when they are evaluated, which every `penguin chat` paid before its first frame
// although the prompt uses neither. The build rewrites each into a getter that builds the same
// thing on its first use:
// - dist/utils.js builds `/^\p{RGI_Emoji}$/v` (~12 ms: V8 expands every emoji sequence into one
//   automaton), consulted only for a grapheme that may be an emoji;
// - dist/components/markdown.js imports marked and makes its parser at import: marked's module
//   builds its grammar's regexes (~5 ms), needed only when a markdown text is first laid out.
//   The static import becomes a `require("marked")` in the getter, which esbuild bundles as the
//   same marked (pi-tui's own version) behind a lazy initializer.
//
// Each module is matched by its exact text: if a pi-tui upgrade changes it, the build fails here
// (naming what it looked for) instead of silently keeping the eager version.
import { readFileSync } from "node:fs";
import { dirname } from "node:path";

const EMOJI_DECLARATION = "const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;";
const EMOJI_USE = "rgiEmojiRegex.test(segment)";

const MARKED_IMPORT = 'import { Marked, Tokenizer } from "marked";\n';
const MARKED_CLASS_START = "class StrictStrikethroughTokenizer extends Tokenizer {";
const MARKED_PARSER = "const markdownParser = new Marked();\nmarkdownParser.setOptions({\n    tokenizer: new StrictStrikethroughTokenizer(),\n});\n";
const MARKED_USE = "markdownParser.lexer(";

function countOf(text, part) {
  return text.split(part).length - 1;
}

/** The text without comment lines, for counting references in code. */
function codeOf(text) {
  return text
    .split("\n")
    .filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line))
    .join("\n");
}

function changed(file, what) {
  return new Error(`${file}: expected ${what}; pi-tui changed: update apps/cli/scripts/pi-tui-lazy-start.mjs`);
}

/** pi-tui's utils module with its emoji regex built on first use; throws when the text is not the expected one. */
export function lazyEmojiSource(text, file) {
  const declarations = countOf(text, EMOJI_DECLARATION);
  const uses = countOf(codeOf(text), "rgiEmojiRegex") - declarations;
  if (declarations !== 1 || uses !== 1 || countOf(text, EMOJI_USE) !== 1) {
    throw changed(file, `one \`${EMOJI_DECLARATION}\` used once as \`${EMOJI_USE}\` (found ${declarations} and ${uses} uses)`);
  }
  return text
    .replace(EMOJI_DECLARATION, "let rgiEmojiRegexBuilt;\nconst rgiEmojiRegex = () => (rgiEmojiRegexBuilt ??= /^\\p{RGI_Emoji}$/v);")
    .replace(EMOJI_USE, "rgiEmojiRegex().test(segment)");
}

/** pi-tui's markdown module with marked loaded and its parser made on first use; throws when the text is not the expected one. */
export function lazyMarkedSource(text, file) {
  const classStart = text.indexOf(MARKED_CLASS_START);
  const parserStart = text.indexOf(MARKED_PARSER);
  const shapeHolds =
    text.startsWith(MARKED_IMPORT) &&
    countOf(text, MARKED_CLASS_START) === 1 &&
    countOf(text, MARKED_PARSER) === 1 &&
    classStart < parserStart &&
    text.slice(classStart, parserStart).endsWith("\n}\n") &&
    countOf(codeOf(text), "markdownParser") === 3 &&
    countOf(text, MARKED_USE) === 1 &&
    countOf(codeOf(text), "StrictStrikethroughTokenizer") === 2;
  if (!shapeHolds) throw changed(file, `\`${MARKED_IMPORT.trim()}\`, then \`${MARKED_CLASS_START} … }\`, then \`${MARKED_PARSER.split("\n")[0]} …\` used once as \`${MARKED_USE}\``);
  const tokenizerClass = text.slice(classStart, parserStart);
  const getter = [
    "let markdownParserBuilt;",
    "function markdownParser() {",
    "    if (markdownParserBuilt !== undefined) return markdownParserBuilt;",
    '    const { Marked, Tokenizer } = require("marked");',
    tokenizerClass.trimEnd(),
    "    markdownParserBuilt = new Marked();",
    "    markdownParserBuilt.setOptions({ tokenizer: new StrictStrikethroughTokenizer() });",
    "    return markdownParserBuilt;",
    "}",
    "",
  ].join("\n");
  return (text.slice(MARKED_IMPORT.length, classStart) + getter + text.slice(parserStart + MARKED_PARSER.length)).replace(MARKED_USE, "markdownParser().lexer(");
}

const REWRITES = [
  { file: /[\\/]@mariozechner[\\/]pi-tui[\\/]dist[\\/]utils\.js$/, name: "dist/utils.js", rewrite: lazyEmojiSource },
  { file: /[\\/]@mariozechner[\\/]pi-tui[\\/]dist[\\/]components[\\/]markdown\.js$/, name: "dist/components/markdown.js", rewrite: lazyMarkedSource },
];

export const piTuiLazyStart = {
  name: "pi-tui-lazy-start",
  setup(build) {
    const seen = new Set();
    build.onStart(() => seen.clear());
    for (const { file, name, rewrite } of REWRITES) {
      build.onLoad({ filter: file }, (args) => {
        seen.add(name);
        return { contents: rewrite(readFileSync(args.path, "utf8"), args.path), loader: "js", resolveDir: dirname(args.path) };
      });
    }
    build.onEnd((result) => {
      if (result.errors.length > 0) return;
      for (const { name } of REWRITES) {
        if (!seen.has(name)) result.errors.push({ text: `pi-tui-lazy-start: @mariozechner/pi-tui/${name} was not part of the build; update apps/cli/scripts/pi-tui-lazy-start.mjs` });
      }
    });
  },
};
