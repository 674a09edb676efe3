// A real PostgreSQL server for tests, the one helper every Postgres test uses: `initdb` into a
// temp folder, `postgres` listening only on a Unix socket in that folder (no port to race for),
// readiness awaited by polling a connection, never by sleeping. As root (CI, this machine)
// PostgreSQL refuses to run, so it runs as `nobody`, the folder handed to that user.
// Each test gets its own database (`createDatabase`), named after what it is for, so tests
// sharing one server never see each other's rows; `databaseUrl(name)` is its postgres:// URL.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

export interface PostgresServer {
  /** The folder holding the data directory and the socket. */
  dir: string;
  /** A postgres:// URL of database `name` (default: the `postgres` maintenance database). */
  databaseUrl(name?: string): string;
  /** Creates database `name` (dropping one left by an earlier run) and returns its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

const SUPERUSER = "penguin";

/** initdb and postgres: on PATH (this image's /usr/local/bin), else Debian's versioned folder. */
export function postgresBinary(name: "initdb" | "postgres"): string {
  for (const dir of (process.env.PATH ?? "").split(":")) if (dir !== "" && existsSync(join(dir, name))) return join(dir, name);
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) {
    for (const version of readdirSync(debian).sort().reverse()) {
      const candidate = join(debian, version, "bin", name);
      if (existsSync(candidate)) return candidate;
    }
  }
  throw new Error(`PostgreSQL's ${name} was not found on PATH nor under /usr/lib/postgresql/*/bin: install Debian's postgresql package (.ci/run does when it is missing)`);
}

/** Who PostgreSQL runs as: this process's user, or `nobody` when this process is root. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync("/etc/passwd", "utf8").split("\n").find((l) => l.startsWith("nobody:"));
  if (line === undefined) throw new Error("running as root, PostgreSQL needs another user to run as, and /etc/passwd has no `nobody`");
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

export function socketUrl(dir: string, database = "postgres"): string {
  return `postgres://${SUPERUSER}@localhost/${encodeURIComponent(database)}?host=${encodeURIComponent(dir)}`;
}

export async function startPostgres(): Promise<PostgresServer> {
  const dir = mkdtempSync(join(tmpdir(), "penguin-pg-"));
  const data = join(dir, "data");
  const user = runAs();
  if (user !== undefined) chownSync(dir, user.uid, user.gid);
  const owner = user === undefined ? {} : { uid: user.uid, gid: user.gid };
  const init = spawnSync(postgresBinary("initdb"), ["-D", data, "-U", SUPERUSER, "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions"], { ...owner, encoding: "utf8", cwd: dir });
  if (init.status !== 0) throw new Error(`initdb failed (${init.status}): ${init.stderr || init.stdout}`);
  const server: ChildProcess = spawn(
    postgresBinary("postgres"),
    ["-D", data, "-k", dir, "-c", "listen_addresses=", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=200"],
    { ...owner, cwd: dir, stdio: ["ignore", "ignore", "pipe"] },
  );
  let log = "";
  server.stderr?.on("data", (chunk: Buffer) => void (log = (log + chunk.toString()).slice(-4000)));
  const exited = new Promise<number | null>((resolve) => server.once("exit", (code) => resolve(code)));
  let stopped = false;
  await untilAccepting(dir, exited, () => log);
  return {
    dir,
    databaseUrl: (name) => socketUrl(dir, name),
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: socketUrl(dir) });
      await client.connect();
      try {
        await client.query(`drop database if exists "${name}" with (force)`);
        await client.query(`create database "${name}"`);
      } finally {
        await client.end();
      }
      return socketUrl(dir, name);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      // SIGINT: PostgreSQL's fast shutdown (clients disconnected, no wait for them to leave).
      if (server.exitCode === null && server.signalCode === null) server.kill("SIGINT");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls a connection until the server accepts one; fails at once if the server exits. */
async function untilAccepting(dir: string, exited: Promise<number | null>, log: () => string): Promise<void> {
  let gone: number | null | undefined;
  void exited.then((code) => void (gone = code));
  for (;;) {
    if (gone !== undefined) throw new Error(`postgres exited (${gone}) before accepting connections:\n${log()}`);
    const client = new pg.Client({ connectionString: socketUrl(dir) });
    client.on("error", () => undefined);
    try {
      await client.connect();
      await client.query("select 1");
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
      // The socket appears only once the server listens: wait for the next turn of the loop.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
