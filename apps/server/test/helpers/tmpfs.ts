// Whether this test process may mount a tmpfs (root, or a user namespace that allows it): the
// full-disk and read-only tests mount a small one, and skip visibly, naming why, where they
// cannot. Probed once per test file by mounting and unmounting a 64 KiB tmpfs.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Undefined when mounting works; else the first line of what `mount` said. */
export function tmpfsMountRefusal(): string | undefined {
  const at = mkdtempSync(join(tmpdir(), "penguin-tmpfs-probe-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", at], { stdio: "pipe" });
    execFileSync("umount", [at], { stdio: "pipe" });
    return undefined;
  } catch (error) {
    return error instanceof Error ? (error.message.split("\n")[0] ?? error.message) : String(error);
  } finally {
    rmSync(at, { recursive: true, force: true });
  }
}

/** The suffix a skipped suite's name carries: empty where mounting works. */
export function skippedForTmpfs(refusal: string | undefined): string {
  return refusal === undefined ? "" : ` (skipped: mounting a tmpfs is not permitted here: ${refusal})`;
}
