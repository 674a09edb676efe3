/**
 * Lifecycle hooks as configured: the `hooks:` section of system_config.yaml and the workspace's
 * `.penguin/hooks.json`, both in Claude Code's settings shape, so a block copied from a
 * `.claude/settings.json` works as it is:
 *
 *   hooks:
 *     PreToolUse:
 *       - matcher: "Bash|exec_command"      # a regular expression on the tool name; "" or "*" = all
 *         hooks:
 *           - { type: command, command: "./guard.sh", timeout: 30 }   # timeout in seconds (default 60)
 *
 * One effect/Schema describes the section; system-config.ts embeds it (its errors then name the
 * file, line and field) and workspace-hooks.ts decodes the JSON file with it.
 */
import { Schema } from "effect";

export const HOOK_EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreCompact", "Stop", "SubagentStop"] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

/** Claude Code's default limit for one hook command, in seconds. */
export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60;

export interface HookCommand {
  type: "command";
  command: string;
  /** Seconds; fractions allowed. Absent: DEFAULT_HOOK_TIMEOUT_SECONDS. */
  timeout?: number;
}

export interface HookMatcherGroup {
  /** A regular expression on the tool name (tool events only); absent, "" or "*" match every tool. */
  matcher?: string;
  hooks: HookCommand[];
}

export type HooksConfig = { [E in HookEventName]?: HookMatcherGroup[] };

const mustBe = (text: string) => ({ message: () => text });

const validRegex = (text: string): boolean => {
  if (text === "" || text === "*") return true;
  try {
    new RegExp(text);
    return true;
  } catch {
    return false;
  }
};

const HookCommandSchema = Schema.mutable(
  Schema.Struct({
    type: Schema.Literal("command").annotations(mustBe('must be "command" (the only hook type)')),
    command: Schema.String.annotations(mustBe("must be text")).pipe(Schema.minLength(1, mustBe("must not be empty"))),
    timeout: Schema.optional(Schema.Number.annotations(mustBe("must be a number of seconds")).pipe(Schema.greaterThan(0, mustBe("must be more than 0 seconds")))),
  }),
).annotations(mustBe("must be a mapping with type: command and command"));

const MatcherGroupSchema = Schema.mutable(
  Schema.Struct({
    matcher: Schema.optional(Schema.String.annotations(mustBe("must be text (a regular expression on the tool name)")).pipe(Schema.filter(validRegex, mustBe("must be a valid regular expression")))),
    hooks: Schema.mutable(Schema.Array(HookCommandSchema)).annotations(mustBe("must be a list of { type: command, command } entries")),
  }),
).annotations(mustBe("must be a mapping with matcher and hooks"));

const groups = Schema.optional(Schema.mutable(Schema.Array(MatcherGroupSchema)).annotations(mustBe("must be a list of { matcher, hooks } entries")));

/** The `hooks` mapping: one list of matcher groups per event name. Unknown event names are refused (a typo would silently disable a guard). */
export const HooksSchema = Schema.Struct({
  SessionStart: groups,
  UserPromptSubmit: groups,
  PreToolUse: groups,
  PostToolUse: groups,
  PreCompact: groups,
  Stop: groups,
  SubagentStop: groups,
}).annotations(mustBe(`must be a mapping of hook events (${HOOK_EVENTS.join(", ")})`));

/** Event names a hooks mapping uses that are not ours: reported, never ignored. */
export function unknownHookEvents(raw: unknown): string[] {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return [];
  return Object.keys(raw).filter((key) => !(HOOK_EVENTS as readonly string[]).includes(key));
}

/** Whether a group's matcher selects `names` (the tool's own name and its Claude Code alias, if any). */
export function matcherSelects(matcher: string | undefined, names: readonly string[]): boolean {
  if (matcher === undefined || matcher === "" || matcher === "*") return true;
  const pattern = new RegExp(`^(?:${matcher})$`);
  return names.some((name) => pattern.test(name));
}

/** Two configurations as one: system_config's hooks run first, then the workspace's. */
export function mergeHooks(...configs: (HooksConfig | undefined)[]): HooksConfig {
  const out: HooksConfig = {};
  for (const config of configs) {
    if (config === undefined) continue;
    for (const event of HOOK_EVENTS) {
      const list = config[event];
      if (list !== undefined && list.length > 0) out[event] = [...(out[event] ?? []), ...list];
    }
  }
  return out;
}

export function hasHooks(config: HooksConfig): boolean {
  return HOOK_EVENTS.some((event) => (config[event]?.length ?? 0) > 0);
}
