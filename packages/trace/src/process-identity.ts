/**
 * Who a process is, well enough to tell later whether it still runs: its pid, the host it runs
 * on, when the kernel started it and which boot of the machine that was. A pid alone is not
 * enough: pids are reused, so a lease naming pid 4242 may outlive its holder and then name an
 * unrelated process. Where `/proc` exists (Linux) the start time of the pid (field 22 of
 * `/proc/<pid>/stat`, clock ticks since boot) and the boot id tell the two apart; elsewhere
 * `kill(pid, 0)` is all there is. A pid only means something inside its pid namespace (a
 * container has its own), so the namespace is recorded too: a process in another one cannot
 * judge whether the holder runs, as for another host.
 */
import { readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";

export interface ProcessIdentity {
  pid: number;
  host: string;
  /** The kernel's start time of the pid, where `/proc` has it. */
  pidStart?: string;
  /** `/proc/sys/kernel/random/boot_id`, where it exists. */
  boot?: string;
  /** The pid namespace (`/proc/self/ns/pid`, e.g. `pid:[4026531836]`), where it can be read. */
  pidns?: string;
}

let pidNamespace: string | null | undefined;

/** This process's pid namespace, or undefined where the system does not say. */
export function currentPidNamespace(): string | undefined {
  if (pidNamespace === undefined) {
    try {
      pidNamespace = readlinkSync("/proc/self/ns/pid") || null;
    } catch {
      pidNamespace = null;
    }
  }
  return pidNamespace ?? undefined;
}

let bootId: string | null | undefined;

/** The current boot of this machine, or undefined where the system does not say. */
export function currentBootId(): string | undefined {
  if (bootId === undefined) {
    try {
      bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || null;
    } catch {
      bootId = null;
    }
  }
  return bootId ?? undefined;
}

/** The start time and state of a pid from `/proc/<pid>/stat`, or undefined without `/proc` or that pid. */
export function procStat(pid: number): { start: string; zombie: boolean } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const state = fields[0];
  const start = fields[19];
  if (state === undefined || start === undefined) return undefined;
  return { start, zombie: state === "Z" || state === "X" };
}

/** This process, as a lease records it. */
export function thisProcess(): ProcessIdentity {
  const me: ProcessIdentity = { pid: process.pid, host: hostname() };
  const start = procStat(process.pid)?.start;
  if (start !== undefined) me.pidStart = start;
  const boot = currentBootId();
  if (boot !== undefined) me.boot = boot;
  const pidns = currentPidNamespace();
  if (pidns !== undefined) me.pidns = pidns;
  return me;
}

/**
 * Whether the process a record names (on this host) is gone: no such pid, a zombie, another
 * process under the same pid (a different start time), or a pid of an earlier boot.
 */
export function processIsGone(who: ProcessIdentity): boolean {
  const boot = currentBootId();
  if (who.boot !== undefined && boot !== undefined && who.boot !== boot) return true;
  try {
    process.kill(who.pid, 0);
  } catch (error) {
    // EPERM: the pid exists but belongs to another user; it runs.
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return true;
  }
  const stat = procStat(who.pid);
  if (stat === undefined) return false;
  if (stat.zombie) return true;
  return who.pidStart !== undefined && stat.start !== who.pidStart;
}
