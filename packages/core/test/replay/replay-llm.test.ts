// The replay model at the LLM boundary, given a recorded request and then a request: it
// answers with the recorded envelopes (fidelity untouched, partials streamed before each
// text), keeps no history of its own (the context is the history it is handed, the session
// fold's, plus the new messages), and notes the first request whose context differs from the
// recorded one, naming the field.
import { describe, expect, it } from "vitest";
import { assistantText, userText, type OmniMessage } from "@penguin/omnimessage";
import { Sequence } from "@penguin/trace";
import { Identities } from "../../src/replay/compare.js";
import type { RecordedRequest } from "../../src/replay/plan.js";
import { ReplayLLM } from "../../src/replay/replay-llm.js";

const answer = { ...assistantText("recorded answer"), payload: { ...assistantText("recorded answer").payload, fidelity: { signature: "opaque-bytes==" } } } as OmniMessage;

function recorded(context: OmniMessage[], index = 0): RecordedRequest {
  return { index, compaction: false, produced: [answer], producedAt: [3], end: { type: "request_end", status: "completed" }, endAt: 4, usage: { cache_read: 0, cache_write: 10, output: 2, total: 12 }, context, steering: [], beginAt: 1 };
}

async function drain(llm: ReplayLLM, newMessages: OmniMessage[], history: OmniMessage[] = []): Promise<{ messages: OmniMessage[]; status: string }> {
  const gen = llm.streamGenerate({ history: Sequence.from(history), newMessages });
  const messages: OmniMessage[] = [];
  for (;;) {
    const step = await gen.next();
    if (step.done) return { messages, status: step.value.status };
    messages.push(step.value);
  }
}

describe("ReplayLLM", () => {
  it("answers with the recorded turn byte for byte, and compares the next request's context from the history it is handed", async () => {
    const llm = new ReplayLLM({ requests: [recorded([userText("hello")])], contextWindow: 1000, ids: new Identities() });
    const { messages, status } = await drain(llm, [userText("hello")]);
    expect(status).toBe("completed");
    const complete = messages.filter((m) => m.type === "model_msg" && m.payload.type === "text");
    expect(complete.map((m) => m.payload)).toEqual([answer.payload]);
    expect(messages.filter((m) => m.type === "model_msg" && m.payload.type === "partial_text").map((m) => (m.payload as { text: string }).text).join("")).toBe("recorded answer");
    expect(llm.lastUsage?.total).toBe(12);
    expect(llm.contextMismatch).toBeUndefined();
    // The second request continues the context the fold committed: hello, the answer, then "next".
    const next = userText("next");
    const second = new ReplayLLM({ requests: [recorded([userText("hello")]), recorded([userText("hello"), answer, next], 1)], contextWindow: 1000, ids: new Identities() });
    await drain(second, [userText("hello")]);
    await drain(second, [next], [userText("hello"), answer]);
    expect(second.contextMismatch).toBeUndefined();
    // Nothing of the first request is kept by the adapter: without the history handed in, the context differs.
    const stateless = new ReplayLLM({ requests: [recorded([userText("hello")]), recorded([userText("hello"), answer, next], 1)], contextWindow: 1000, ids: new Identities() });
    await drain(stateless, [userText("hello")]);
    await drain(stateless, [next]);
    expect(stateless.contextMismatch?.request).toBe(1);
  });

  it("notes a context that differs from the recording, and a request the recording does not have", async () => {
    const llm = new ReplayLLM({ requests: [recorded([userText("hello")])], contextWindow: 1000, ids: new Identities() });
    await drain(llm, [userText("hello there")]);
    expect(llm.contextMismatch).toEqual({ request: 0, what: 'the context of request 1 differs: context.0.text: recorded "hello", replayed "hello there"' });
    const extra = await drain(llm, [userText("more")]);
    expect(extra.status).toBe("failed");
  });

  it("writes the replay's own identities back before comparing", async () => {
    const ids = new Identities();
    ids.add("/tmp/replay-ws", "/home/u/project");
    const llm = new ReplayLLM({ requests: [recorded([userText("look at /home/u/project/a.txt")])], contextWindow: 1000, ids });
    await drain(llm, [userText("look at /tmp/replay-ws/a.txt")]);
    expect(llm.contextMismatch).toBeUndefined();
  });
});
