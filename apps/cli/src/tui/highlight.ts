/**
 * A small syntax highlighter for code blocks in answers: comments, strings, numbers and the
 * keywords of the languages an agent shows most (JS/TS, Python, shell, Go, Rust, JSON). One
 * regular-expression pass per line, no grammar: enough to read code at a glance, at a cost of
 * nothing at start-up (a full highlighter is several hundred kB of grammars).
 */
import type { Colors } from "../io/colors.js";

const KEYWORDS = new Set(
  (
    "async await break case catch class const continue def default do elif else enum export extends false fi for from " +
    "func function go if impl import in interface let loop match mut new nil None null of pub return self static struct " +
    "super switch then this throw true True False try type typeof undefined use var while with yield package fn echo"
  ).split(" "),
);

const TOKEN = /(\/\/.*$|#(?!!).*$|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`|\b\d+(?:\.\d+)?\b|\b[A-Za-z_][A-Za-z0-9_]*\b)/g;

function hashComments(lang: string | undefined): boolean {
  return lang === undefined || /^(py|python|sh|bash|shell|zsh|yaml|yml|toml|rb|ruby)$/.test(lang);
}

export function highlightCode(code: string, lang: string | undefined, c: Colors): string[] {
  const hash = hashComments(lang?.toLowerCase());
  return code.split("\n").map((line) =>
    line.replace(TOKEN, (token) => {
      if (token.startsWith("//") && !hash) return c.dim(token);
      if (token.startsWith("#")) return hash ? c.dim(token) : token;
      if (token.startsWith("//")) return token;
      if (/^["'`]/.test(token)) return c.green(token);
      if (/^\d/.test(token)) return c.yellow(token);
      return KEYWORDS.has(token) ? c.magenta(token) : token;
    }),
  );
}
