/**
 * Which workspace paths a checkpoint leaves out: the workspace's `.gitignore` files (the root
 * one and any in sub-folders, each relative to its folder) and a configured list written the
 * same way (default `node_modules/` and `.git`, a folder or the file a git worktree has in its
 * place). Gitignore's rules as far as a checkpoint
 * needs them: `#` comments, `!` negation (the last matching rule wins), a trailing `/` for
 * folders only, a pattern with an inner `/` anchored to its folder (else it matches a name at
 * any depth), `*`, `?`, `[…]` and `**`. An ignored folder is never entered, so nothing below it
 * can be un-ignored (as in git). Ignored paths are never read, stored, changed or removed.
 */
export const DEFAULT_CHECKPOINT_IGNORE: readonly string[] = ["node_modules/", ".git"];

interface Rule {
  regex: RegExp;
  negated: boolean;
  folderOnly: boolean;
  /** A pattern without an inner `/` matches the last name of a path, at any depth. */
  byName: boolean;
}

/** The rules of one folder (`base` is its workspace path, "" for the root). */
export interface RuleSet {
  base: string;
  rules: Rule[];
}

export function parseIgnoreLines(text: string): Rule[] {
  const rules: Rule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.replace(/(?<!\\)\s+$/, "");
    if (line === "" || line.startsWith("#")) continue;
    let negated = false;
    if (line.startsWith("!")) {
      negated = true;
      line = line.slice(1);
    } else if (line.startsWith("\\!") || line.startsWith("\\#")) line = line.slice(1);
    let folderOnly = false;
    if (line.endsWith("/")) {
      folderOnly = true;
      line = line.slice(0, -1);
    }
    if (line === "") continue;
    const anchored = line.includes("/");
    if (line.startsWith("/")) line = line.slice(1);
    const body = globToRegex(line);
    rules.push({ regex: new RegExp(`^${body}$`), negated, folderOnly, byName: !anchored });
  }
  return rules;
}

function globToRegex(glob: string): string {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const atStart = i === 0 || glob[i - 1] === "/";
        const atEnd = i + 2 === glob.length || glob[i + 2] === "/";
        if (atStart && atEnd) {
          if (glob[i + 2] === "/") {
            out += "(?:.*/)?";
            i += 2;
          } else {
            out += ".*";
            i += 1;
          }
          continue;
        }
        i += 1;
      }
      out += "[^/]*";
    } else if (c === "?") out += "[^/]";
    else if (c === "[") {
      const close = glob.indexOf("]", i + 2);
      if (close === -1) out += "\\[";
      else {
        let set = glob.slice(i + 1, close).replace(/\\/g, "\\\\");
        if (set.startsWith("!")) set = `^${set.slice(1)}`;
        out += `[${set}]`;
        i = close;
      }
    } else if (c === "\\" && i + 1 < glob.length) {
      out += escapeRegex(glob[i + 1]!);
      i += 1;
    } else out += escapeRegex(c);
  }
  return out;
}

const escapeRegex = (c: string): string => c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/**
 * True when `path` (a workspace path, `/`-separated) is ignored by the rule sets whose folder
 * holds it, the root's first: the last matching rule decides.
 */
export function isIgnored(sets: readonly RuleSet[], path: string, isFolder: boolean): boolean {
  let ignored = false;
  const name = path.slice(path.lastIndexOf("/") + 1);
  for (const set of sets) {
    if (set.base !== "" && !path.startsWith(`${set.base}/`)) continue;
    const relative = set.base === "" ? path : path.slice(set.base.length + 1);
    for (const rule of set.rules) {
      if (rule.folderOnly && !isFolder) continue;
      if (rule.regex.test(rule.byName ? name : relative)) ignored = !rule.negated;
    }
  }
  return ignored;
}
