/**
 * The memo of a sandbox probe that said yes, shared by the processes of one data root
 * (`<root>/.cache/sandbox-probe.json`), so a start finds the answer without starting bwrap.
 * Only a yes is kept: a failed probe leaves nothing, so installing bwrap or enabling user
 * namespaces counts at once, and a memo can never turn the sandbox off. The yes holds while its
 * fingerprint does: the bwrap file found (path and stat), the probe's own arguments, the kernel,
 * the uid and the user-namespace sysctls. Any other file (torn, hand-edited, another format or
 * machine) is ignored and replaced after a fresh probe; nothing here throws. Checked by hand
 * rather than with effect/Schema: it runs before core loads, on every run start.
 */
import { accessSync, constants, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { release } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";

const FORMAT = "penguin-sandbox-probe/1";
/** What a sysctl file that cannot be read counts as. */
const ABSENT = "(absent)";
/** The kernel's switches for unprivileged user namespaces (Debian's, the general one, Ubuntu's AppArmor one). */
const USERNS_SWITCHES = [
  "/proc/sys/kernel/unprivileged_userns_clone",
  "/proc/sys/user/max_user_namespaces",
  "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
];

/** One memo file and the fingerprint of this machine that its yes must match. */
export interface ProbeMemo {
  file: string;
  /** The fingerprint as the memo spells it (JSON, fixed key order). */
  fingerprint: string;
}

/**
 * The memo for probing `bwrapPath` with `probeArguments`, or undefined when the executable
 * cannot be found (the probe then says why; there is nothing to remember).
 */
export function probeMemo(file: string, bwrapPath: string, probeArguments: readonly string[]): ProbeMemo | undefined {
  const bwrap = findExecutable(bwrapPath);
  if (bwrap === undefined) return undefined;
  const switches: Record<string, string> = {};
  for (const path of USERNS_SWITCHES) switches[path] = readSwitch(path);
  const fingerprint = {
    bwrap: bwrap.path,
    dev: bwrap.dev,
    ino: bwrap.ino,
    size: bwrap.size,
    mtimeMs: bwrap.mtimeMs,
    probe: probeArguments.join(" "),
    kernel: release(),
    uid: process.getuid?.() ?? -1,
    switches,
  };
  return { file, fingerprint: JSON.stringify(fingerprint) };
}

/** Whether the memo file holds a yes for this very fingerprint. */
export function memoSaysAvailable(memo: ProbeMemo): boolean {
  try {
    const stored: unknown = JSON.parse(readFileSync(memo.file, "utf8"));
    if (typeof stored !== "object" || stored === null) return false;
    const { format, available, fingerprint } = stored as Record<string, unknown>;
    return format === FORMAT && available === true && JSON.stringify(fingerprint) === memo.fingerprint;
  } catch {
    return false;
  }
}

let writes = 0;

/** Writes the yes (temp file + rename, owner-only); a folder that cannot be written just leaves no memo. */
export function rememberAvailable(memo: ProbeMemo): void {
  const temp = `${memo.file}.${process.pid}-${++writes}.tmp`;
  try {
    mkdirSync(dirname(memo.file), { recursive: true, mode: 0o700 });
    const text = `{"format":${JSON.stringify(FORMAT)},"available":true,"fingerprint":${memo.fingerprint}}\n`;
    writeFileSync(temp, text, { mode: 0o600, flag: "wx" });
    renameSync(temp, memo.file);
  } catch {
    try {
      unlinkSync(temp);
    } catch {
      // Never written: nothing to clean.
    }
  }
}

/** The file spawn would run for `command`: a path as given, else the first executable on PATH. */
function findExecutable(command: string): { path: string; dev: number; ino: number; size: number; mtimeMs: number } | undefined {
  const candidates = command.includes("/") ? [command] : (process.env.PATH ?? "").split(delimiter).map((dir) => join(dir === "" ? "." : dir, command));
  for (const candidate of candidates) {
    try {
      const stat = statSync(candidate);
      if (!stat.isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return { path: resolve(candidate), dev: stat.dev, ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs };
    } catch {
      // Not there, or not executable: spawn would go on to the next folder too.
    }
  }
  return undefined;
}

function readSwitch(path: string): string {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return ABSENT;
  }
}
