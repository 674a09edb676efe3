// Cluster duties on PostgreSQL: several server apps on one data root and one database (a real
// PostgreSQL, helpers/postgres.ts). The scheduler's pass is a duty: only the node holding its
// advisory lock fires schedules, so a node that does not hold it fires nothing even when a slot
// is due, and when the holder stops (its connection, and with it the lock, gone) another node
// takes the duty over on its next tick. (Nodes here share one process; nodes in separate
// processes, where the lock matters most, are not run by this test.)
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentPaths } from "@penguin/core";
import { startHarness, type Harness } from "./helpers/harness.js";
import { startPostgres, type PostgresServer } from "./helpers/postgres.js";

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});

function writeSchedule(root: string, name: string, body: string): void {
  const dir = agentPaths(root, "default_project", "default_agent").scheduleDir;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.toml`), body);
}

describe("cluster duties", { timeout: 90_000 }, () => {
  it("only the node holding the scheduler duty fires a due schedule, and another node takes over when the holder stops", async () => {
    const url = await server.createDatabase("duties");
    const a = await startHarness({ app: { database: url } });
    const nodes: Harness[] = [a];
    try {
      nodes.push(await startHarness({ root: a.root, app: { database: url }, adminPassword: a.adminPassword }));
      nodes.push(await startHarness({ root: a.root, app: { database: url }, adminPassword: a.adminPassword }));
      const t0 = a.clock.now();
      writeSchedule(a.root, "report", `enabled = true\nprompt = "Write the daily report"\nstart_at = "${new Date(t0 + 10_000).toISOString()}"\nperiod = "30m"\nworkspace = "${a.workspace}"\n`);
      // Node A takes the duty first; exactly one node holds it.
      expect(nodes.map((node) => node.server.context.stores.facts.holdsDuty("scheduler"))).toEqual([true, false, false]);
      for (const node of nodes) node.clock.advance(30_000);
      // The slot is due, but B and C do not hold the duty: their passes fire nothing.
      expect((await Promise.all(nodes.slice(1).map((node) => node.server.context.scheduler.tick()))).flatMap((r) => r.fired)).toEqual([]);
      const reports = await Promise.all(nodes.map((node) => node.server.context.scheduler.tick()));
      expect(reports.map((r) => r.fired)).toEqual([["default_project/default_agent/report"], [], []]);

      // A stops: its connection ends with its lock, and the next node to ask takes the duty over.
      const stopped = nodes.shift()!;
      await stopped.server.close();
      for (const node of nodes) node.clock.advance(30 * 60_000);
      const after = await Promise.all(nodes.map((node) => node.server.context.scheduler.tick()));
      expect(after.map((r) => r.fired)).toEqual([["default_project/default_agent/report"], []]);
      expect(nodes.map((node) => node.server.context.stores.facts.holdsDuty("scheduler"))).toEqual([true, false]);
      nodes.unshift(stopped);
    } finally {
      // The root is shared: each cleanup removes it, the last one for good.
      for (const node of nodes.reverse()) await node.cleanup().catch(() => undefined);
    }
  });
});
