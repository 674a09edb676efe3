// Split replays: the same recorded streams cut at random byte boundaries (inside SSE lines,
// `\r\n` pairs and multi-byte UTF-8 characters) must give exactly the output of the unsplit
// replay. Two layers: over real HTTP through the testkit's seeded splitter, and in-process with
// fast-check choosing the cut points, so every boundary is exercised even where TCP would
// coalesce the pieces. Seeds are fixed; a failure prints the seed to replay.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import type { ModelPayload } from "@penguin/omnimessage";
import { fixturePath, listFixtures, startTestkit, type RecordedRequest, type Testkit } from "@penguin/testkit";
import { endpointFor, fixtureSse, piecesFetch, protocolOf, request, run, type Run } from "./helpers/replay.js";
import { expectWellFormed } from "./helpers/invariants.js";

const HTTP_SPLITS = Number(process.env.PENGUIN_SPLITS ?? 200);
const INPROCESS_RUNS = 200;
const FC_SEED = 20260101;

/** Minted ids (Gemini) differ per run: replace every tool_call_id by its order of appearance. */
function normalized(r: Run): unknown {
  const ids = new Map<string, string>();
  const norm = (id: string): string => {
    if (!ids.has(id)) ids.set(id, `id${ids.size}`);
    return ids.get(id) ?? id;
  };
  const items = r.items.map((p: ModelPayload) => ("tool_call_id" in p ? { ...p, tool_call_id: norm(p.tool_call_id) } : p));
  return { items, outcome: r.outcome };
}

describe("fixtures split at random byte boundaries", () => {
  let kit: Testkit;
  beforeAll(async () => {
    kit = await startTestkit();
  });
  afterAll(async () => {
    await kit.close();
  });

  // The request's system prompt names the fixture and the seed, and the one step function the
  // queue holds per request reads it back, so fixtures can run concurrently on one testkit.
  const step = (req: RecordedRequest) => {
    const [name = "", seedText = "0"] = (req.system ?? "").split("|");
    const seed = Number(seedText);
    if (seed === 0) return { fixture: fixturePath(name) };
    return { fixture: fixturePath(name), split: { seed, count: 1 + (seed % 48) } };
  };

  for (const name of listFixtures()) {
    it.concurrent(`${name}: ${HTTP_SPLITS} seeded HTTP splits equal the unsplit replay`, async () => {
      const protocol = protocolOf(name);
      const endpoint = endpointFor(protocol, kit.baseUrl(protocol));
      kit.enqueue(step);
      const baseline = normalized(await run(request(endpoint, { systemPrompt: `${name}|0` })));
      const seeds = Array.from({ length: HTTP_SPLITS }, (_, i) => i + 1);
      for (let i = 0; i < seeds.length; i += 25) {
        const batch = seeds.slice(i, i + 25);
        for (const _ of batch) kit.enqueue(step);
        const runs = await Promise.all(batch.map((seed) => run(request(endpoint, { systemPrompt: `${name}|${seed}` }))));
        runs.forEach((r, n) => {
          const got = normalized(r);
          if (JSON.stringify(got) !== JSON.stringify(baseline)) expect.soft(got, `seed ${batch[n]}`).toEqual(baseline);
        });
      }
      expect(kit.violations).toEqual([]);
    }, 120_000);
  }

  for (const name of listFixtures()) {
    it(`${name}: ${INPROCESS_RUNS} fast-check splits (exact chunk boundaries) equal the unsplit replay`, async () => {
      const { protocol, body } = fixtureSse(name);
      const endpoint = endpointFor(protocol, "http://127.0.0.1:9");
      const whole = await run(request(endpoint, { fetch: piecesFetch(body, []) }));
      expectWellFormed(whole.items, whole.outcome);
      const baseline = normalized(whole);
      await fc.assert(
        fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: body.length - 1 }), { maxLength: 64 }), async (cuts) => {
          const offsets = [...cuts].sort((a, b) => a - b);
          const got = await run(request(endpoint, { fetch: piecesFetch(body, offsets) }));
          expect(normalized(got)).toEqual(baseline);
        }),
        { numRuns: INPROCESS_RUNS, seed: FC_SEED },
      );
    });
  }

  it("cuts inside every multi-byte character of a fixture", async () => {
    const name = "anthropic-messages/anthropic-clear-thinking.1.chunks.txt";
    const { protocol, body } = fixtureSse(name);
    const endpoint = endpointFor(protocol, "http://127.0.0.1:9");
    const baseline = normalized(await run(request(endpoint, { fetch: piecesFetch(body, []) })));
    const inside: number[] = [];
    body.forEach((b, i) => {
      if ((b & 0xc0) === 0x80) inside.push(i); // a continuation byte: cutting before it splits a character
    });
    expect(inside.length).toBeGreaterThan(0);
    const got = await run(request(endpoint, { fetch: piecesFetch(body, inside) }));
    expect(normalized(got)).toEqual(baseline);
    const everyByte = Array.from({ length: body.length - 1 }, (_, i) => i + 1);
    expect(normalized(await run(request(endpoint, { fetch: piecesFetch(body, everyByte) })))).toEqual(baseline);
  });
});
