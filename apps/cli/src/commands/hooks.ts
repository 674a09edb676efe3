/**
 * `penguin hooks show` and `penguin hooks trust`: a workspace's `.penguin/hooks.json` (core's
 * workspace-hooks). Its hooks run only once the user trusted the file as it is; `show` prints
 * every command it would run and whether it is trusted, `trust` records the file's digest in
 * the data root (any later edit needs a new `trust`). Imported lazily by program.ts.
 */
import { resolve } from "node:path";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { Output } from "../render/output.js";

export interface HooksFlags {
  root?: string;
  workspace?: string;
}

type HooksConfig = import("@penguin/core").HooksConfig;

function printCommands(out: Output, config: HooksConfig): void {
  for (const [event, groups] of Object.entries(config)) {
    for (const group of groups ?? []) {
      for (const hook of group.hooks) out.line(`  ${event}${group.matcher === undefined || group.matcher === "" ? "" : ` [${group.matcher}]`}: ${hook.command}${hook.timeout === undefined ? "" : ` (timeout ${hook.timeout}s)`}`);
    }
  }
}

export async function hooksShow(flags: HooksFlags): Promise<ExitCode> {
  const { loadWorkspaceHooks, parseWorkspaceHooks, resolveRoot } = await import("@penguin/core");
  const { readFileSync } = await import("node:fs");
  const workspace = resolve(flags.workspace ?? ".");
  const found = loadWorkspaceHooks(resolveRoot(flags.root), workspace);
  const out = Output.of(process.stdout);
  if (found.status === "none") {
    out.line(`no workspace hooks: ${found.file} does not exist`);
    return EXIT.done;
  }
  const config = found.status === "trusted" ? found.config : parseWorkspaceHooks(readFileSync(found.file, "utf8"), found.file);
  out.line(`${found.file}: ${found.status === "trusted" ? "trusted, its hooks run" : "NOT trusted, its hooks do not run (review them, then: penguin hooks trust)"}`);
  printCommands(out, config);
  return EXIT.done;
}

export async function hooksTrust(flags: HooksFlags): Promise<ExitCode> {
  const { resolveRoot, trustWorkspaceHooks, TRUSTED_HOOKS_FILE } = await import("@penguin/core");
  const root = resolveRoot(flags.root);
  const trusted = await trustWorkspaceHooks(root, resolve(flags.workspace ?? "."));
  const out = Output.of(process.stdout);
  out.line(`trusted ${trusted.file} (sha256 ${trusted.digest.slice(0, 12)}…, recorded in ${resolve(root, TRUSTED_HOOKS_FILE)}); these hooks now run in its sessions:`);
  printCommands(out, trusted.config);
  return EXIT.done;
}
