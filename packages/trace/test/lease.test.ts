// The session lease (src/lease.ts) on real files with real processes: acquire and release, a
// refusal naming the holder (in this process and in another one), a stale lease of a dead pid
// taken over, the takeover race among several child processes (exactly one wins), a lease of
// another host (or another pid namespace of this one) never taken over, pid reuse (a live pid with another start time is not the
// holder), a taker that died holding its marker, an unreadable lease, and release on exit.
// Children are a small bundle of the contender fixture; every wait is for a line or an exit.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { acquireLease, LeaseHeldError, readLease, type LeaseHolder } from "../src/lease.js";
import { procStat, thisProcess } from "../src/process-identity.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/lease-contender.ts", import.meta.url));
let bundleDir: string;
let contender: string;
let dir: string;
let file: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  bundleDir = mkdtempSync(join(tmpdir(), "penguin-lease-bundle-"));
  contender = join(bundleDir, "lease-contender.mjs");
  await build({ entryPoints: [FIXTURE], outfile: contender, bundle: true, platform: "node", format: "esm", target: "node20", logLevel: "silent" });
});
afterAll(() => rmSync(bundleDir, { recursive: true, force: true }));
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "penguin-lease-"));
  file = join(dir, "session-2026-12-03-10-00-00-0123abcd.lease");
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

/** Lines a child prints, awaited one by one. */
function lines(child: ChildProcess): () => Promise<string> {
  const queue: string[] = [];
  const waiting: ((l: string) => void)[] = [];
  let partial = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    partial += chunk.toString("utf8");
    const parts = partial.split("\n");
    partial = parts.pop() ?? "";
    for (const l of parts) {
      const w = waiting.shift();
      if (w === undefined) queue.push(l);
      else w(l);
    }
  });
  return () => {
    const l = queue.shift();
    if (l !== undefined) return Promise.resolve(l);
    return new Promise((resolve, reject) => {
      waiting.push(resolve);
      child.once("exit", (code) => reject(new Error(`child exited (${code}) before printing a line`)));
    });
  };
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())));
}

/** A contender child, ready to `go`. */
async function startContender(command = "lease-contender"): Promise<{ child: ChildProcess; next: () => Promise<string> }> {
  const child = spawn(process.execPath, [contender, file, command], { stdio: ["pipe", "pipe", "inherit"] });
  children.push(child);
  const next = lines(child);
  expect(await next()).toBe("ready");
  return { child, next };
}

/** The pid of a process that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  const pid = child.pid!;
  await exited(child);
  return pid;
}

/** A process that runs until killed (reaped by the afterEach). */
function liveProcess(): ChildProcess {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1 << 30)"], { stdio: "ignore" });
  children.push(child);
  return child;
}

function plant(holder: Partial<LeaseHolder> & { pid: number }, at = file): LeaseHolder {
  const h: LeaseHolder = { host: hostname(), command: "penguin chat", since: "2026-12-03T10:00:00.000Z", token: "ab".repeat(16), ...holder };
  writeFileSync(at, `${JSON.stringify(h)}\n`);
  return h;
}

function refusal(fn: () => unknown): LeaseHeldError {
  try {
    fn();
  } catch (error) {
    if (error instanceof LeaseHeldError) return error;
    throw error;
  }
  throw new Error("expected a LeaseHeldError");
}

describe("session lease", () => {
  it("is acquired with its holder's identity and released", () => {
    const lease = acquireLease(file, "penguin run", new Date("2026-12-03T10:11:12.000Z"));
    const onDisk = readLease(file)?.holder;
    expect(onDisk).toEqual(lease.holder);
    expect(onDisk).toMatchObject({ pid: process.pid, host: hostname(), command: "penguin run", since: "2026-12-03T10:11:12.000Z" });
    expect(onDisk?.token).toMatch(/^[0-9a-f]{32}$/);
    if (existsSync("/proc/self/stat")) expect(onDisk?.pidStart).toBe(procStat(process.pid)?.start);
    lease.release();
    expect(existsSync(file)).toBe(false);
    // Nothing else is left beside it, and it can be taken again.
    expect(readdirSync(dir)).toEqual([]);
    acquireLease(file, "penguin run").release();
  });

  it("refuses a second holder in the same process, naming the first", () => {
    const first = acquireLease(file, "penguin chat");
    const before = readFileSync(file);
    const e = refusal(() => acquireLease(file, "penguin run"));
    expect(e.refusal).toBe("held");
    expect(e.holder).toMatchObject({ pid: process.pid, command: "penguin chat", token: first.holder.token });
    expect(readFileSync(file)).toEqual(before);
    first.release();
  });

  it("refuses while another process holds it, naming that process; it is free once that process exits", async () => {
    const other = await startContender("penguin chat");
    other.child.stdin!.write("go\n");
    expect(await other.next()).toMatch(/^won /);
    const e = refusal(() => acquireLease(file, "penguin run"));
    expect(e.holder).toMatchObject({ pid: other.child.pid, command: "penguin chat", host: hostname() });
    expect(e.message).toContain(`pid ${other.child.pid} on host ${hostname()} (penguin chat) since `);
    // A normal exit releases it (the exit hook).
    other.child.stdin!.end();
    await exited(other.child);
    expect(existsSync(file)).toBe(false);
    acquireLease(file, "penguin run").release();
  });

  it("takes over the lease of a dead process", async () => {
    const stale = plant({ pid: await deadPid() });
    const lease = acquireLease(file, "penguin run");
    expect(readLease(file)?.holder).toEqual(lease.holder);
    expect(lease.holder.token).not.toBe(stale.token);
    lease.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it("lets exactly one of several processes take over one stale lease", async () => {
    plant({ pid: await deadPid() });
    const n = 6;
    const contenders = await Promise.all(Array.from({ length: n }, () => startContender()));
    for (const c of contenders) c.child.stdin!.write("go\n");
    const results = await Promise.all(contenders.map((c) => c.next()));
    const winners = results.flatMap((r, i) => (r.startsWith("won ") ? [i] : []));
    expect(results.filter((r) => r.startsWith("error"))).toEqual([]);
    expect(winners).toHaveLength(1);
    const winner = contenders[winners[0]!]!;
    expect(readLease(file)?.holder).toMatchObject({ pid: winner.child.pid, token: results[winners[0]!]!.slice(4) });
    // Every loser was refused naming a live process (the winner, or the winner while it took over).
    for (const r of results.filter((x) => !x.startsWith("won "))) expect(r).toBe(`busy ${r.split(" ")[1]} ${winner.child.pid}`);
    // No marker or temp file is left beside it once everyone has finished.
    for (const c of contenders) c.child.stdin!.end();
    await Promise.all(contenders.map((c) => exited(c.child)));
    expect(readdirSync(dir)).toEqual([]);
  });

  it("never takes over a lease of another host", async () => {
    plant({ pid: await deadPid(), host: "elsewhere.example" });
    const before = readFileSync(file);
    const e = refusal(() => acquireLease(file, "penguin run"));
    expect(e.refusal).toBe("other_host");
    expect(e.holder.host).toBe("elsewhere.example");
    expect(readFileSync(file)).toEqual(before);
  });

  it.runIf(existsSync("/proc/self/ns/pid"))("never takes over a lease of another pid namespace (a container) of this host", async () => {
    plant({ pid: await deadPid(), pidns: "pid:[1]" });
    const before = readFileSync(file);
    const e = refusal(() => acquireLease(file, "penguin run"));
    expect(e.refusal).toBe("other_host");
    expect(e.message).toContain(`on host ${hostname()} in another pid namespace (pid:[1])`);
    expect(readFileSync(file)).toEqual(before);
  });

  it.runIf(existsSync("/proc/self/stat"))("tells a reused pid from the holder by its start time", async () => {
    const reused = liveProcess();
    await new Promise<void>((resolve) => reused.once("spawn", () => resolve()));
    const start = procStat(reused.pid!)!.start;
    // The same live pid with its real start time is the holder: refused.
    plant({ pid: reused.pid!, pidStart: start, boot: thisProcess().boot });
    expect(refusal(() => acquireLease(file, "penguin run")).holder.pid).toBe(reused.pid);
    // A lease naming that pid with another start time was left by an earlier process: taken over.
    plant({ pid: reused.pid!, pidStart: String(Number(start) - 1), boot: thisProcess().boot });
    const lease = acquireLease(file, "penguin run");
    expect(readLease(file)?.holder?.pid).toBe(process.pid);
    lease.release();
    // And a lease of this very pid that this process does not hold (an earlier process had the pid).
    plant({ pid: process.pid, pidStart: "1", boot: thisProcess().boot });
    acquireLease(file, "penguin run").release();
  });

  it("takes over past a taker that died holding its marker, and removes the leftovers", async () => {
    const stale = plant({ pid: await deadPid() });
    plant({ pid: await deadPid(), token: "cd".repeat(16), command: "a taker that crashed" }, `${file}.takeover-${stale.token}`);
    plant({ pid: await deadPid(), token: "ef".repeat(16) }, `${file}.${"ef".repeat(16)}.tmp`);
    const lease = acquireLease(file, "penguin run");
    expect(readLease(file)?.holder?.token).toBe(lease.holder.token);
    expect(readdirSync(dir)).toEqual([file.slice(dir.length + 1)]);
    lease.release();
  });

  it("leaves a temp file that does not name its writer yet: a live contender between its create and its write", async () => {
    plant({ pid: await deadPid() });
    // What another contender's temp file is for a moment: created (O_EXCL), not yet written.
    const contender = `${file}.${"ab".repeat(16)}.tmp`;
    writeFileSync(contender, "");
    const lease = acquireLease(file, "penguin run");
    expect(readLease(file)?.holder?.token).toBe(lease.holder.token);
    expect(existsSync(contender)).toBe(true);
    lease.release();
  });

  it("refuses while a live process takes the stale lease over", async () => {
    const stale = plant({ pid: await deadPid() });
    const taker = liveProcess();
    await new Promise<void>((resolve) => taker.once("spawn", () => resolve()));
    plant({ pid: taker.pid!, token: "cd".repeat(16) }, `${file}.takeover-${stale.token}`);
    const e = refusal(() => acquireLease(file, "penguin run"));
    expect(e.refusal).toBe("taking_over");
    expect(e.holder.pid).toBe(taker.pid);
  });

  it("takes over a lease no holder could have written (unreadable)", () => {
    writeFileSync(file, "");
    acquireLease(file, "penguin run").release();
    writeFileSync(file, "{\"pid\": 0}\n");
    acquireLease(file, "penguin run").release();
    expect(readdirSync(dir)).toEqual([]);
  });
});
