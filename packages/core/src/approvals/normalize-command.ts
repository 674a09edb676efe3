/**
 * Command normalization for the policy: turns a command line into the simple commands it
 * would run, each written in one canonical spelling, so a rule written against `rm -rf /`
 * also sees `sudo -- /bin/rm -r -f "/"`, `cd /tmp && rm -rf /` and `bash -c 'rm -rf /'`.
 *
 * Steps, per simple command (the text between `;`, `&&`, `||`, `|`, `&`, newlines, parens):
 *   1. drop leading shell keywords (`if`, `then`, `do`, `!`, `{`, …) and `VAR=value` words;
 *   2. strip wrappers that run their arguments as a command, with their own options:
 *      `sudo`/`doas`, `env` (and its `VAR=value`s), `command`, `exec`, `nohup`, `time`, `nice`,
 *      `timeout`, `builtin`, `stdbuf`, `xargs` (whose input adds arguments we cannot see);
 *   3. reduce a binary path to its name (`/bin/rm` → `rm`);
 *   4. recurse into scripts that run too: `sh|bash|zsh|… -c '<script>'`, `eval …`,
 *      `su -c '<script>'`, `env -S '<script>'`, command and process substitutions.
 *
 * Output words are joined by single spaces without quotes. A word that was quoted and holds
 * blanks or shell operators is written back in single quotes, so `echo "rm -rf /"` stays one
 * argument of `echo` and never reads as a command. Words of redirections are kept (`> /dev/sda`).
 *
 * `lines` (one per script, nested ones included) are the whole token streams, for rules
 * that span separators (a fork bomb, `curl … | sh`). Recursion depth is capped.
 */
import { scanShell, type ShellToken } from "./shell-tokens.js";

export interface NormalizedCommand {
  /** One canonical string per simple command, outer script first, then nested ones. */
  segments: string[];
  /** One canonical string per script (the outer one and each nested one), separators kept. */
  lines: string[];
}

type Item = { kind: "word"; text: string; quoted: boolean } | { kind: "redirect"; text: string };

const MAX_DEPTH = 8;
const KEYWORDS = new Set(["!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "esac", "in"]);
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "yash", "fish"]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;
const NEEDS_QUOTES = /[\s;&|<>()'"]/;

/** Options, per wrapper, that take the next word as their value. */
const OPTIONS_WITH_VALUE: Record<string, ReadonlySet<string>> = {
  sudo: new Set(["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-T", "-U", "-a", "-c", "--user", "--group", "--host", "--prompt", "--close-from", "--chdir", "--role", "--type", "--command-timeout", "--other-user"]),
  doas: new Set(["-u", "-C"]),
  env: new Set(["-u", "-C", "--unset", "--chdir"]),
  exec: new Set(["-a"]),
  nice: new Set(["-n", "--adjustment"]),
  timeout: new Set(["-s", "-k", "--signal", "--kill-after"]),
  time: new Set(["-f", "-o", "--format", "--output"]),
  stdbuf: new Set(["-i", "-o", "-e", "--input", "--output", "--error"]),
  xargs: new Set(["-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-lines"]),
};
const WRAPPERS = new Set(["sudo", "doas", "env", "command", "exec", "nohup", "time", "nice", "timeout", "builtin", "stdbuf", "xargs"]);

/** `/usr/bin/rm` → `rm`; other words unchanged. */
function commandName(word: string): string {
  if (!word.includes("/") || word.endsWith("/")) return word;
  return word.slice(word.lastIndexOf("/") + 1);
}

function render(item: Item): string {
  if (item.kind === "redirect") return item.text;
  if (item.quoted && (item.text === "" || NEEDS_QUOTES.test(item.text))) return `'${item.text}'`;
  return item.text;
}

function isWord(item: Item | undefined): item is Item & { kind: "word" } {
  return item !== undefined && item.kind === "word";
}

/**
 * Drops a wrapper's options (and their values) from the front of `rest`. Returns the
 * remaining items, and the `env -S` script when there is one.
 */
function dropWrapperOptions(wrapper: string, rest: Item[]): { rest: Item[]; script?: string } {
  const withValue = OPTIONS_WITH_VALUE[wrapper] ?? new Set<string>();
  let i = 0;
  while (i < rest.length) {
    const item = rest[i];
    if (!isWord(item)) break;
    const w = item.text;
    if (w === "--") {
      i += 1;
      break;
    }
    if (wrapper === "env" && (w === "-S" || w === "--split-string")) {
      const next = rest[i + 1];
      return { rest: [], script: isWord(next) ? next.text : "" };
    }
    if (wrapper === "env" && w.startsWith("--split-string=")) {
      return { rest: [], script: w.slice("--split-string=".length) };
    }
    if (wrapper === "nice" && /^-\d+$/.test(w)) {
      i += 1;
      continue;
    }
    if (!w.startsWith("-") || w === "-") break;
    i += withValue.has(w) ? 2 : 1;
  }
  let out = rest.slice(i);
  if (wrapper === "timeout" && isWord(out[0])) out = out.slice(1); // the duration
  if (wrapper === "env" || wrapper === "sudo" || wrapper === "doas") {
    while (isWord(out[0]) && ASSIGNMENT.test(out[0].text)) out = out.slice(1);
  }
  return { rest: out };
}

/** The script a shell invocation runs with `-c`, if any: `bash -lc 'x'`, `sh -e -c 'x'`. */
function shellScript(args: Item[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const item = args[i];
    if (!isWord(item)) return undefined;
    const w = item.text;
    if (w === "--" || !w.startsWith("-") || w.startsWith("--")) {
      if (w.startsWith("--") && w !== "--") continue; // long options such as --norc
      return undefined;
    }
    if (w === "-o" || w === "-O") {
      i += 1; // `-o pipefail`: the option's value
      continue;
    }
    if (w.slice(1).includes("c")) {
      const next = args.slice(i + 1).find((a) => isWord(a) && !a.text.startsWith("-"));
      return isWord(next) ? next.text : undefined;
    }
  }
  return undefined;
}

/** Splits a token stream into simple commands (redirect operators stay inside). */
function splitSimpleCommands(tokens: ShellToken[]): Item[][] {
  const out: Item[][] = [];
  let current: Item[] = [];
  for (const t of tokens) {
    if (t.kind === "separator") {
      if (current.length > 0) out.push(current);
      current = [];
      continue;
    }
    current.push(t);
  }
  if (current.length > 0) out.push(current);
  return out;
}

interface Accumulator {
  segments: string[];
  lines: string[];
}

/** Normalizes one simple command; nested scripts are pushed onto `nested`. */
function normalizeSimple(items: Item[], nested: string[]): string | undefined {
  let rest = items;
  for (let guard = 0; guard < 64; guard++) {
    const head = rest[0];
    if (!isWord(head)) break;
    if (!head.quoted && KEYWORDS.has(head.text)) {
      rest = rest.slice(1);
      continue;
    }
    if (!head.quoted && ASSIGNMENT.test(head.text)) {
      rest = rest.slice(1);
      continue;
    }
    const name = commandName(head.text);
    if (!WRAPPERS.has(name)) break;
    if (name === "command" && rest.slice(1).some((a) => isWord(a) && /^-[a-zA-Z]*[vV]/.test(a.text))) {
      return undefined; // `command -v x` only looks a name up
    }
    const dropped = dropWrapperOptions(name, rest.slice(1));
    if (dropped.script !== undefined) nested.push(dropped.script);
    rest = dropped.rest;
  }
  const head = rest[0];
  if (!isWord(head)) {
    return rest.length === 0 ? undefined : rest.map(render).join(" ");
  }
  const name = commandName(head.text);
  const args = rest.slice(1);
  if (SHELLS.has(name)) {
    const script = shellScript(args);
    if (script !== undefined) nested.push(script);
  } else if (name === "eval") {
    nested.push(args.filter(isWord).map((a) => a.text).join(" "));
  } else if (name === "su") {
    const at = args.findIndex((a) => isWord(a) && (a.text === "-c" || a.text === "--command"));
    const script = args[at + 1];
    if (at !== -1 && isWord(script)) nested.push(script.text);
  }
  return [name, ...args.map(render)].join(" ");
}

function normalizeInto(script: string, depth: number, acc: Accumulator): void {
  if (depth > MAX_DEPTH) return;
  const scanned = scanShell(script);
  acc.lines.push(
    scanned.tokens.map((t) => (t.kind === "word" ? render(t) : t.text)).join(" ").trim(),
  );
  const nested = [...scanned.substitutions];
  for (const simple of splitSimpleCommands(scanned.tokens)) {
    const segment = normalizeSimple(simple, nested);
    if (segment !== undefined && segment !== "") acc.segments.push(segment);
  }
  for (const inner of nested) normalizeInto(inner, depth + 1, acc);
}

/** Segments and whole-script lines of a command line. Pure; never throws. */
export function analyzeCommand(cmd: string): NormalizedCommand {
  const acc: Accumulator = { segments: [], lines: [] };
  normalizeInto(cmd, 0, acc);
  return acc;
}

/** The simple commands a command line runs, each in canonical spelling (see the header). */
export function normalizeCommand(cmd: string): string[] {
  return analyzeCommand(cmd).segments;
}
