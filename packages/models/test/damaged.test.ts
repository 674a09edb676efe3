// Damaged replays: every fixture cut short before its terminal event ends in `malformed`, and
// corrupted copies never throw, always end in one of the six statuses with a well-formed
// stream, and are never `completed` when a data line up to the terminal event no longer parses.
// Both go over real HTTP through the testkit's `truncateAt` / `corrupt` replay options.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { corruptBytes, fixturePath, listFixtures, seededRandom, startTestkit, type Testkit } from "@penguin/testkit";
import { endpointFor, fixtureSse, protocolOf, request, run } from "./helpers/replay.js";
import { expectWellFormed } from "./helpers/invariants.js";

const TRUNCATIONS = 12;
const CORRUPTIONS = 12;

/** Is this SSE data line the protocol's terminal event (the one after which the stream may end)? */
function isTerminal(protocol: string, data: string): boolean {
  let v: unknown;
  try {
    v = JSON.parse(data);
  } catch {
    return false;
  }
  if (typeof v !== "object" || v === null) return false;
  const type = "type" in v ? v.type : undefined;
  switch (protocol) {
    case "openai-chat": {
      const choices = "choices" in v && Array.isArray(v.choices) ? v.choices : [];
      return choices.some((c: unknown) => typeof c === "object" && c !== null && "finish_reason" in c && typeof c.finish_reason === "string");
    }
    case "openai-responses":
      return type === "response.completed" || type === "response.failed" || type === "response.incomplete" || type === "error";
    case "anthropic-messages":
      return type === "message_stop";
    default: {
      const candidates = "candidates" in v && Array.isArray(v.candidates) ? v.candidates : [];
      return candidates.some((c: unknown) => typeof c === "object" && c !== null && "finishReason" in c);
    }
  }
}

/** Byte offset of the newline that ends the first terminal `data:` line, and the line index. */
function terminalLine(protocol: string, body: Buffer): { end: number; line: number } {
  const lines = body.toString("utf8").split("\n");
  let offset = 0;
  for (const [i, line] of lines.entries()) {
    const bytes = Buffer.byteLength(line, "utf8");
    if (line.startsWith("data: ") && isTerminal(protocol, line.slice(6))) return { end: offset + bytes, line: i };
    offset += bytes + 1;
  }
  throw new Error("no terminal event in fixture");
}

describe("damaged replays", () => {
  let kit: Testkit;
  beforeAll(async () => {
    kit = await startTestkit();
  });
  afterAll(async () => {
    await kit.close();
  });

  for (const name of listFixtures()) {
    it(`${name}: truncated before its terminal event → malformed`, async () => {
      const protocol = protocolOf(name);
      const body = Buffer.from(fixtureSse(name).body);
      const { end } = terminalLine(protocol, body);
      const random = seededRandom(7);
      const cuts = [0, 1, end, ...Array.from({ length: TRUNCATIONS }, () => Math.floor(random() * end))];
      for (const truncateAt of cuts) {
        kit.enqueue({ fixture: fixturePath(name), truncateAt });
        const { items, outcome } = await run(request(endpointFor(protocol, kit.baseUrl(protocol))));
        expectWellFormed(items, outcome);
        expect(outcome.status, `truncateAt ${truncateAt}`).toBe("malformed");
        expect(outcome.errorMessage).toMatch(/^test\/test-model: HTTP 200, /);
        for (const p of items) if ("stop_reason" in p && p.type !== "thinking" && p.type !== "partial_thinking") expect(["malformed", undefined]).toContain(p.stop_reason);
      }
    });

    it(`${name}: corrupted bytes never throw and never pass for a complete response`, async () => {
      const protocol = protocolOf(name);
      const body = Buffer.from(fixtureSse(name).body);
      const { line: terminal } = terminalLine(protocol, body);
      for (let seed = 1; seed <= CORRUPTIONS; seed++) {
        const count = 1 + (seed % 4);
        kit.enqueue({ fixture: fixturePath(name), corrupt: { seed, count } });
        const { items, outcome } = await run(request(endpointFor(protocol, kit.baseUrl(protocol))));
        expectWellFormed(items, outcome);
        // Independent oracle: a data line (up to the terminal one) that no longer parses.
        const damaged = corruptBytes(body, seed, count).toString("utf8").split("\n");
        const broken = damaged.slice(0, terminal + 1).some((l) => {
          if (!l.startsWith("data: ") || l === "data: [DONE]") return false;
          try {
            JSON.parse(l.slice(6));
            return false;
          } catch {
            return true;
          }
        });
        if (broken) expect(outcome.status, `seed ${seed}`).not.toBe("completed");
      }
    });
  }
});
