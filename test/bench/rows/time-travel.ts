// Row 8: time travel and decoding on a 100k-line session written by the real writer.
// - `agent.sessionState({ at })` (stateAt: the one reducer folded to an event, served from
//   snapshots) at random positions: the first call (it parses the files and lays the
//   snapshots), then p50/p99 of the calls after it.
// - `agent.inspectState({ at })`, what `penguin inspect --at N` prints, the same way.
// - Both again from the timeline projection's snapshots in a projections.db on the same root
//   (`snapshots: timelineSnapshots(…)`, as the CLI and the server pass them): the first call
//   includes building the database (a catch-up over the 100k lines).
// - `penguin inspect SID --at N --json` as a child process (the bundled CLI, which catches the
//   root's projections.db up and starts from its nearest snapshot), beside `node -e 0`.
// - Decoding the same file's lines: JSON.parse alone, and JSON.parse plus the effect/Schema
//   envelope decoder (`decodeEnvelope`), in lines per second.
// Random positions come from a fixed-seed generator, so two runs ask for the same events.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createAgent, type Agent, type SnapshotSource } from "@penguin/core";
import { decodeEnvelope } from "@penguin/omnimessage";
import { ProjectionStore } from "@penguin/projections-runner";
import { sessionsProjection } from "@penguin/projections-sessions";
import { timelineProjection, timelineSnapshots } from "@penguin/projections-timeline";
import { usageProjection } from "@penguin/projections-usage";
import { startTestkit } from "@penguin/testkit";
import { CLI_MAIN, cliBuilt } from "./cli.js";
import { metric, msSince, type Metric, type RowResult } from "../lib/stats.js";
import { makeWorld } from "../lib/world.js";
import { writeTrace } from "./trace.js";

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export async function rowTimeTravel(calls: number, lines = 100_000): Promise<RowResult> {
  const kit = await startTestkit();
  const world = await makeWorld(kit.baseUrl("openai-chat"));
  const metrics: Metric[] = [];
  try {
    const { sessionId, file, bytes } = writeTrace(world.agent, world.workspace, lines);
    // Each figure asks through a fresh agent on the same root, so its first call is really the first.
    const fresh = () => createAgent({ root: world.root, env: {} });
    const total = (await (await fresh()).sessionState({ sessionId })).totalEvents;
    const random = seeded(20261201);
    const pick = () => 1 + Math.floor(random() * total);

    const p99Of = (samples: number[]) => {
      const sorted = [...samples].sort((a, b) => a - b);
      return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? Number.NaN;
    };
    const measure = async (name: string, ask: (at: number) => Promise<unknown>, before: () => Promise<void> = async () => undefined) => {
      const first = process.hrtime.bigint();
      await before();
      await ask(pick());
      const firstMs = msSince(first);
      const samples: number[] = [];
      for (let i = 0; i < calls; i++) {
        const at = pick();
        const t0 = process.hrtime.bigint();
        await ask(at);
        samples.push(msSince(t0));
      }
      metrics.push(metric(`${name} at a random event (first call ${firstMs.toFixed(0)} ms; p99 ${p99Of(samples).toFixed(1)} ms)`, "ms", "lower", samples, { goal: "p99 ≤ 50 ms" }));
    };

    for (const [name, askWith] of [
      ["sessionState (stateAt), in-memory snapshots", (agent: Agent, at: number) => agent.sessionState({ sessionId, at })],
      ["inspect (penguin inspect --at N), in-memory snapshots", (agent: Agent, at: number) => agent.inspectState({ sessionId, at })],
    ] as const) {
      const agent = await fresh();
      await measure(name, (at) => askWith(agent, at));
    }

    // The same from projections.db: the first call opens the database and builds it from the
    // trace. One snapshot source per database, as the server keeps one (it caches what it read).
    const dbFile = join(world.root, "projections.db");
    for (const [name, askWith] of [
      ["sessionState from projections.db snapshots", (agent: Agent, snapshots: SnapshotSource, at: number) => agent.sessionState({ sessionId, at, snapshots })],
      ["inspect from projections.db snapshots", (agent: Agent, snapshots: SnapshotSource, at: number) => agent.inspectState({ sessionId, at, snapshots })],
    ] as const) {
      const agent = await fresh();
      let store: ProjectionStore | undefined;
      let snapshots: SnapshotSource | undefined;
      try {
        await measure(
          name,
          (at) => askWith(agent, snapshots!, at),
          async () => {
            store = await ProjectionStore.open({ file: dbFile, root: world.root, projections: [sessionsProjection, usageProjection, timelineProjection] });
            await store.catchUp();
            snapshots = timelineSnapshots(store.db, timelineProjection.version);
          },
        );
      } finally {
        await store?.close();
      }
    }

    if (cliBuilt()) {
      const run = (args: string[]) => {
        const t0 = process.hrtime.bigint();
        const r = spawnSync(process.execPath, args, { env: { ...world.env }, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 30 });
        if (r.status !== 0) throw new Error(`penguin ${args.slice(1).join(" ")} exited ${r.status}: ${r.stderr.toString().slice(0, 300)}`);
        return msSince(t0);
      };
      const child: number[] = [];
      const node: number[] = [];
      run([CLI_MAIN, "inspect", sessionId, "--at", String(pick()), "--json"]);
      for (let i = 0; i < Math.max(5, Math.min(20, Math.floor(calls / 5))); i++) {
        node.push(run(["-e", "0"]));
        child.push(run([CLI_MAIN, "inspect", sessionId, "--at", String(pick()), "--json"]));
      }
      metrics.push(metric(`penguin inspect --at N --json, a child process (p99 ${p99Of(child).toFixed(0)} ms)`, "ms", "lower", child, { baseline: { name: "node -e 0", samples: node } }));
    }

    const text = readFileSync(file, "utf8").split("\n").filter((l) => l !== "");
    const parseOnly: number[] = [];
    const decoded: number[] = [];
    for (let run = 0; run < 3; run++) {
      let t0 = process.hrtime.bigint();
      for (const line of text) JSON.parse(line);
      parseOnly.push(text.length / (msSince(t0) / 1000));
      t0 = process.hrtime.bigint();
      let bad = 0;
      for (const line of text) if (!decodeEnvelope(JSON.parse(line)).ok) bad++;
      decoded.push(text.length / (msSince(t0) / 1000));
      if (bad > 0) throw new Error(`${bad} lines of the bench trace do not decode`);
    }
    metrics.push(metric("decode: JSON.parse + effect/Schema envelope decoder", "lines/s", "higher", decoded, { baseline: { name: "JSON.parse alone", samples: parseOnly } }));
    return { row: 8, title: `Time travel and decoding on a ${lines}-line session (${(bytes / 1e6).toFixed(1)} MB, ${total} events)`, metrics };
  } finally {
    await kit.close();
    world.cleanup();
  }
}
