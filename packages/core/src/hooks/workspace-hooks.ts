/**
 * A workspace's own hooks: `<workspace>/.penguin/hooks.json`, Claude Code's settings shape
 * (`{ "hooks": { "PreToolUse": [...] } }`). Anyone who can write the workspace can write this
 * file (the model included: the workspace is writable to its tools), so it runs only once the
 * user trusted it, and only as it was when trusted: the trust is the file's SHA-256, recorded
 * per workspace in `<data root>/trusted_hooks.json`, beside the projects, the user's own state.
 * The data root is absent from every session's sandbox and file tools, so a session cannot
 * trust a file for itself; an edited file is untrusted again until the user looks at it anew
 * (`penguin hooks trust`).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { Either, ParseResult, Schema } from "effect";
import { writeFileAtomic } from "../state/atomic-write.js";
import { ConfigError } from "../state/config-error.js";
import { HOOK_EVENTS, HooksSchema, unknownHookEvents, type HooksConfig } from "./hook-config.js";

export const WORKSPACE_HOOKS_FILE = join(".penguin", "hooks.json");
export const TRUSTED_HOOKS_FILE = "trusted_hooks.json";

export type WorkspaceHooks =
  | { status: "none"; file: string }
  | { status: "trusted"; file: string; config: HooksConfig }
  /** The file exists but was never trusted, or changed since: its hooks do not run. */
  | { status: "untrusted"; file: string; digest: string };

const decodeHooks = Schema.decodeUnknownEither(Schema.Struct({ hooks: Schema.optional(Schema.mutable(HooksSchema)) }), { errors: "first", onExcessProperty: "ignore" });

function trustFile(root: string): string {
  return join(root, TRUSTED_HOOKS_FILE);
}

function readTrust(root: string): Record<string, string> {
  const file = trustFile(root);
  if (!existsSync(file)) return {};
  try {
    const v: unknown = JSON.parse(readFileSync(file, "utf8"));
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, string>) : {};
  } catch {
    return {};
  }
}

const digestOf = (text: string): string => createHash("sha256").update(text).digest("hex");

const workspaceKey = (workspace: string): string => (existsSync(workspace) ? realpathSync(workspace) : workspace);

/** Parses a hooks.json text; a ConfigError names the file and the field when it is not one. */
export function parseWorkspaceHooks(text: string, file: string): HooksConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ConfigError({ file, problem: `is not valid JSON (${err instanceof Error ? err.message : String(err)})`, hint: 'write { "hooks": { "PreToolUse": [ … ] } }' });
  }
  const stray = typeof raw === "object" && raw !== null ? unknownHookEvents((raw as { hooks?: unknown }).hooks)[0] : undefined;
  if (stray !== undefined) throw new ConfigError({ file, field: `hooks.${stray}`, problem: `is not a hook event this harness runs (it runs ${HOOK_EVENTS.join(", ")})` });
  const decoded = decodeHooks(raw);
  if (Either.isLeft(decoded)) throw new ConfigError({ file, problem: ParseResult.TreeFormatter.formatErrorSync(decoded.left) });
  return decoded.right.hooks ?? {};
}

/** The workspace's hooks and whether they may run. */
export function loadWorkspaceHooks(root: string, workspace: string): WorkspaceHooks {
  const file = join(workspace, WORKSPACE_HOOKS_FILE);
  if (!existsSync(file)) return { status: "none", file };
  const text = readFileSync(file, "utf8");
  const digest = digestOf(text);
  if (readTrust(root)[workspaceKey(workspace)] !== digest) return { status: "untrusted", file, digest };
  return { status: "trusted", file, config: parseWorkspaceHooks(text, file) };
}

/**
 * The user trusts the workspace's hooks file as it is now (checked first: a file that does not
 * parse is refused). Returns the file and its digest.
 */
export async function trustWorkspaceHooks(root: string, workspace: string): Promise<{ file: string; digest: string; config: HooksConfig }> {
  const file = join(workspace, WORKSPACE_HOOKS_FILE);
  if (!existsSync(file)) throw new ConfigError({ file, problem: "does not exist", hint: 'write { "hooks": { … } } there first' });
  const text = readFileSync(file, "utf8");
  const config = parseWorkspaceHooks(text, file);
  const digest = digestOf(text);
  const trust = { ...readTrust(root), [workspaceKey(workspace)]: digest };
  mkdirSync(dirname(trustFile(root)), { recursive: true });
  await writeFileAtomic(trustFile(root), `${JSON.stringify(trust, null, 2)}\n`);
  return { file, digest, config };
}
