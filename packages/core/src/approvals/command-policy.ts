/**
 * The command policy: a veto on catastrophic shell commands that holds under every approval
 * mode, `allow-all` included. The engine runs it before asking the host; a hit is recorded
 * as the decision `forbidden` with the rule's name, and the host is never asked.
 *
 * What it screens: `exec_command`'s `cmd` and `input_command`'s `chars` (text typed into a
 * running process may well be a shell). Both are normalized first (`normalize-command.ts`),
 * then each enabled rule is tried, in order, against every simple command and every script
 * line; the first rule that matches wins.
 *
 * Configuration (`[command_policy]` in `.project_config.toml`): `rules` is the complete list,
 * seeded with `FACTORY_RULES` when a project is created; a rule with `enabled = false` is
 * skipped, `enabled = false` on the policy switches screening off. Without a config the
 * factory rules apply. A pattern that is not a valid regular expression is a configuration
 * error: `createCommandPolicy` throws naming the rule (use `checkCommandPolicy` to report
 * errors at load time instead).
 *
 * It is a tripwire for accidents, not a sandbox: a determined script can always hide a
 * command (`base64 -d | sh`), and only the literal forms and the usual wrappers are seen.
 */
import type { PolicyCheck } from "../interfaces.js";
import { analyzeCommand } from "./normalize-command.js";
import { FACTORY_RULES, type CommandPolicyRule } from "./factory-rules.js";

export { FACTORY_RULES, type CommandPolicyRule } from "./factory-rules.js";
export { normalizeCommand, analyzeCommand, type NormalizedCommand } from "./normalize-command.js";

export interface CommandPolicyConfig {
  enabled: boolean;
  rules: CommandPolicyRule[];
}

export interface PolicyHit {
  rule: string;
  description?: string;
}

interface CompiledRule {
  name: string;
  description?: string;
  regex: RegExp;
}

/** Control characters other than tab and newline separate commands when typed into a shell. */
function stripControlChars(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "\n");
}

/** One message per rule whose pattern does not compile; empty when the config is usable. */
export function checkCommandPolicy(config: CommandPolicyConfig): string[] {
  const errors: string[] = [];
  for (const rule of config.rules) {
    try {
      new RegExp(rule.pattern);
    } catch (err) {
      const detail = err instanceof Error ? err.message : String(err);
      errors.push(`command_policy rule "${rule.name}": pattern is not a valid regular expression (${detail})`);
    }
  }
  return errors;
}

function compile(rules: readonly CommandPolicyRule[]): CompiledRule[] {
  return rules
    .filter((r) => r.enabled !== false)
    .map((r) => ({ name: r.name, description: r.description, regex: new RegExp(r.pattern) }));
}

/** The first rule a command line breaks, or undefined. */
function screenCommand(rules: readonly CompiledRule[], cmd: string): PolicyHit | undefined {
  if (rules.length === 0 || cmd.trim() === "") return undefined;
  const { segments, lines } = analyzeCommand(stripControlChars(cmd));
  const texts = [...segments, ...lines];
  for (const rule of rules) {
    if (texts.some((t) => rule.regex.test(t))) {
      return rule.description === undefined ? { rule: rule.name } : { rule: rule.name, description: rule.description };
    }
  }
  return undefined;
}

/** The shell text a tool call would run, when it is one of the screened tools. */
function screenedText(name: string, argumentsJson: string): string | undefined {
  const field = name === "exec_command" ? "cmd" : name === "input_command" ? "chars" : undefined;
  if (field === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(argumentsJson);
  } catch {
    return undefined; // the environment answers bad JSON with a failed output
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const value: unknown = Reflect.get(parsed, field);
  return typeof value === "string" ? value : undefined;
}

/**
 * The policy as the engine uses it. Throws when a pattern does not compile: that is a
 * configuration error to fix in `[command_policy]`, and `checkCommandPolicy` reports it early.
 */
export function createCommandPolicy(config?: CommandPolicyConfig): PolicyCheck {
  const errors = config === undefined ? [] : checkCommandPolicy(config);
  if (errors.length > 0) throw new Error(`${errors.join("; ")}. Fix or disable the rule in [command_policy].`);
  const rules = config === undefined ? compile(FACTORY_RULES) : config.enabled ? compile(config.rules) : [];
  return function commandPolicy(toolCall) {
    const text = screenedText(toolCall.name, toolCall.arguments);
    return text === undefined ? undefined : screenCommand(rules, text);
  };
}
