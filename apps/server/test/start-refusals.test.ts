// A data root the server cannot use stops it at start with a sentence naming the path and what
// to do, and changes nothing: a facts.db that is not a SQLite database (garbage written over
// it, a write-ahead log beside it) is refused without SQLite touching it, so the -wal file is
// still there, byte for byte; a read-only data root (a tmpfs remounted read-only, since root
// ignores permission bits; skipped visibly where mounting is not permitted) is said to be
// read-only. Each case runs the real server as a child process and reads its stderr.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createServerApp } from "../src/app.js";
import { spawnServer, type ServerChild } from "./helpers/child.js";
import { skippedForTmpfs, tmpfsMountRefusal } from "./helpers/tmpfs.js";

const cannotMount = tmpfsMountRefusal();
const suffix = skippedForTmpfs(cannotMount);

const dirs: string[] = [];
const mounts: string[] = [];
const children: ServerChild[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.proc.exitCode === null) c.proc.kill("SIGKILL");
  for (const m of mounts.splice(0)) execFileSync("umount", ["-l", m]);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** A tmpfs remounted read-only, holding what `prepare` wrote while it was writable. */
function readOnlyRoot(prepare: (dir: string) => void = () => undefined): string {
  const dir = tempDir("penguin-ro-root-");
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", dir]);
  mounts.push(dir);
  prepare(dir);
  execFileSync("mount", ["-o", "remount,ro", dir]);
  return dir;
}

async function startAndFail(root: string): Promise<{ code: number | null; stderr: string }> {
  const child = spawnServer(["--root", root, "--port", "0", "--no-open", "--workspace-root", tmpdir()]);
  children.push(child);
  const code = await child.exited;
  return { code, stderr: child.err.join("\n") };
}

describe("a corrupt facts.db", { timeout: 60_000 }, () => {
  it("stops the server with a message naming the file and what to do, leaving its -wal and -shm in place", async () => {
    const root = tempDir("penguin-corrupt-facts-");
    const facts = join(root, "facts.db");
    writeFileSync(facts, Buffer.alloc(8192, 0x5a));
    const wal = Buffer.concat([Buffer.from([0x37, 0x7f, 0x06, 0x82]), Buffer.alloc(4092, 0x11)]);
    writeFileSync(`${facts}-wal`, wal);
    writeFileSync(`${facts}-shm`, Buffer.alloc(32768, 0));
    const { code, stderr } = await startAndFail(root);
    expect(code).toBe(1);
    expect(stderr).toContain(`could not start the server: ${facts} is not a SQLite database`);
    expect(stderr).toContain("-wal and -shm files (if any) are left in place");
    expect(stderr).toContain(`Restore ${facts} from a backup`);
    expect(stderr).not.toContain("internal error");
    expect(readFileSync(`${facts}-wal`).equals(wal)).toBe(true);
    expect(existsSync(`${facts}-shm`)).toBe(true);
    expect(readFileSync(facts).equals(Buffer.alloc(8192, 0x5a))).toBe(true);
  });
});

describe(`a read-only data root${suffix}`, { timeout: 60_000 }, () => {
  it.skipIf(cannotMount !== undefined)("stops the server saying read-only and naming the path", async () => {
    const root = readOnlyRoot();
    const { code, stderr } = await startAndFail(root);
    expect(code).toBe(1);
    expect(stderr).toContain(`could not start the server: the data root ${root} is on a read-only file system`);
    expect(stderr).toContain("remount it read-write");
  });

  it.skipIf(cannotMount !== undefined)("refuses the same way when the app is built in-process (the library entry)", async () => {
    const root = readOnlyRoot();
    await expect(createServerApp({ root, env: {}, generateTitles: false })).rejects.toThrow(`the data root ${root} is on a read-only file system`);
  });
});
