/**
 * The server's command sandbox status, decided once at start: bwrap is probed (core's
 * probeSandbox runs a trivial sandbox, so a machine without user namespaces counts as
 * missing), and sessions use the sandbox unless the operator turned it off. The status feeds
 * the startup notice and `/api/me`, so an unsandboxed server is visible, never silent.
 */
import { probeSandbox } from "@penguin/core";

/** Whether session commands run in bwrap here, and why not when they do not. */
export interface SandboxStatus {
  /** bwrap can build a sandbox on this machine. */
  available: boolean;
  /** Sessions' commands run in it (available and not turned off). */
  enabled: boolean;
  network: boolean;
  /** Why the sandbox is not available. */
  reason?: string;
  /** The bwrap executable probed (default `bwrap` from PATH). */
  bwrapPath?: string;
}

export function sandboxStatus(options: { enabled?: boolean; network?: boolean; bwrapPath?: string } | undefined): SandboxStatus {
  const probe = probeSandbox(options?.bwrapPath);
  const status: SandboxStatus = { available: probe.available, enabled: probe.available && options?.enabled !== false, network: options?.network === true };
  if (probe.reason !== undefined) status.reason = probe.reason;
  if (options?.bwrapPath !== undefined) status.bwrapPath = options.bwrapPath;
  return status;
}
