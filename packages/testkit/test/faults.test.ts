// Fault injection: each fault breaks the response exactly as script.ts promises, seen from a
// real fetch client. Nothing here waits on wall time except one short "nothing more arrives"
// window in the hang test.
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MALFORMED_LINE, startTestkit, WIRE_PROTOCOLS, type Testkit } from "../src/index.js";
import { post, simpleRequest } from "./helpers/requests.js";
import { parseSse } from "./helpers/sse-reader.js";

let kit: Testkit;
beforeEach(async () => {
  kit = await startTestkit();
});
afterEach(async () => {
  await kit.close();
});

const TURN = { thinking: "thinking hard", text: "a reasonably long answer text", toolCalls: [{ name: "ls", arguments: {} }] };

/** Read a body chunk by chunk until `events` complete SSE events have arrived. */
async function readEvents(reader: ReadableStreamDefaultReader<Uint8Array>, events: number): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  while (text.split("\n\n").length - 1 < events) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

describe("http fault", () => {
  it.each(WIRE_PROTOCOLS)("%s: answers the status, Retry-After and the protocol's error shape", async (protocol) => {
    kit.enqueue({ fault: { kind: "http", status: 429, body: "slow down", retryAfter: "7" } });
    const res = await post(kit, protocol, simpleRequest(protocol));
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("7");
    const body = await res.json();
    if (protocol === "anthropic-messages") expect(body).toEqual({ type: "error", error: { type: "rate_limit_error", message: "slow down" } });
    else if (protocol === "gemini") expect(body).toEqual({ error: { code: 429, message: "slow down", status: "RESOURCE_EXHAUSTED" } });
    else expect(body.error).toMatchObject({ message: "slow down", type: "rate_limit_exceeded" });
  });

  it("sends a JSON body verbatim and consumes exactly one step", async () => {
    const raw = '{"error":{"message":"overloaded","type":"server_error"}}';
    kit.enqueue({ fault: { kind: "http", status: 503, body: raw } }, { text: "recovered" });
    const res = await post(kit, "openai-chat", simpleRequest("openai-chat"));
    expect(res.status).toBe(503);
    expect(await res.text()).toBe(raw);
    expect(kit.pending()).toBe(1);
    expect((await post(kit, "openai-chat", simpleRequest("openai-chat"))).status).toBe(200);
  });
});

describe("stream faults", () => {
  it("hang: sends headers and the first events, then nothing until close", async () => {
    kit.enqueue({ ...TURN, fault: { kind: "hang", afterEvents: 2 } });
    const res = await post(kit, "anthropic-messages", simpleRequest("anthropic-messages"));
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const received = await readEvents(reader, 2);
    expect(parseSse(received).map((e) => e.event)).toEqual(["message_start", "ping"]);

    let settled = false;
    const next = reader.read().then(
      () => (settled = true),
      () => (settled = true),
    );
    await sleep(50);
    expect(settled).toBe(false);
    await kit.close();
    await next;
    expect(settled).toBe(true);
  });

  it("reset: sends the first events, then the connection breaks", async () => {
    kit.enqueue({ ...TURN, fault: { kind: "reset", afterEvents: 3 } });
    const res = await post(kit, "openai-chat", simpleRequest("openai-chat"));
    const reader = res.body!.getReader();
    const received = await readEvents(reader, 3);
    expect(parseSse(received)).toHaveLength(3);
    await expect(readEvents(reader, 10)).rejects.toThrow();
  });

  it("malformed: sends the first events, then a data line that is not JSON, then ends", async () => {
    kit.enqueue({ ...TURN, fault: { kind: "malformed", afterEvents: 2 } });
    const text = await (await post(kit, "openai-responses", simpleRequest("openai-responses"))).text();
    const events = parseSse(text);
    expect(events).toHaveLength(3);
    expect(events.slice(0, 2).map((e) => JSON.parse(e.data).type)).toEqual(["response.created", "response.in_progress"]);
    expect(() => JSON.parse(events[2]!.data)).toThrow();
    expect(text.endsWith(MALFORMED_LINE)).toBe(true);
  });

  it("truncate: ends cleanly after the first events, without the terminal event", async () => {
    kit.enqueue({ ...TURN, fault: { kind: "truncate" } }, { ...TURN, fault: { kind: "truncate", afterEvents: 10_000 } });
    const first = parseSse(await (await post(kit, "gemini", simpleRequest("gemini"))).text());
    expect(first).toHaveLength(1);
    const all = parseSse(await (await post(kit, "openai-chat", simpleRequest("openai-chat"))).text());
    expect(all.length).toBeGreaterThan(5);
    expect(all.some((e) => e.data === "[DONE]")).toBe(false);
  });

  it("truncate withholds each protocol's terminal event", async () => {
    const terminal = (protocol: string, data: string): boolean =>
      data === "[DONE]" || /"(message_stop|response\.completed)"/.test(data) || (protocol === "gemini" && data.includes('"finishReason"'));
    for (const protocol of WIRE_PROTOCOLS) {
      kit.enqueue({ ...TURN, fault: { kind: "truncate", afterEvents: 1000 } });
      const events = parseSse(await (await post(kit, protocol, simpleRequest(protocol))).text());
      expect(events.some((e) => terminal(protocol, e.data)), protocol).toBe(false);
    }
  });

  it("delayMs paces the same events and close() stops a slow stream", async () => {
    kit.enqueue({ text: "paced text", chunkSize: 2, delayMs: 1 }, { text: "paced text", chunkSize: 2 }, { text: "slow", delayMs: 60_000 });
    const paced = await (await post(kit, "anthropic-messages", simpleRequest("anthropic-messages"))).text();
    const unpaced = await (await post(kit, "anthropic-messages", simpleRequest("anthropic-messages"))).text();
    const strip = (text: string) => text.replace(/msg_tk\d+/g, "msg");
    expect(strip(paced)).toBe(strip(unpaced));

    const slow = await post(kit, "anthropic-messages", simpleRequest("anthropic-messages"));
    const reader = slow.body!.getReader();
    await readEvents(reader, 1);
    await kit.close();
    await expect(readEvents(reader, 10)).rejects.toThrow();
  });
});
