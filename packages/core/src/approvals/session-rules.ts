/**
 * Session approval rules: what "allow this tool (or this command prefix) for the rest of the
 * session" means, as two pure functions the approvals decider uses.
 *
 * A rule for a tool other than the shell allows every later call of that tool. A rule for
 * `exec_command` carries a command prefix (the program's name, the words the Human saw): it
 * allows a later command only when its words start with the prefix's words and it is one plain
 * command, with no separator (`;`, `&&`, `|`, newline…), redirection or substitution, so
 * `echo` allowed never lets `echo x; rm -rf ~` through unasked.
 */
import type { SessionApprovalRule } from "@penguin/trace";
import { scanShell } from "./shell-tokens.js";

/** The tool whose rules are per command prefix. */
export const SHELL_TOOL = "exec_command";

function commandOf(argumentsJson: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(argumentsJson);
    if (typeof parsed !== "object" || parsed === null) return undefined;
    const cmd: unknown = Reflect.get(parsed, "cmd");
    return typeof cmd === "string" ? cmd : undefined;
  } catch {
    return undefined;
  }
}

/** The words of `cmd` when it is one plain command; undefined when it chains, redirects or substitutes anything. */
function plainWords(cmd: string): string[] | undefined {
  const { tokens, substitutions } = scanShell(cmd);
  if (substitutions.length > 0) return undefined;
  const words: string[] = [];
  for (const t of tokens) {
    if (t.kind !== "word") return undefined;
    words.push(t.text);
  }
  return words.length === 0 ? undefined : words;
}

/** The prefix a rule for this shell call would carry (its program), or undefined when the call is no plain command. */
export function commandPrefixOf(argumentsJson: string): string | undefined {
  const cmd = commandOf(argumentsJson);
  const words = cmd === undefined ? undefined : plainWords(cmd);
  return words?.[0];
}

/** True when one of `rules` allows this call without asking. */
export function ruleAllows(rules: readonly SessionApprovalRule[], call: { name: string; arguments: string }): boolean {
  for (const rule of rules) {
    if (rule.tool !== call.name) continue;
    if (call.name !== SHELL_TOOL) return true;
    if (rule.commandPrefix === undefined) continue;
    const cmd = commandOf(call.arguments);
    const words = cmd === undefined ? undefined : plainWords(cmd);
    const prefix = rule.commandPrefix.split(/\s+/).filter((w) => w !== "");
    if (words !== undefined && prefix.length > 0 && prefix.every((w, i) => words[i] === w)) return true;
  }
  return false;
}
