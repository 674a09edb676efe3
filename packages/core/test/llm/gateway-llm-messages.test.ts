// GatewayLLM's request list (src/llm/gateway-llm.ts): one array per history, grown request by
// request. Whatever the history did between two requests (grew by the last request's new
// messages and an answer, stayed for a retry, stayed while other messages are sent, grew by
// something else, was compacted), each request's body is the history then its new messages,
// byte for byte the body encoded afresh, and a request whose history grew as expected
// compares no payload of it (models wire-cache.ts, `wireCacheCounters.comparedItems`).
import { afterEach, describe, expect, it } from "vitest";
import { buildWireRequest, setWireCacheBypass, wireCacheCounters, type ModelEndpoint } from "@penguin/models";
import { modelMessage, userText, type CompleteModelPayload, type OmniMessage } from "@penguin/omnimessage";
import { startTestkit, type Testkit } from "@penguin/testkit";
import { Sequence } from "@penguin/trace";
import { GatewayLLM } from "../../src/llm/gateway-llm.js";

let kit: Testkit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

const text = (role: "user" | "assistant", t: string): OmniMessage => (role === "user" ? userText(t) : modelMessage({ type: "text", role: "assistant", text: t }));
const payloadsOf = (ms: readonly OmniMessage[]): CompleteModelPayload[] => ms.map((m) => (m as Extract<OmniMessage, { type: "model_msg" }>).payload as CompleteModelPayload);

describe("GatewayLLM's request list", () => {
  it("is the history then the new messages, whatever the history did since the last request", async () => {
    kit = await startTestkit();
    const endpoint: ModelEndpoint = { provider: "testkit", modelId: "m", clientType: "openai-chat", baseUrl: kit.baseUrl("openai-chat"), apiKey: "sk-test-list" };
    const llm = new GatewayLLM({ endpoint, systemPrompt: "sys", tools: [] });
    const sent: { compared: number; expected: CompleteModelPayload[] }[] = [];
    const request = async (history: Sequence<OmniMessage>, added: OmniMessage[]): Promise<void> => {
      kit?.enqueue({ text: "ok", usage: { input: 10, output: 2 } });
      const before = wireCacheCounters.comparedItems;
      const stream = llm.streamGenerate({ history, newMessages: added });
      for (let step = await stream.next(); step.done !== true; step = await stream.next()) {
        // drain
      }
      sent.push({ compared: wireCacheCounters.comparedItems - before, expected: [...payloadsOf(history.mapToArray((m) => m)), ...payloadsOf(added)] });
    };

    const start = [text("user", "fix the build"), text("assistant", "on it")];
    let history = Sequence.from(start);
    const u1 = text("user", "first");
    await request(history, [u1]);
    // The history grew by the request's new message and an answer.
    history = history.append(u1).append(text("assistant", "answer 1"));
    const u2 = text("user", "second");
    await request(history, [u2]);
    // A retry: the same history, the same new message.
    await request(history, [u2]);
    // The same history, other new messages (the last ones never joined it).
    const u3 = text("user", "third instead");
    await request(history, [u3]);
    // The history grew by something else than the last new messages.
    history = history.append(text("user", "steering")).append(text("assistant", "answer 2"));
    const u4 = text("user", "fourth");
    await request(history, [u4]);
    // It grew as expected again.
    history = history.append(u4).append(text("assistant", "answer 4"));
    await request(history, [text("user", "fifth")]);
    // Compacted: a new history.
    history = Sequence.from([text("user", "[context_summary]\nall of it\n[/context_summary]")]);
    await request(history, [text("user", "sixth")]);

    expect(kit.requests).toHaveLength(sent.length);
    kit.requests.forEach((r, i) => {
      const expected = sent[i]?.expected ?? [];
      setWireCacheBypass(true);
      try {
        const fresh = buildWireRequest({ endpoint, systemPrompt: "sys", messages: expected, tools: [] }).body;
        expect(r.rawBody, `request ${i}`).toBe(typeof fresh === "string" ? fresh : Buffer.from(fresh as Uint8Array).toString("utf8"));
      } finally {
        setWireCacheBypass(false);
      }
    });
    // Compared one by one: none where the list grew (the 2nd, the retry, the 6th); the whole
    // list where it could not (new messages in place of the last ones, a history grown by
    // others: a new array); none after the compaction (a new history: nothing to compare with).
    expect(sent.map((s) => s.compared)).toEqual([0, 0, 0, 5, 5, 0, 0]);
    expect(kit.violations).toEqual([]);
  });
});
