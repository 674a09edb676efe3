/**
 * Whether `run` and `chat` (and the demo) run their commands in the bubblewrap sandbox, from
 * `--sandbox`, `--no-sandbox` and `--sandbox-network`:
 *
 *   --sandbox        on; where bwrap cannot run, core refuses (exit 2) rather than run bare;
 *   --no-sandbox     off: commands see what the user sees;
 *   neither          on where bwrap can run (probed here, once, by core's probeSandbox);
 *                    where it cannot, one line on stderr says so and why, and commands run
 *                    unsandboxed, since the user did not ask for the sandbox.
 *
 * `--sandbox-network` gives sandboxed commands the network; with `--no-sandbox` it is a usage
 * error (commands have the network anyway). The probe runs only here, so `--help` and the
 * commands that run no model never start bwrap; core is imported by the caller already.
 */
import type { SandboxAvailability, SandboxOptions } from "@penguin/core";
import { UsageError } from "../cli-error.js";

export interface SandboxFlags {
  /** true: `--sandbox`; false: `--no-sandbox`; undefined: neither (the default). */
  sandbox?: boolean;
  sandboxNetwork?: boolean;
}

export interface SandboxDefaultDeps {
  probe: () => SandboxAvailability;
  /** Receives the one line that says commands run unsandboxed (stderr). */
  warn: (line: string) => void;
}

export function chooseSandbox(flags: SandboxFlags, deps: SandboxDefaultDeps): SandboxOptions | undefined {
  const network = flags.sandboxNetwork === true;
  if (flags.sandbox === false) {
    if (network) throw new UsageError("--sandbox-network gives sandboxed commands the network; it does not apply with --no-sandbox (unsandboxed commands have the network anyway): drop one of them");
    return undefined;
  }
  if (flags.sandbox === true) return { enabled: true, network };
  const availability = deps.probe();
  if (availability.available) return { enabled: true, network };
  deps.warn(
    `penguin: commands run unsandboxed: ${availability.reason ?? "bwrap cannot run here"} (install bubblewrap to sandbox them; --no-sandbox turns the sandbox off and this line with it)`,
  );
  return undefined;
}
