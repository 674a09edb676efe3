// Fixture replay: every recorded stream comes back byte for byte as the SSE its provider sent
// (wrapped here independently, per the fixtures README), whole, split, truncated or corrupted.
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  corruptBytes,
  fixturePath,
  fixtureProtocol,
  fixtureToSse,
  listFixtures,
  splitBody,
  startTestkit,
  WIRE_PROTOCOLS,
  type Testkit,
  type WireProtocol,
} from "../src/index.js";
import { post, simpleRequest } from "./helpers/requests.js";

/** The README's wrapping, written out again so the testkit's own is checked against it. */
function wrap(text: string, protocol: WireProtocol): string {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const named = protocol === "anthropic-messages" || protocol === "openai-responses";
  const body = lines.map((line) => `${named ? `event: ${JSON.parse(line).type}\n` : ""}data: ${line}\n\n`).join("");
  return body + (protocol === "openai-chat" ? "data: [DONE]\n\n" : "");
}

async function bytes(res: Response): Promise<Buffer> {
  return Buffer.from(await res.arrayBuffer());
}

let kit: Testkit;
beforeEach(async () => {
  kit = await startTestkit();
});
afterEach(async () => {
  await kit.close();
});

describe("fixture helpers", () => {
  it("lists every fixture under its protocol folder and resolves names three ways", () => {
    const all = listFixtures();
    expect(all.length).toBeGreaterThanOrEqual(30);
    expect(WIRE_PROTOCOLS.every((protocol) => listFixtures(protocol).length > 0)).toBe(true);
    const path = fixturePath("gemini/google-text.chunks.txt");
    expect(fixturePath("google-text.chunks.txt")).toBe(path);
    expect(fixturePath(path)).toBe(path);
    expect(fixtureProtocol(path)).toBe("gemini");
    expect(() => fixturePath("nope.chunks.txt")).toThrow(/not in/);
  });

  it("fixtureToSse wraps like the README", () => {
    for (const name of listFixtures()) {
      const protocol = fixtureProtocol(fixturePath(name))!;
      const text = readFileSync(fixturePath(name), "utf8");
      expect(fixtureToSse(text, protocol)).toBe(wrap(text, protocol));
    }
  });
});

describe("replay over HTTP", () => {
  it("serves every fixture whole, on its own protocol's endpoint", async () => {
    for (const name of listFixtures()) {
      const protocol = fixtureProtocol(fixturePath(name))!;
      kit.enqueue({ fixture: name });
      const res = await post(kit, protocol, simpleRequest(protocol));
      expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
      expect(await res.text(), name).toBe(wrap(readFileSync(fixturePath(name), "utf8"), protocol));
    }
  });

  it("frames by the fixture's folder, whatever endpoint was called, unless told otherwise", async () => {
    const name = "openai-chat/issue-15789-step-1.chunks.txt";
    const text = readFileSync(fixturePath(name), "utf8");
    kit.enqueue({ fixture: name }, { fixture: name, protocol: "gemini" });
    expect(await (await post(kit, "gemini", simpleRequest("gemini"))).text()).toBe(wrap(text, "openai-chat"));
    expect(await (await post(kit, "gemini", simpleRequest("gemini"))).text()).toBe(wrap(text, "gemini"));
  });

  it("delivers the same bytes when split at given or seeded-random offsets", async () => {
    const name = "anthropic-messages/anthropic-clear-thinking.1.chunks.txt";
    const expected = Buffer.from(wrap(readFileSync(fixturePath(name), "utf8"), "anthropic-messages"));
    kit.enqueue(
      { fixture: name, split: [1, 2, 3, 100, 101, expected.length - 1] },
      { fixture: name, split: { seed: 7, count: 40 } },
      { fixture: name, split: { seed: 8, count: expected.length } },
    );
    for (let i = 0; i < 3; i++) {
      expect((await bytes(await post(kit, "anthropic-messages", simpleRequest("anthropic-messages")))).equals(expected)).toBe(true);
    }
  });

  it("writes each piece separately, so a client sees more reads than events", async () => {
    const name = "anthropic-messages/anthropic-text.chunks.txt";
    const events = wrap(readFileSync(fixturePath(name), "utf8"), "anthropic-messages").split("\n\n").length - 1;
    kit.enqueue({ fixture: name, split: { seed: 5, count: 60 } });
    const reads = await new Promise<number>((resolve, reject) => {
      const req = request(`${kit.url}/v1/messages`, { method: "POST" }, (res) => {
        let count = 0;
        res.on("data", () => count++);
        res.on("end", () => resolve(count));
      });
      req.on("error", reject);
      req.end(JSON.stringify(simpleRequest("anthropic-messages")));
    });
    expect(reads).toBeGreaterThan(events);
  });

  it("cuts the body at truncateAt", async () => {
    const name = "gemini/google-text.chunks.txt";
    const expected = Buffer.from(wrap(readFileSync(fixturePath(name), "utf8"), "gemini"));
    kit.enqueue({ fixture: name, truncateAt: 150, split: { seed: 1, count: 5 } });
    expect((await bytes(await post(kit, "gemini", simpleRequest("gemini")))).equals(expected.subarray(0, 150))).toBe(true);
  });

  it("corrupts the same bytes for the same seed, and only those", async () => {
    const name = "openai-responses/issue-20047-openai-responses.chunks.txt";
    const expected = Buffer.from(wrap(readFileSync(fixturePath(name), "utf8"), "openai-responses"));
    kit.enqueue({ fixture: name, corrupt: { seed: 42, count: 5 } }, { fixture: name, corrupt: { seed: 42, count: 5 } }, { fixture: name, corrupt: { seed: 43, count: 5 } });
    const [a, b, c] = [
      await bytes(await post(kit, "openai-responses", simpleRequest("openai-responses"))),
      await bytes(await post(kit, "openai-responses", simpleRequest("openai-responses"))),
      await bytes(await post(kit, "openai-responses", simpleRequest("openai-responses"))),
    ];
    expect(a.length).toBe(expected.length);
    const changed = [...a.keys()].filter((i) => a[i] !== expected[i]);
    expect(changed).toHaveLength(5);
    expect(a.equals(b)).toBe(true);
    expect(a.equals(c)).toBe(false);
  });
});

describe("byte helpers", () => {
  it("splitBody keeps every byte in order", () => {
    const body = Buffer.from("héllo 🐧 world");
    const pieces = splitBody(body, [1, 2, 7, 8]);
    expect(pieces.map((p) => p.length)).toEqual([1, 1, 5, 1, body.length - 8]);
    expect(Buffer.concat(pieces).equals(body)).toBe(true);
  });

  it("corruptBytes never leaves a chosen byte unchanged", () => {
    const body = Buffer.alloc(64, 0x41);
    const corrupted = corruptBytes(body, 3, 64);
    expect([...corrupted].every((byte) => byte !== 0x41)).toBe(true);
    expect(body.every((byte) => byte === 0x41)).toBe(true);
  });
});
