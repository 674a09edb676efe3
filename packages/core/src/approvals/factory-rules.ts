/**
 * The factory command-policy rules: commands that destroy a machine in one line. A new
 * project's `[command_policy]` is seeded with these; each can be switched off by name.
 *
 * Every pattern is a JavaScript regular expression (source text, no flags) matched against
 * the normalized forms `normalize-command.ts` produces:
 *   - each simple command, e.g. `rm -r -f /` (quotes gone, wrappers stripped, `/bin/rm` → `rm`);
 *   - each whole script line, e.g. `: ( ) { : | : & } ; :` (tokens joined by single spaces).
 * Patterns anchored with `^` therefore only ever match a command in command position.
 *
 * Decided look-alikes:
 *   - `echo "rm -rf /"` passes: the quoted text is an argument of `echo`, never run.
 *   - `rm -rf "~"` is caught although bash would not expand the quoted tilde: it is never
 *     what anyone means, and a false alarm here costs one rephrased call.
 *   - A fork bomb spelled inside a quoted string is caught too (the line rule sees it).
 *   - `rm -r /` without `-f` is caught: recursion on `/` or home is the danger, not force.
 */

export interface CommandPolicyRule {
  /** Stable id, reported as `policy_rule` on the `forbidden` decision. */
  name: string;
  /** JavaScript regular expression source, matched against normalized commands. */
  pattern: string;
  description?: string;
  /** Absent means enabled. */
  enabled?: boolean;
}

/** Block devices, as they appear after `/dev/`. `/dev/null`, `/dev/tty`, `/dev/std*` are not among them. */
const BLOCK_DEVICE =
  "(?:sd[a-z]+\\d*|hd[a-z]+\\d*|vd[a-z]+\\d*|xvd[a-z]+\\d*|nvme\\d+(?:n\\d+)?(?:p\\d+)?|mmcblk\\d+(?:p\\d+)?|md\\d+|dm-\\d+|loop\\d+|sr\\d+|disk/\\S+|mapper/\\S+)";

/** `/`, `//`, `/*`, `/.`, `~`, `~/`, `~/*`, `$HOME`, `${HOME}`, `$HOME/`, `$HOME/*`. */
const ROOT_OR_HOME = "(?:/+\\*?|/+\\.|~/*\\*?|\\$HOME/*\\*?|\\$\\{HOME\\}/*\\*?)";
const RECURSIVE_FLAG = "(?:-[A-Za-z]*[rR][A-Za-z]*|--recursive)";

export const FACTORY_RULES: readonly CommandPolicyRule[] = [
  {
    name: "rm-recursive-root-or-home",
    pattern: `^rm\\s(?=(?:.*\\s)?${RECURSIVE_FLAG}(?:\\s|$))(?=(?:.*\\s)?${ROOT_OR_HOME}(?:\\s|$))`,
    description: "Recursive rm of the filesystem root or the home directory",
  },
  {
    name: "mkfs",
    pattern: "^mkfs\\S*(?:\\s|$)",
    description: "Creating a filesystem (erases the target device)",
  },
  {
    name: "dd-to-device",
    pattern: `^dd\\s(?=(?:.*\\s)?of=/dev/${BLOCK_DEVICE}(?:\\s|$))`,
    description: "dd writing onto a block device",
  },
  {
    name: "fork-bomb",
    pattern: "([^\\s(){}|&;]+)\\s*(?:\\(\\s*\\))?\\s*\\{\\s*\\1\\s*\\|\\s*\\1\\s*&\\s*;?\\s*\\}\\s*;?\\s*\\1(?:\\s|$)",
    description: "A fork bomb (a function that pipes itself into itself in the background)",
  },
  {
    name: "redirect-to-device",
    pattern: `(?:^|\\s)(?:\\d+|&)?>>?\\|?\\s*/dev/${BLOCK_DEVICE}(?:\\s|$)`,
    description: "Redirecting output onto a block device",
  },
];
