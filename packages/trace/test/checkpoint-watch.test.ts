// Checkpoints after a tool call from a file watch (workspace-watch.ts, changed-scan.ts), on
// real folders, real inotify and real child processes: the checkpoint that looks only at
// the paths the watch named is the one a full scan of the workspace gives, through renames,
// removals, folders made again, links and mode changes; writes made inside bwrap (the
// workspace bind-mounted) are seen; every event of a command that has ended is in before the
// checkpoint; a burst that overflows the kernel's queue, or a .gitignore change, falls back
// to a full scan; closing leaves no inotify watch behind.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, watch, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WorkspaceCheckpoints } from "../src/checkpoints/workspace-checkpoints.js";

const made: string[] = [];
const open: WorkspaceCheckpoints[] = [];
const temp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
};
afterEach(() => {
  for (const c of open.splice(0)) c.close();
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const sh = (cwd: string, script: string) => execFileSync("sh", ["-c", script], { cwd });

function watched(ws: string): WorkspaceCheckpoints {
  const checkpoints = new WorkspaceCheckpoints(temp("ckw-store-"), ws);
  open.push(checkpoints);
  checkpoints.watch();
  return checkpoints;
}

/** The tree id a fresh full scan of `ws` gives (the same state always has the same id). */
const fullScanTree = (ws: string): string | undefined => new WorkspaceCheckpoints(temp("ckw-ref-"), ws).take()?.tree;

/** Inodes watched by this process's inotify descriptors (from /proc/self/fdinfo). */
function inotifyWatchedInodes(): Set<number> {
  const out = new Set<number>();
  for (const fd of readdirSync("/proc/self/fd")) {
    let target = "";
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    if (target !== "anon_inode:inotify") continue;
    for (const match of readFileSync(`/proc/self/fdinfo/${fd}`, "utf8").matchAll(/inotify wd:[0-9a-f]+ ino:([0-9a-f]+) /g)) out.add(Number.parseInt(match[1]!, 16));
  }
  return out;
}

describe.runIf(process.platform === "linux")("checkpoints from a file watch", () => {
  it("looks only at the named paths and gives the tree a full scan gives, step after step", async () => {
    const ws = temp("ckw-ws-");
    sh(ws, "mkdir -p a/b keep && echo x > a/b/x.txt && echo y > y.txt && echo k > keep/k");
    const checkpoints = watched(ws);
    expect((await checkpoints.takeChanged())?.scan).toBe("full");
    const steps: [string, string[]][] = [
      ["echo x2 > a/b/x.txt", ["a/b/x.txt"]],
      ["mkdir -p new/deep && echo z > new/deep/z && mkdir empty", ["empty", "new", "new/deep", "new/deep/z"]],
      ["mv a c && chmod +x y.txt && ln -s y.txt link", ["a", "a/b", "a/b/x.txt", "c", "c/b", "c/b/x.txt", "link", "y.txt"]],
      ["echo x3 > c/b/x.txt", ["c/b/x.txt"]],
      // A folder removed and made again (ext4 may give it its old inode back).
      ["rm -rf c && mkdir c && echo q > c/q", ["c/b", "c/b/x.txt", "c/q"]],
      ["echo q2 > c/q && rm keep/k && rmdir keep", ["c/q", "keep", "keep/k"]],
      ["rm link && mkdir link && echo in > link/in", ["link", "link/in"]],
      ["rm -r link && echo now-a-file > link && chmod 700 new", ["link", "link/in", "new"]],
      ["printf same > y.txt && printf SAME > y.txt", ["y.txt"]],
    ];
    for (const [script, changed] of steps) {
      sh(ws, script);
      const taken = await checkpoints.takeChanged();
      expect({ script, scan: taken?.scan, changed: taken?.changed }).toEqual({ script, scan: "changed-paths", changed });
      expect(taken?.tree).toBe(fullScanTree(ws));
    }
    expect(await checkpoints.takeChanged()).toBeUndefined();
  });

  it("sees writes made inside bwrap, the workspace bind-mounted", async () => {
    const ws = temp("ckw-ws-");
    sh(ws, "mkdir sub && echo before > sub/edit.txt");
    const checkpoints = watched(ws);
    await checkpoints.takeChanged();
    execFileSync("/usr/bin/bwrap", ["--ro-bind", "/", "/", "--bind", ws, ws, "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--chdir", ws, "sh", "-c", "echo made > sub/new.txt && sed -i s/before/after/ sub/edit.txt && mkdir sub/deeper && echo d > sub/deeper/d"]);
    const taken = await checkpoints.takeChanged();
    expect(taken?.scan).toBe("changed-paths");
    expect(taken?.changed).toEqual(["sub/deeper", "sub/deeper/d", "sub/edit.txt", "sub/new.txt"]);
    expect(taken?.tree).toBe(fullScanTree(ws));
  });

  it("has every event of a command that ended asynchronously before it looks", async () => {
    const ws = temp("ckw-ws-");
    mkdirSync(join(ws, "out"));
    const checkpoints = watched(ws);
    await checkpoints.takeChanged();
    for (let round = 0; round < 5; round++) {
      // An asynchronous child: its exit and its file events reach the loop separately.
      await new Promise<void>((resolve, reject) => {
        const child = spawn("sh", ["-c", `for i in $(seq 1 300); do echo ${round} > out/f$i; done`], { cwd: ws });
        child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
      });
      const taken = await checkpoints.takeChanged();
      expect(taken?.scan).toBe("changed-paths");
      expect(taken?.changed.length).toBe(300);
      expect(taken?.tree).toBe(fullScanTree(ws));
    }
  });

  it("falls back to a full scan after a burst that overflows the kernel's queue, and after a .gitignore change", async () => {
    const ws = temp("ckw-ws-");
    mkdirSync(join(ws, "many"));
    const checkpoints = watched(ws);
    await checkpoints.takeChanged();
    // The loop is blocked while the child runs (execFileSync): more events than the queue holds.
    const limit = Number(readFileSync("/proc/sys/fs/inotify/max_queued_events", "utf8"));
    // A watch of the test's own on the same folder shares the queue: once it has had the
    // queue's worth of events, the loop has read them, so the next checkpoint's marker comes
    // back at once and only the size of that burst can tell that events were lost.
    const read = new Promise<void>((resolve) => {
      let count = 0;
      const own = watch(join(ws, "many"), () => {
        if (++count !== limit - 100) return;
        own.close();
        resolve();
      });
    });
    sh(join(ws, "many"), `i=0; while [ $i -lt ${limit + 2000} ]; do : > f$i; i=$((i+1)); done`);
    sh(ws, ": > late");
    await read;
    const burst = await checkpoints.takeChanged();
    expect(burst?.scan).toBe("full");
    expect(burst?.changed.length).toBe(limit + 2000 + 1);
    expect(burst?.tree).toBe(fullScanTree(ws));
    writeFileSync(join(ws, "a.log"), "ignored from now on");
    expect((await checkpoints.takeChanged())?.changed).toEqual(["a.log"]);
    writeFileSync(join(ws, ".gitignore"), "*.log\n");
    const ignored = await checkpoints.takeChanged();
    expect(ignored?.scan).toBe("full");
    expect(ignored?.changed).toEqual([".gitignore", "a.log"]);
  }, 120_000);

  it("watches a workspace reached through a link (its watch is on the target folder)", async () => {
    const root = temp("ckw-link-");
    sh(root, "mkdir -p real/sub && ln -s real ws");
    const checkpoints = watched(join(root, "ws"));
    await checkpoints.takeChanged();
    expect(checkpoints.watchOff).toBeUndefined();
    writeFileSync(join(root, "ws", "sub", "x"), "x");
    const taken = await checkpoints.takeChanged();
    expect({ scan: taken?.scan, changed: taken?.changed }).toEqual({ scan: "changed-paths", changed: ["sub/x"] });
  });

  it("keeps to full scans above the folder limit", async () => {
    const ws = temp("ckw-ws-");
    sh(ws, "mkdir -p a b c d && echo 1 > a/1");
    const checkpoints = new WorkspaceCheckpoints(temp("ckw-store-"), ws);
    open.push(checkpoints);
    checkpoints.watch({ maxFolders: 3 });
    await checkpoints.takeChanged();
    expect(checkpoints.watchOff).toMatch(/more than 3 folders/);
    sh(ws, "echo 2 > a/1");
    const taken = await checkpoints.takeChanged();
    expect(taken?.scan).toBe("full");
    expect(taken?.changed).toEqual(["a/1"]);
  });

  it("leaves no inotify watch behind once closed", async () => {
    const ws = temp("ckw-ws-");
    sh(ws, "mkdir -p a/b && echo 1 > a/b/1");
    const inodes = ["", "a", "a/b"].map((p) => lstatSync(join(ws, p)).ino);
    const checkpoints = watched(ws);
    await checkpoints.takeChanged();
    for (const ino of inodes) expect(inotifyWatchedInodes().has(ino)).toBe(true);
    checkpoints.close();
    for (const ino of inodes) expect(inotifyWatchedInodes().has(ino)).toBe(false);
    expect(existsSync(ws)).toBe(true);
  });
});
