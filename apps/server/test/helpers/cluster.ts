// Several server nodes as real child processes on one data root and one PostgreSQL database
// (a cluster, as issue 32 runs it): each node is `src/main.ts` with `--database`, signed in
// as the admin through its own client, so a scenario says which node it talks to in one line
// (`cluster.node("B").client.post(…)`). Nodes start one after the other (the first creates the
// admin and writes its initial password; the others find it in the shared facts). A node's id
// (the one its lease rows name) is read from its start-up line; `kill` sends it a real signal
// and waits for the process to end, so a failover scenario is one line too.
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { agentPaths, formatPosition, parseTraceText, sessionTraceFiles } from "@penguin/core";
import { dutyKey } from "../../src/db/facts-db.js";
import { ApiClient } from "./client.js";
import { spawnServer, type StartedServers, type ServerChild } from "./child.js";

export interface ClusterNode {
  name: string;
  child: ServerChild;
  url: string;
  /** The id its lease rows and duty holder name (`cluster node <id>` on its stdout). */
  nodeId: string;
  client: ApiClient;
}

export interface ClusterOptions {
  /** Arguments every node gets after the common ones. */
  args?: readonly string[];
  /** Environment of every node (PENGUIN_LEASE_MS for a short failover, say). */
  env?: NodeJS.ProcessEnv;
}

export interface Cluster {
  root: string;
  /** The admin's password (the initial one, kept: its file is gone once it was "changed"). */
  adminPassword: string;
  nodes: ClusterNode[];
  node(name: string): ClusterNode;
  /** Sends `signal` to node `name` and resolves with its exit code once the process is gone. */
  kill(name: string, signal: NodeJS.Signals): Promise<number | null>;
}

export async function signInAt(url: string, password: string): Promise<ApiClient> {
  const client = new ApiClient((u, init) => fetch(u, init), url);
  const res = await client.signIn("admin", password);
  if (res.status !== 200) throw new Error(`sign-in at ${url} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return client;
}

/** Starts nodes named `names` on `root` with facts in `database`; `started` kills them after the test. */
export async function startCluster(started: StartedServers, root: string, database: string, names: readonly string[], options: ClusterOptions = {}): Promise<Cluster> {
  const nodes: ClusterNode[] = [];
  let password: string | undefined;
  for (const name of names) {
    const args = ["--root", root, "--port", "0", "--no-open", "--no-sandbox", "--workspace-root", tmpdir(), "--database", database, ...(options.args ?? [])];
    const child = started.track(spawnServer(args, options.env));
    const url = await child.url();
    const nodeId = /cluster node (\S+)/.exec(await child.line(/cluster node /))?.[1] ?? "";
    password ??= readFileSync(join(root, "initial-admin-password"), "utf8").trim();
    nodes.push({ name, child, url, nodeId, client: await signInAt(url, password) });
  }
  const node = (name: string): ClusterNode => {
    const found = nodes.find((n) => n.name === name);
    if (found === undefined) throw new Error(`no node ${name} (the cluster has ${nodes.map((n) => n.name).join(", ")})`);
    return found;
  };
  return {
    root,
    adminPassword: password ?? "",
    nodes,
    node,
    async kill(name, signal) {
      const { child } = node(name);
      child.proc.kill(signal);
      return child.exited;
    },
  };
}

/** A durable stream id: a trace position `NNN:LLLLLL`. */
export const DURABLE_ID = /^\d{3}:\d{6}$/;

/** The records of a session's trace with their positions as ids, as a reader of the files finds them. */
export function traceRecordsOf(root: string, sessionId: string, projectId = "default_project", agentId = "default_agent"): { id: string; data: unknown }[] {
  const records: { id: string; data: unknown }[] = [];
  for (const file of sessionTraceFiles(agentPaths(root, projectId, agentId), sessionId)) {
    const content = parseTraceText(readFileSync(file.file, "utf8"));
    content.messages.forEach((message, i) => records.push({ id: formatPosition({ file: file.index, line: content.lines[i]! }), data: message }));
  }
  return records;
}

/**
 * The process ids of the nodes holding duty `name` (an advisory lock on a node's facts
 * connection) now, read from pg_locks and the lock's backend's application name
 * (`penguin-server <pid>`): a node's `child.proc.pid` says which node that is.
 */
export async function dutyHolders(database: string, name: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    const rows = await client.query<{ name: string }>(
      `select a.application_name as name from pg_locks l join pg_stat_activity a on a.pid = l.pid
       where l.locktype = 'advisory' and l.granted and l.classid = 0 and l.objid = $1::bigint::oid and l.objsubid = 1
         and l.database = (select oid from pg_database where datname = current_database())`,
      [dutyKey(name)],
    );
    return rows.rows.map((r) => Number(/^penguin-server (\d+)$/.exec(r.name)?.[1] ?? -1));
  } finally {
    await client.end();
  }
}
