// Row 8: time travel and decoding on a 100k-line session written by the real writer.
// - `agent.sessionState({ at })` (stateAt: the one reducer folded to an event, served from
//   snapshots) at random positions: the first call (it parses the files and lays the
//   snapshots), then p50/p99 of the calls after it.
// - `agent.inspectState({ at })`, what `penguin inspect --at N` prints, the same way.
// - Decoding the same file's lines: JSON.parse alone, and JSON.parse plus the effect/Schema
//   envelope decoder (`decodeEnvelope`), in lines per second.
// Random positions come from a fixed-seed generator, so two runs ask for the same events.
import { readFileSync } from "node:fs";
import { createAgent, type Agent } from "@penguin/core";
import { decodeEnvelope } from "@penguin/omnimessage";
import { startTestkit } from "@penguin/testkit";
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

    for (const [name, askWith] of [
      ["sessionState (stateAt)", (agent: Agent, at: number) => agent.sessionState({ sessionId, at })],
      ["inspect (penguin inspect --at N)", (agent: Agent, at: number) => agent.inspectState({ sessionId, at })],
    ] as const) {
      const agent = await fresh();
      const ask = (at: number) => askWith(agent, at);
      const first = process.hrtime.bigint();
      await ask(pick());
      const firstMs = msSince(first);
      const samples: number[] = [];
      for (let i = 0; i < calls; i++) {
        const at = pick();
        const t0 = process.hrtime.bigint();
        await ask(at);
        samples.push(msSince(t0));
      }
      const sorted = [...samples].sort((a, b) => a - b);
      const p99 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? Number.NaN;
      metrics.push(metric(`${name} at a random event (first call ${firstMs.toFixed(0)} ms; p99 ${p99.toFixed(1)} ms)`, "ms", "lower", samples, { goal: "p99 ≤ 50 ms" }));
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
