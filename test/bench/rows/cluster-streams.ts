// Row 20: any node serves any stream (issue 32). Three server nodes on one data root and one
// real PostgreSQL (started here like the server tests start theirs), 300 sessions streaming to
// 300 SSE clients spread over the nodes (30 with --quick), beside one node on facts.db (SQLite)
// with the same load in the same run: p50/p99 latency of durable events (message made → client),
// the same for the clients of nodes that do not run their session, events lost and duplicated,
// each node's peak RSS. The load itself is test/bench/server/cluster-streams.ts.
import { startPostgres } from "../../../apps/server/test/helpers/postgres.js";
import { metric, type RowResult } from "../lib/stats.js";
import { runClusterStreamBench, type ClusterStreamResult } from "../server/cluster-streams.js";

export async function rowClusterStreams(quick: boolean): Promise<RowResult> {
  const sessions = quick ? 30 : 300;
  const load = { sessions, events: quick ? 20 : 50, delayMs: 5 };
  const postgres = await startPostgres();
  let cluster: ClusterStreamResult;
  try {
    cluster = await runClusterStreamBench({ ...load, nodes: 3, database: await postgres.createDatabase("bench_cluster_streams") });
  } finally {
    await postgres.stop();
  }
  const single = await runClusterStreamBench({ ...load, nodes: 1, database: undefined });
  const sqlite = (samples: number) => ({ baseline: { name: "one node, SQLite", samples: [samples] } });
  return {
    row: 20,
    title: `Any node serves any stream: 3 nodes + PostgreSQL, ${sessions} sessions → ${sessions} SSE clients`,
    metrics: [
      metric("p50 latency of durable events, made → client", "ms", "lower", [cluster.p50], sqlite(single.p50)),
      metric("p99 latency of durable events, made → client", "ms", "lower", [cluster.p99], sqlite(single.p99)),
      metric("p50 latency, clients of a node not running the session", "ms", "lower", [cluster.remoteP50]),
      metric("p99 latency, clients of a node not running the session", "ms", "lower", [cluster.remoteP99]),
      metric("durable events lost", "events", "lower", [cluster.lost], { goal: "0", ...sqlite(single.lost) }),
      metric("durable events received twice", "events", "lower", [cluster.duplicated], { goal: "0", ...sqlite(single.duplicated) }),
      ...cluster.rssMb.map((rss, i) => metric(`node ${String.fromCharCode(65 + i)} peak RSS`, "MB", "lower", [rss], sqlite(single.rssMb[0] ?? Number.NaN))),
    ],
    note: `one run each; ${cluster.received} durable events received over the cluster in ${(cluster.wallMs / 1000).toFixed(1)} s, ${single.received} on one node in ${(single.wallMs / 1000).toFixed(1)} s; ${load.events} deltas per answer, ${load.delayMs} ms apart`,
  };
}
