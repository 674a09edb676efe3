/**
 * Signalling and reaping a command's process group.
 *
 * Every command starts as the leader of its own process group (`detached: true`), so one
 * signal reaches the shell and everything it started (pipelines, `&` jobs). Stopping is
 * SIGTERM to the group, a grace period, then SIGKILL, and we wait until the group is empty:
 * "stopped" means no process of it is left running.
 *
 * "Empty" ignores zombies: children whose parent died are re-parented to init, which may reap
 * them late (seconds, in some containers); a zombie is already dead and holds nothing. On
 * Linux the group's members are read from /proc; elsewhere a `kill(-pgid, 0)` probe is used,
 * which counts zombies too and so may wait out the bound. Unsandboxed, processes that leave
 * the group on purpose (`setsid`, daemons) are out of reach, as with any process-group based
 * design; a sandboxed command's group is led by its pid namespace's init, whose SIGKILL ends
 * every process of the namespace, those included (see sandbox.ts).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";

const POLL_MS = 10;
const HAS_PROC = existsSync("/proc/self/stat");

/** Sends a signal to a whole group; false when the group no longer exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

function probe(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return err instanceof Error && "code" in err && err.code === "EPERM";
  }
}

/** `(state, pgrp)` of a /proc stat line; the command name may hold spaces and parens. */
function stateAndGroup(stat: string): { state: string; pgrp: number } | undefined {
  const close = stat.lastIndexOf(")");
  if (close === -1) return undefined;
  const fields = stat.slice(close + 2).split(" ");
  const state = fields[0];
  const pgrp = Number(fields[2]);
  return state === undefined || Number.isNaN(pgrp) ? undefined : { state, pgrp };
}

/** True while a process of the group is alive (zombies excluded where /proc exists). */
export function groupAlive(pgid: number): boolean {
  if (!probe(pgid)) return false;
  if (!HAS_PROC) return true;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // exited while we looked
    }
    const parsed = stateAndGroup(stat);
    if (parsed !== undefined && parsed.pgrp === pgid && parsed.state !== "Z" && parsed.state !== "X") return true;
  }
  return false;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits until the group is empty or `ms` passed; true when it emptied. */
export async function waitGroupGone(pgid: number, ms: number, cut?: AbortSignal): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!groupAlive(pgid)) return true;
    if (Date.now() >= deadline || cut?.aborted === true) return false;
    await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
  }
}

/**
 * SIGTERM, up to `graceMs` for the group to go, then SIGKILL and up to `graceMs` more.
 * `hurry` cuts the grace short (a kill that must finish before its own timeout).
 * Resolves true when the group is gone.
 */
export async function terminateGroup(pgid: number, graceMs: number, hurry?: AbortSignal): Promise<boolean> {
  if (!groupAlive(pgid)) return true;
  signalGroup(pgid, "SIGTERM");
  if (await waitGroupGone(pgid, graceMs, hurry)) return true;
  signalGroup(pgid, "SIGKILL");
  return waitGroupGone(pgid, Math.max(graceMs, 250));
}
