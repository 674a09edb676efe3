// Fidelity round trips, one per protocol: replay a recorded stream over HTTP, keep its complete
// payloads as history, send the next request, and find the provider's own bytes (signatures,
// the reasoning item JSON, thoughtSignatures, the reasoning field) unchanged in the raw body the
// testkit received.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CompleteModelPayload, ModelPayload } from "@penguin/omnimessage";
import { fixturePath, readFixture, startTestkit, type Testkit } from "@penguin/testkit";
import type { ClientType } from "../src/index.js";
import { endpointFor, request, run, stringsInFixture } from "./helpers/replay.js";

const isComplete = (p: ModelPayload): p is CompleteModelPayload => !p.type.startsWith("partial_");

function history(items: ModelPayload[]): CompleteModelPayload[] {
  return items.filter(isComplete);
}

function outputsFor(done: CompleteModelPayload[]): CompleteModelPayload[] {
  return done.flatMap((p) => (p.type === "tool_call" ? [{ type: "tool_call_output", role: "user", tool_call_id: p.tool_call_id, output: "42" } as const] : []));
}

describe("fidelity round trips", () => {
  let kit: Testkit;
  beforeAll(async () => {
    kit = await startTestkit();
  });
  afterAll(async () => {
    await kit.close();
  });

  /** Replays `fixture`, then sends the next turn; returns the raw body of that second request. */
  async function roundTrip(protocol: ClientType, fixture: string, next?: (done: CompleteModelPayload[]) => CompleteModelPayload[]): Promise<{ raw: string; done: CompleteModelPayload[] }> {
    const endpoint = endpointFor(protocol, kit.baseUrl(protocol));
    const user: CompleteModelPayload = { type: "text", role: "user", text: "question" };
    kit.enqueue({ fixture });
    const first = await run(request(endpoint, { messages: [user] }));
    expect(first.outcome.status).toBe("completed");
    const done = history(first.items);
    const follow = next?.(done) ?? [...outputsFor(done), { type: "text", role: "user", text: "go on" }];
    kit.enqueue({ text: "fine" });
    const before = kit.requests.length;
    const second = await run(request(endpoint, { messages: [user, ...done, ...follow] }));
    expect(second.outcome.status).toBe("completed");
    expect(kit.violations).toEqual([]);
    const rec = kit.requests[before];
    if (rec === undefined) throw new Error("second request not recorded");
    return { raw: rec.rawBody, done };
  }

  it("anthropic: thinking goes back with its signature, byte for byte, before the text", async () => {
    const name = "anthropic-messages/anthropic-claude-sonnet-5-reasoning-summarized.chunks.txt";
    const { raw } = await roundTrip("anthropic-messages", fixturePath(name));
    const [signature] = stringsInFixture(name, "signature");
    expect(signature).toBeDefined();
    const at = raw.indexOf(`"signature":"${signature}"`);
    expect(at).toBeGreaterThan(0);
    expect(raw.indexOf('"type":"thinking"')).toBeLessThan(raw.indexOf('"type":"text","text":"# Finding GCD'));
  });

  it("anthropic: thinking, redacted_thinking and tool_use go back unchanged and in order", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "penguin-fid-")), "anthropic-messages");
    mkdirSync(dir);
    const file = join(dir, "redacted.chunks.txt");
    const lines = [
      { type: "message_start", message: { id: "m", model: "claude", usage: { input_tokens: 5, output_tokens: 1 } } },
      { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "plan" } },
      { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "SIG+/A==" } },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "redacted_thinking", data: "REDACTED/+blob==" } },
      { type: "content_block_stop", index: 1 },
      { type: "content_block_start", index: 2, content_block: { type: "tool_use", id: "toolu_1", name: "ls", input: {} } },
      { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '{"path":"."}' } },
      { type: "content_block_stop", index: 2 },
      { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 9 } },
      { type: "message_stop" },
    ];
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n"));
    const { raw, done } = await roundTrip("anthropic-messages", file);
    expect(done.map((p) => p.type)).toEqual(["thinking", "thinking", "tool_call"]);
    const a = raw.indexOf('{"type":"thinking","thinking":"plan","signature":"SIG+/A=="}');
    const b = raw.indexOf('{"type":"redacted_thinking","data":"REDACTED/+blob=="}');
    const c = raw.indexOf('{"type":"tool_use","id":"toolu_1","name":"ls","input":{"path":"."}}');
    expect(a).toBeGreaterThan(0);
    expect(b).toBeGreaterThan(a);
    expect(c).toBeGreaterThan(b);
    expect(raw).toContain('{"type":"tool_result","tool_use_id":"toolu_1","content":"42"}');
  });

  it("openai-responses: the reasoning item from output_item.done goes back verbatim, fc id beside it", async () => {
    const name = "openai-responses/openai-issue-11239.1.chunks.txt";
    const { raw } = await roundTrip("openai-responses", fixturePath(name));
    const doneLine = readFixture(name)
      .split("\n")
      .find((l) => l.includes('"response.output_item.done"') && l.includes('"type":"reasoning"'));
    const itemStart = doneLine?.indexOf('"item":') ?? -1;
    expect(itemStart).toBeGreaterThan(0);
    const item = doneLine?.slice(itemStart + '"item":'.length, doneLine.indexOf(',"output_index"', itemStart)) ?? "";
    expect(item.startsWith('{"id":"rs_')).toBe(true);
    expect(raw).toContain(item);
    // The encrypted_content of output_item.added and of response.completed must not be what went back.
    const variants = stringsInFixture(name, "encrypted_content");
    expect(new Set(variants).size).toBe(3);
    expect(variants.filter((v) => raw.includes(v))).toHaveLength(1);
    expect(raw).toContain('"type":"function_call","call_id":"call_LUBOONF2cY8HDQdBwiEQ9fk1","name":"lookupCode","arguments":"{}","id":"fc_0039ff4ed0aeca1e016ac948b5165087d2963a44253b4bccbb"');
    expect(raw).toContain('{"type":"function_call_output","call_id":"call_LUBOONF2cY8HDQdBwiEQ9fk1","output":"42"}');
    expect(raw.indexOf(item)).toBeLessThan(raw.indexOf('"type":"function_call"'));
    expect(raw).toContain('"store":false,"include":["reasoning.encrypted_content"]');
  });

  it("gemini: the thoughtSignature goes back on the functionCall part it came with", async () => {
    const name = "gemini/google-tool-call-gemini3.chunks.txt";
    const { raw } = await roundTrip("gemini", fixturePath(name));
    const [signature] = stringsInFixture(name, "thoughtSignature");
    expect(raw).toContain(`{"functionCall":{"name":"weather","args":{"location":"San Francisco"}},"thoughtSignature":"${signature}"}`);
    expect(raw).toContain('{"functionResponse":{"name":"weather","response":{"output":"42"}}}');
    expect(raw).not.toContain("skip_thought_signature_validator");
  });

  it("gemini: a signature on an empty text part goes back on an empty text part", async () => {
    const name = "gemini/google-text.chunks.txt";
    const { raw } = await roundTrip("gemini", fixturePath(name));
    const [signature] = stringsInFixture(name, "thoughtSignature");
    expect(raw).toContain(`{"role":"model","parts":[{"text":"There are **3** \\"r\\"s in strawberry.\\n\\nst**r**awbe**rr**y"},{"text":"","thoughtSignature":"${signature}"}]}`);
  });

  it("gemini: streamed Vertex calls go back as two calls, the signature only on the first", async () => {
    const name = "gemini/google-stream-tool-call-arguments.chunks.txt";
    const { raw } = await roundTrip("gemini", fixturePath(name));
    const [signature] = stringsInFixture(name, "thoughtSignature");
    expect(raw).toContain(
      `{"functionCall":{"name":"getWeather","args":{"location":"Boston"}},"thoughtSignature":"${signature}"},{"functionCall":{"name":"getWeather","args":{"location":"San Francisco"}}}`,
    );
  });

  it("openai-chat: DeepSeek reasoning goes back as reasoning_content on the tool-call turn", async () => {
    const name = "openai-chat/deepseek-tool-call.chunks.txt";
    const { raw } = await roundTrip("openai-chat", fixturePath(name));
    expect(raw).toContain(
      '{"role":"assistant","content":null,"reasoning_content":"The user asks about the weather in San Francisco. I should use the weather tool.","tool_calls":[{"id":"call_00_IhCAliIHtM9gKpgfqbBV9873","type":"function","function":{"name":"weather","arguments":"{\\"location\\": \\"San Francisco\\"}"}}]}',
    );
    expect(raw).toContain('{"role":"tool","tool_call_id":"call_00_IhCAliIHtM9gKpgfqbBV9873","content":"42"}');
  });

  it("openai-chat: Mistral thinking goes back as a typed thinking part", async () => {
    const name = "openai-chat/issue-13703-mistral-thinking.chunks.txt";
    const { raw } = await roundTrip("openai-chat", fixturePath(name));
    expect(raw).toMatch(/\{"role":"assistant","content":\[\{"type":"thinking","thinking":\[\{"type":"text","text":"Okay, the user is asking[^"]*/);
    expect(raw).toContain('{"type":"text","text":"391"}]}');
  });
});
