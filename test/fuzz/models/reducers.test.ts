// Fuzzing each protocol's stream reducer with damaged recordings: fast-check picks a fixture
// of the protocol, damages its bytes (flips, deletions, insertions of bytes and of SSE
// syntax, truncation) and cuts the result into random pieces, then replays it in-process
// through the real gateway (`streamModel` over a fetch that returns those pieces). Properties:
// - it never throws, and the output is well formed (helpers/invariants.ts: start → delta* →
//   stop → complete, nothing left open, partials aggregate to the completes) with one of the
//   six statuses;
// - a damaged event (data that is not JSON) before the protocol's terminal event means the
//   response is never `completed` — it ends in `malformed` or another failure;
// - the pieces do not matter: the split replay equals the whole replay, damage and all.
// test/damaged.test.ts covers a few seeded corruptions over HTTP; this covers the space.
//
// Planted bugs (PENGUIN_FUZZ_PLANT), to show each property can fail: assembler-leaves-open
// (a failed response leaves its segments open), reducer-skips-bad-json (the reducers ignore
// an event that does not parse), sse-piece-ends-line (the SSE parser ends a line at the end
// of every network read).
import { beforeAll, describe, expect, it, vi } from "vitest";
import fc from "fast-check";
import type { ModelPayload } from "@penguin/omnimessage";
import { listFixtures } from "@penguin/testkit";
import { adapterFor, CLIENT_TYPES, type SseEvent } from "../../../packages/models/src/index.js";
import { endpointFor, fixtureSse, piecesFetch, protocolOf, request, run, type Run } from "../../../packages/models/test/helpers/replay.js";
import { expectWellFormed } from "../../../packages/models/test/helpers/invariants.js";
import { isBroken, isTerminal, parseWhole } from "./sse-oracle.js";

const PLANT = process.env.PENGUIN_FUZZ_PLANT;
const RUNS_PER_PROTOCOL = 60;

vi.mock("../../../packages/models/src/assembler.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../../packages/models/src/assembler.js")>();
  if (process.env.PENGUIN_FUZZ_PLANT !== "assembler-leaves-open") return real;
  class LeavesOpen extends real.ResponseAssembler {
    override finish(reason: Parameters<InstanceType<typeof real.ResponseAssembler>["finish"]>[0]): void {
      if (reason === "completed") super.finish(reason);
    }
  }
  return { ...real, ResponseAssembler: LeavesOpen };
});

vi.mock("../../../packages/models/src/sse.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../../packages/models/src/sse.js")>();
  if (process.env.PENGUIN_FUZZ_PLANT !== "sse-piece-ends-line") return real;
  const newline = new TextEncoder().encode("\n");
  return {
    ...real,
    createSseParser: () => {
      const inner = real.createSseParser();
      return { push: (b: Uint8Array) => [...inner.push(b), ...inner.push(newline)], end: () => inner.end() };
    },
  };
});

beforeAll(() => {
  if (PLANT !== "reducer-skips-bad-json") return;
  for (const clientType of CLIENT_TYPES) {
    const adapter = adapterFor(clientType);
    const create = adapter.createReducer.bind(adapter);
    adapter.createReducer = (req, asm) => {
      const inner = create(req, asm);
      return {
        feed: (ev: SseEvent) => (isBroken(ev.data) ? undefined : inner.feed(ev)),
        get ending() {
          return inner.ending;
        },
        end: () => inner.end(),
      };
    };
  }
});

/** Minted ids (Gemini) differ per run: number them by order of appearance. */
function normalized(r: Run): unknown {
  const ids = new Map<string, string>();
  const norm = (id: string) => {
    if (!ids.has(id)) ids.set(id, `id${ids.size}`);
    return ids.get(id);
  };
  return { items: r.items.map((p: ModelPayload) => ("tool_call_id" in p ? { ...p, tool_call_id: norm(p.tool_call_id) } : p)), outcome: r.outcome };
}

type Damage =
  | { kind: "flip"; at: number; byte: number }
  | { kind: "delete"; at: number; length: number }
  | { kind: "insert"; at: number; bytes: Uint8Array }
  | { kind: "truncate"; at: number };

const enc = new TextEncoder();
const SYNTAX = ["\n", "\n\n", "\r", "\r\n", "data: ", "data: {", "}", '"', ":", "event: x\n", "\0\0\0", "data: [DONE]\n\n", "ü", "😀"].map((s) => enc.encode(s));

const damage: fc.Arbitrary<Damage> = fc.oneof(
  fc.record({ kind: fc.constant("flip" as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant("delete" as const), at: fc.nat(), length: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), bytes: fc.oneof(fc.constantFrom(...SYNTAX), fc.uint8Array({ minLength: 1, maxLength: 8 })) }),
  fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }),
);

function applyDamage(body: Uint8Array, steps: Damage[]): Uint8Array {
  let b = body;
  for (const d of steps) {
    const at = d.at % (b.length + 1);
    switch (d.kind) {
      case "flip":
        if (b.length > 0) {
          b = b.slice();
          b[at % b.length] = d.byte;
        }
        break;
      case "delete":
        b = new Uint8Array([...b.slice(0, at), ...b.slice(at + d.length)]);
        break;
      case "insert":
        b = new Uint8Array([...b.slice(0, at), ...d.bytes, ...b.slice(at)]);
        break;
      case "truncate":
        b = b.slice(0, at);
        break;
    }
  }
  return b;
}

/** Index of the first event matching, or Infinity. */
function firstIndex(events: SseEvent[], pick: (e: SseEvent) => boolean): number {
  const i = events.findIndex(pick);
  return i === -1 ? Infinity : i;
}

describe("stream reducers (fuzz: damaged fixtures, random splits)", () => {
  const all = listFixtures();
  for (const protocol of CLIENT_TYPES) {
    const names = all.filter((n) => protocolOf(n) === protocol);
    it(`${protocol}: damage never throws, never passes for complete, and splits do not matter (${names.length} fixtures)`, async () => {
      const bodies = new Map(names.map((n) => [n, fixtureSse(n).body]));
      const endpoint = endpointFor(protocol, "http://127.0.0.1:9");
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...names), fc.array(damage, { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { maxLength: 24 }), async (name, steps, rawCuts) => {
          const body = applyDamage(bodies.get(name)!, steps);
          const whole = await run(request(endpoint, { fetch: piecesFetch(body, []) }));
          expectWellFormed(whole.items, whole.outcome);

          const events = parseWhole(body).events;
          const broken = firstIndex(events, (e) => isBroken(e.data));
          const terminal = firstIndex(events, (e) => isTerminal(protocol, e.data));
          if (broken < terminal) expect(whole.outcome.status, `event #${broken} is not JSON: ${events[broken]?.data.slice(0, 80)}`).not.toBe("completed");

          const cuts = [...new Set(rawCuts.map((c) => 1 + (c % Math.max(1, body.length - 1))))].filter((c) => c < body.length).sort((a, b) => a - b);
          const split = await run(request(endpoint, { fetch: piecesFetch(body, cuts) }));
          expect(normalized(split)).toEqual(normalized(whole));
        }),
        { numRuns: RUNS_PER_PROTOCOL, seed: 7070 + CLIENT_TYPES.indexOf(protocol) },
      );
    });
  }
});
