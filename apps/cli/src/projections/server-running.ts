/**
 * Whether a server is running on a data root, read from its `server.lock` (`{pid, …}`)
 * without loading the server: the lock is live while its pid runs. An offline rebuild swaps
 * `projections.db` under whoever has it open, so the CLI refuses to while a server runs.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export function runningServerPid(root: string): number | undefined {
  let pid: unknown;
  try {
    pid = (JSON.parse(readFileSync(join(root, "server.lock"), "utf8")) as { pid?: unknown }).pid;
  } catch {
    return undefined;
  }
  if (typeof pid !== "number" || !Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM" ? pid : undefined;
  }
}
