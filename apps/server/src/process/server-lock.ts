/**
 * `<root>/server.lock`: one server per data root.
 *
 * The lock is a JSON file `{pid, port, host, startedAt}` created exclusively (`wx`), so two
 * servers starting at once cannot both win. A lock is live while its pid runs and, once it
 * names a port, that port answers `/api/version` (SPEC §9); otherwise it is stale (a crash,
 * a SIGKILL, a reused pid) and is taken over. The port is written in after listening
 * (temp file + rename); release removes the file only if it is still ours.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface LockInfo {
  pid: number;
  port: number | null;
  host: string;
  startedAt: string;
}

export const LOCK_FILE = "server.lock";

export type LockProbe = (info: LockInfo) => Promise<boolean>;

export class ServerAlreadyRunningError extends Error {
  readonly info: LockInfo;
  readonly url: string;

  constructor(info: LockInfo) {
    const url = lockUrl(info);
    super(`a PenguinHarness server is already running for this data root at ${url} (pid ${info.pid})`);
    this.name = "ServerAlreadyRunningError";
    this.info = info;
    this.url = url;
  }
}

export class ServerLock {
  readonly file: string;
  #info: LockInfo;

  constructor(file: string, info: LockInfo) {
    this.file = file;
    this.#info = info;
  }

  setPort(port: number, host: string): void {
    this.#info = { ...this.#info, port, host };
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.#info), { mode: 0o600 });
    renameSync(tmp, this.file);
  }

  release(): void {
    const current = readLock(this.file);
    if (current === undefined || current.pid === this.#info.pid) rmSync(this.file, { force: true });
  }
}

export async function acquireServerLock(root: string, host: string, options: { pid?: number; now?: () => number; probe?: LockProbe } = {}): Promise<ServerLock> {
  const file = join(root, LOCK_FILE);
  const info: LockInfo = { pid: options.pid ?? process.pid, port: null, host, startedAt: new Date((options.now ?? Date.now)()).toISOString() };
  const probe = options.probe ?? probeVersion;
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      writeFileSync(file, JSON.stringify(info), { flag: "wx", mode: 0o600 });
      return new ServerLock(file, info);
    } catch (error) {
      if (!isExists(error)) throw error;
    }
    const held = readLock(file);
    if (held !== undefined && (await isLive(held, probe))) throw new ServerAlreadyRunningError(held);
    if (held === undefined && attempt === 0) {
      // Possibly a server writing its lock this very moment: look once more before taking over.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const again = readLock(file);
      if (again !== undefined && (await isLive(again, probe))) throw new ServerAlreadyRunningError(again);
    }
    rmSync(file, { force: true });
  }
  throw new Error(`could not take ${file}: another process keeps recreating it`);
}

/** The live server of a root, if any (for `penguin web` to attach to). */
export async function runningServer(root: string, probe: LockProbe = probeVersion): Promise<LockInfo | undefined> {
  const held = readLock(join(root, LOCK_FILE));
  return held !== undefined && (await isLive(held, probe)) ? held : undefined;
}

/** The URL of the live server of a root (for `penguin attach`), or undefined. */
export async function findRunningServer(root: string): Promise<string | undefined> {
  const info = await runningServer(root);
  return info === undefined ? undefined : lockUrl(info);
}

export function lockUrl(info: LockInfo): string {
  return serverUrl(info.host, info.port ?? 0);
}

/** The URL a browser should open for a listening address. */
export function serverUrl(host: string, port: number): string {
  const shown = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
  return `http://${shown.includes(":") ? `[${shown}]` : shown}:${port}`;
}

function readLock(file: string): LockInfo | undefined {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const pid = "pid" in value ? value.pid : undefined;
  const port = "port" in value ? value.port : undefined;
  const host = "host" in value ? value.host : undefined;
  const startedAt = "startedAt" in value ? value.startedAt : undefined;
  if (typeof pid !== "number" || typeof host !== "string") return undefined;
  return { pid, port: typeof port === "number" ? port : null, host, startedAt: typeof startedAt === "string" ? startedAt : "" };
}

async function isLive(info: LockInfo, probe: LockProbe): Promise<boolean> {
  if (!pidAlive(info.pid)) return false;
  if (info.port === null) return true;
  return probe(info);
}

export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return typeof error === "object" && error !== null && "code" in error && error.code === "EPERM";
  }
}

async function probeVersion(info: LockInfo): Promise<boolean> {
  try {
    const res = await fetch(`${lockUrl(info)}/api/version`, { signal: AbortSignal.timeout(1500) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

function isExists(error: unknown): boolean {
  return typeof error === "object" && error !== null && "code" in error && error.code === "EEXIST";
}
