/**
 * A small, lenient shell scanner for the command policy: enough of bash's lexical rules to
 * see which programs a command line runs, never enough to run it.
 *
 * It splits a script into words, separators (`;`, `&&`, `||`, `|`, `|&`, `&`, newline,
 * `(`, `)`) and redirection operators (`>`, `2>`, `&>`, `>>`, `<`, …). Quotes are removed
 * from words (a word remembers that it was quoted); backslash escapes are resolved; comments
 * are dropped. The bodies of command substitutions (`$( )`, backticks) and process
 * substitutions (`<( )`, `>( )`) are returned as separate scripts, because they run too, and
 * the word that held them keeps a `$(…)` placeholder.
 *
 * It never throws: unterminated quotes or parentheses take the rest of the input. Being
 * lenient errs on the side of screening more text, which is what a safety screen wants.
 */

export type ShellToken =
  | { kind: "word"; text: string; quoted: boolean }
  | { kind: "separator"; text: string }
  | { kind: "redirect"; text: string };

export interface ScannedScript {
  tokens: ShellToken[];
  /** Bodies of `$( )`, backticks, `<( )` and `>( )`, in order of appearance. */
  substitutions: string[];
}

const BLANK = new Set([" ", "\t", "\r"]);
const OPERATOR_START = new Set([";", "&", "|", "(", ")", "<", ">", "\n"]);
const SUBSTITUTION_PLACEHOLDER = "$(…)";

/** Index just past the `)` that closes a `(` whose body starts at `from`, honouring quotes. */
function matchParen(src: string, from: number): number {
  let depth = 1;
  let i = from;
  while (i < src.length) {
    const c = src[i];
    if (c === "\\") {
      i += 2;
      continue;
    }
    if (c === "'") {
      const end = src.indexOf("'", i + 1);
      i = end === -1 ? src.length : end + 1;
      continue;
    }
    if (c === '"') {
      i = skipDoubleQuoted(src, i + 1);
      continue;
    }
    if (c === "(") depth += 1;
    if (c === ")") {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
    i += 1;
  }
  return src.length;
}

/** Index just past the closing `"` of a double-quoted string whose body starts at `from`. */
function skipDoubleQuoted(src: string, from: number): number {
  let i = from;
  while (i < src.length) {
    const c = src[i];
    if (c === "\\") {
      i += 2;
      continue;
    }
    if (c === '"') return i + 1;
    if (c === "$" && src[i + 1] === "(") {
      i = matchParen(src, i + 2);
      continue;
    }
    i += 1;
  }
  return src.length;
}

/** Index just past the closing backtick of a backtick substitution whose body starts at `from`. */
function matchBacktick(src: string, from: number): number {
  let i = from;
  while (i < src.length) {
    if (src[i] === "\\") {
      i += 2;
      continue;
    }
    if (src[i] === "`") return i + 1;
    i += 1;
  }
  return src.length;
}

const ANSI_C_ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', a: "\u0007", e: "\u001b" };

/** The body of a `$'…'` string starting at `from` (just past the opening quote), unescaped. */
function readAnsiC(src: string, from: number): { text: string; end: number } {
  let text = "";
  let i = from;
  while (i < src.length && src[i] !== "'") {
    if (src[i] === "\\" && i + 1 < src.length) {
      const next = src[i + 1] ?? "";
      const hex = /^x([0-9a-fA-F]{1,2})/.exec(src.slice(i + 1, i + 4));
      if (hex !== null && hex[1] !== undefined) {
        text += String.fromCharCode(parseInt(hex[1], 16));
        i += 2 + hex[1].length;
        continue;
      }
      text += ANSI_C_ESCAPES[next] ?? next;
      i += 2;
      continue;
    }
    text += src[i];
    i += 1;
  }
  return { text, end: Math.min(i + 1, src.length) };
}

/** Reads an operator at `i`: its text and kind, or undefined when `i` does not start one. */
function readOperator(src: string, i: number): { text: string; kind: "separator" | "redirect" } | undefined {
  const three = src.slice(i, i + 3);
  const two = src.slice(i, i + 2);
  const c = src[i] ?? "";
  if (three === "<<<" || three === "&>>" || three === "<<-") return { text: three, kind: "redirect" };
  if (two === "&&" || two === "||" || two === "|&" || two === ";;") return { text: two, kind: "separator" };
  if (two === "&>" || two === ">>" || two === ">|" || two === ">&" || two === "<<" || two === "<&" || two === "<>") {
    return { text: two, kind: "redirect" };
  }
  if (c === ">" || c === "<") return { text: c, kind: "redirect" };
  if (OPERATOR_START.has(c)) return { text: c, kind: "separator" };
  return undefined;
}

/** Scans one script. Pure; never throws. */
export function scanShell(src: string): ScannedScript {
  const tokens: ShellToken[] = [];
  const substitutions: string[] = [];
  let word = "";
  let inWord = false;
  let quoted = false;

  const endWord = (): void => {
    if (inWord) tokens.push({ kind: "word", text: word, quoted });
    word = "";
    inWord = false;
    quoted = false;
  };
  const addSubstitution = (body: string): void => {
    substitutions.push(body);
    word += SUBSTITUTION_PLACEHOLDER;
    inWord = true;
  };

  let i = 0;
  while (i < src.length) {
    const c = src[i] ?? "";
    if (BLANK.has(c)) {
      endWord();
      i += 1;
      continue;
    }
    if (c === "#" && !inWord) {
      const nl = src.indexOf("\n", i);
      i = nl === -1 ? src.length : nl;
      continue;
    }
    if (c === "\\") {
      if (src[i + 1] === "\n") {
        i += 2;
        continue;
      }
      word += src[i + 1] ?? "";
      inWord = true;
      i += 2;
      continue;
    }
    if (c === "'") {
      const end = src.indexOf("'", i + 1);
      const stop = end === -1 ? src.length : end;
      word += src.slice(i + 1, stop);
      inWord = true;
      quoted = true;
      i = stop + 1;
      continue;
    }
    if (c === "$" && src[i + 1] === "'") {
      const { text, end } = readAnsiC(src, i + 2);
      word += text;
      inWord = true;
      quoted = true;
      i = end;
      continue;
    }
    if (c === '"') {
      inWord = true;
      quoted = true;
      i += 1;
      while (i < src.length && src[i] !== '"') {
        const d = src[i] ?? "";
        if (d === "\\" && i + 1 < src.length) {
          const next = src[i + 1] ?? "";
          word += "$`\"\\\n".includes(next) ? (next === "\n" ? "" : next) : d + next;
          i += 2;
          continue;
        }
        if (d === "$" && src[i + 1] === "(" && src[i + 2] !== "(") {
          const end = matchParen(src, i + 2);
          addSubstitution(src.slice(i + 2, Math.max(i + 2, end - 1)));
          i = end;
          continue;
        }
        if (d === "`") {
          const end = matchBacktick(src, i + 1);
          addSubstitution(src.slice(i + 1, Math.max(i + 1, end - 1)));
          i = end;
          continue;
        }
        word += d;
        i += 1;
      }
      i += 1;
      continue;
    }
    if (c === "$" && src[i + 1] === "(") {
      const end = matchParen(src, i + 2);
      if (src[i + 2] === "(") {
        word += src.slice(i, end); // arithmetic: kept as text
      } else {
        addSubstitution(src.slice(i + 2, Math.max(i + 2, end - 1)));
      }
      inWord = true;
      i = end;
      continue;
    }
    if (c === "$" && src[i + 1] === "{") {
      const close = src.indexOf("}", i + 2);
      const end = close === -1 ? src.length : close + 1;
      word += src.slice(i, end);
      inWord = true;
      i = end;
      continue;
    }
    if (c === "`") {
      const end = matchBacktick(src, i + 1);
      addSubstitution(src.slice(i + 1, Math.max(i + 1, end - 1)));
      i = end;
      continue;
    }
    if ((c === "<" || c === ">") && src[i + 1] === "(" && !inWord) {
      const end = matchParen(src, i + 2);
      substitutions.push(src.slice(i + 2, Math.max(i + 2, end - 1)));
      tokens.push({ kind: "word", text: `${c}(…)`, quoted: false });
      i = end;
      continue;
    }
    const op = readOperator(src, i);
    if (op !== undefined) {
      // A bare fd number right before a redirection belongs to the operator (`2>`).
      if (op.kind === "redirect" && inWord && !quoted && /^\d+$/.test(word)) {
        tokens.push({ kind: "redirect", text: word + op.text });
        word = "";
        inWord = false;
      } else {
        endWord();
        tokens.push(op);
      }
      i += op.text.length;
      continue;
    }
    word += c;
    inWord = true;
    i += 1;
  }
  endWord();
  return { tokens, substitutions };
}
