// Request building per protocol, on the wire request `streamModel` would send: thinking levels,
// the output cap, Anthropic cache breakpoints, tool results before steering text, the
// Responses id rule, Gemini's signature placeholder, auth headers and fast mode; and tool
// outputs whose JSON text was kept from the trace, copied into the body as they are.
import { describe, expect, it } from "vitest";
import { keepRawOutputJson, withOutputDecodedOnRead, type CompleteModelPayload, type ToolCallOutputPayload } from "@penguin/omnimessage";
import { buildWireRequest, outputCap, type ClientType, type ModelEndpoint, type ModelRequest, type ThinkingLevel, type WireRequest } from "../src/index.js";
import { outputForWire } from "../src/wire-body.js";

function endpoint(clientType: ClientType, extra: Partial<ModelEndpoint> = {}): ModelEndpoint {
  return { provider: "p", modelId: "m", clientType, baseUrl: "https://api.example/v1", apiKey: "key-1", ...extra };
}

/** A body as text, whether the builder gave a string or bytes. */
function textOf(body: WireRequest["body"]): string {
  return typeof body === "string" ? body : Buffer.concat(body instanceof Uint8Array ? [body] : body).toString("utf8");
}

function body(req: ModelRequest): Record<string, unknown> {
  const parsed: unknown = JSON.parse(textOf(buildWireRequest(req).body));
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("body is not an object");
  return Object.fromEntries(Object.entries(parsed));
}

const hello: CompleteModelPayload[] = [{ type: "text", role: "user", text: "hello" }];

function at(level: ThinkingLevel | undefined, e: ModelEndpoint): Record<string, unknown> {
  const r: ModelRequest = { endpoint: e, messages: hello, tools: [] };
  if (level !== undefined) r.thinkingLevel = level;
  return body(r);
}

/** A tool turn with a steering message typed while the tool ran. */
const toolTurn: CompleteModelPayload[] = [
  { type: "text", role: "user", text: "list files" },
  { type: "thinking", role: "assistant", thinking: "use ls" },
  { type: "tool_call", role: "assistant", name: "ls", arguments: '{"path":"."}', tool_call_id: "call_1" },
  { type: "text", role: "user", text: "also hidden ones" },
  { type: "tool_call_output", role: "user", tool_call_id: "call_1", output: "a.txt", stop_reason: "failed" },
];

describe("thinking levels", () => {
  it("openai-chat: DeepSeek takes low/high/max and turns thinking off for none", () => {
    const ds = endpoint("openai-chat", { provider: "deepseek", baseUrl: "https://api.deepseek.com" });
    expect(at("none", ds)).toMatchObject({ thinking: { type: "disabled" } });
    expect(at("none", ds).reasoning_effort).toBeUndefined();
    expect(at("low", ds).reasoning_effort).toBe("low");
    expect(at("medium", ds).reasoning_effort).toBe("high");
    expect(at("xhigh", ds).reasoning_effort).toBe("high");
    expect(at("max", ds).reasoning_effort).toBe("max");
  });

  it("openai-chat: OpenAI takes xhigh; other servers get the classic three; undefined sends nothing", () => {
    const oa = endpoint("openai-chat", { provider: "openai", baseUrl: "https://api.openai.com/v1" });
    expect(at("max", oa).reasoning_effort).toBe("xhigh");
    expect(at("none", oa).reasoning_effort).toBe("none");
    const other = endpoint("openai-chat", { provider: "vllm", baseUrl: "http://127.0.0.1:8000/v1" });
    expect(at("xhigh", other).reasoning_effort).toBe("high");
    expect(at("none", other).reasoning_effort).toBeUndefined();
    expect(at(undefined, other).reasoning_effort).toBeUndefined();
  });

  it("openai-responses: reasoning effort with summaries", () => {
    const e = endpoint("openai-responses");
    expect(at("medium", e).reasoning).toEqual({ effort: "medium", summary: "auto" });
    expect(at("max", e).reasoning).toEqual({ effort: "xhigh", summary: "auto" });
    expect(at("none", e).reasoning).toEqual({ effort: "none" });
    expect(at(undefined, e).reasoning).toBeUndefined();
  });

  it("anthropic: a budget below max_tokens, off for none or when it cannot fit", () => {
    expect(at("high", endpoint("anthropic-messages", { maxTokens: 32000 }))).toMatchObject({ max_tokens: 32000, thinking: { type: "enabled", budget_tokens: 16384 } });
    expect(at("max", endpoint("anthropic-messages", { maxTokens: 4096 }))).toMatchObject({ max_tokens: 4096, thinking: { budget_tokens: 3072 } });
    expect(at("low", endpoint("anthropic-messages", { maxTokens: 1500 })).thinking).toBeUndefined();
    expect(at("none", endpoint("anthropic-messages")).thinking).toBeUndefined();
  });

  it("gemini: thinkingLevel on Gemini 3, thinkingBudget before, thoughts included", () => {
    expect(at("medium", endpoint("gemini", { modelId: "gemini-3-pro-preview" })).generationConfig).toMatchObject({
      thinkingConfig: { includeThoughts: true, thinkingLevel: "high" },
    });
    expect(at("none", endpoint("gemini", { modelId: "gemini-2.5-flash" })).generationConfig).toMatchObject({
      thinkingConfig: { includeThoughts: false, thinkingBudget: 0 },
    });
    expect(at("low", endpoint("gemini", { modelId: "gemini-2.5-pro" })).generationConfig).toMatchObject({ thinkingConfig: { thinkingBudget: 1024 } });
  });
});

describe("output cap", () => {
  it("is min(max_tokens, window − input − 1024), with 128000 for unknown or tiny windows", () => {
    expect(outputCap({ ...endpoint("openai-chat"), contextWindow: 10000, maxTokens: 8000 }, 3000)).toBe(5976);
    expect(outputCap({ ...endpoint("openai-chat"), contextWindow: 10000, maxTokens: 2000 }, 3000)).toBe(2000);
    expect(outputCap({ ...endpoint("openai-chat"), maxTokens: 200000 }, 1000)).toBe(128000 - 1000 - 1024);
    expect(outputCap({ ...endpoint("openai-chat"), contextWindow: 2048, maxTokens: 200000 }, 0)).toBe(128000 - 1024);
    expect(outputCap({ ...endpoint("openai-chat"), contextWindow: 5000, maxTokens: 100 }, 9000)).toBe(1);
    expect(outputCap(endpoint("openai-chat"), 10)).toBeUndefined();
  });

  it("estimates the input only when a cap is sent (a long history is not serialised twice for nothing)", () => {
    let estimated = 0;
    const estimate = () => {
      estimated++;
      return 3000;
    };
    expect(outputCap(endpoint("openai-chat"), estimate)).toBeUndefined();
    expect(estimated).toBe(0);
    expect(outputCap({ ...endpoint("openai-chat"), contextWindow: 10000, maxTokens: 8000 }, estimate)).toBe(5976);
    expect(estimated).toBe(1);
  });

  it("shrinks the cap sent as the history grows", () => {
    const long: CompleteModelPayload[] = [{ type: "text", role: "user", text: "x".repeat(20000) }];
    const e = endpoint("openai-chat", { contextWindow: 10000, maxTokens: 8000 });
    const small = body({ endpoint: e, messages: hello, tools: [] }).max_tokens;
    const big = body({ endpoint: e, messages: long, tools: [] }).max_tokens;
    expect(small).toBe(8000);
    expect(typeof big === "number" && big < 10000 - 5000 - 1024 + 1).toBe(true);
    expect(body({ endpoint: endpoint("openai-chat", { baseUrl: "https://api.openai.com/v1", maxTokens: 50 }), messages: hello, tools: [] })).toMatchObject({
      max_completion_tokens: 50,
    });
  });
});

describe("history on the wire", () => {
  const tools = [
    { name: "ls", description: "list", parameters: { type: "object", properties: { path: { type: "string" } } } },
    { name: "cat", description: "read" },
  ];

  it("anthropic: cache breakpoints on the last tool, the system prompt and the last user-side block", () => {
    const b = body({ endpoint: endpoint("anthropic-messages"), systemPrompt: "sys", messages: toolTurn, tools });
    expect(b.system).toEqual([{ type: "text", text: "sys", cache_control: { type: "ephemeral" } }]);
    expect(b.tools).toEqual([
      { name: "ls", description: "list", input_schema: tools[0]?.parameters },
      { name: "cat", description: "read", input_schema: { type: "object", properties: {} }, cache_control: { type: "ephemeral" } },
    ]);
    expect(b.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "list files" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "call_1", name: "ls", input: { path: "." } }] },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "call_1", content: "a.txt", is_error: true },
          { type: "text", text: "also hidden ones", cache_control: { type: "ephemeral" } },
        ],
      },
    ]);
    expect(JSON.stringify(b).split("cache_control").length - 1).toBe(3);
    const wire = buildWireRequest({ endpoint: endpoint("anthropic-messages"), messages: hello, tools: [] });
    expect(wire.url).toBe("https://api.example/v1/v1/messages");
    expect(wire.headers).toMatchObject({ "x-api-key": "key-1", "anthropic-version": "2023-06-01" });
  });

  it("openai-chat: the tool message comes right after the call, before the steering text", () => {
    const b = body({ endpoint: endpoint("openai-chat"), systemPrompt: "sys", messages: toolTurn, tools });
    expect(b.messages).toEqual([
      { role: "system", content: "sys" },
      { role: "user", content: "list files" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "ls", arguments: '{"path":"."}' } }] },
      { role: "tool", tool_call_id: "call_1", content: "a.txt" },
      { role: "user", content: "also hidden ones" },
    ]);
    expect(b).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(buildWireRequest({ endpoint: endpoint("openai-chat"), messages: hello, tools: [] }).headers.authorization).toBe("Bearer key-1");
  });

  it("openai-responses: call ids pair outputs; an fc id is only sent beside its reasoning item", () => {
    const b = body({ endpoint: endpoint("openai-responses"), systemPrompt: "sys", messages: [
      ...toolTurn.slice(0, 2),
      { type: "tool_call", role: "assistant", name: "ls", arguments: "{}", tool_call_id: "call_1", fidelity: { item_id: "fc_1" } },
      ...toolTurn.slice(3),
    ], tools });
    expect(b.instructions).toBe("sys");
    expect(b.input).toEqual([
      { type: "message", role: "user", content: [{ type: "input_text", text: "list files" }] },
      { type: "function_call", call_id: "call_1", name: "ls", arguments: "{}" },
      { type: "function_call_output", call_id: "call_1", output: "a.txt" },
      { type: "message", role: "user", content: [{ type: "input_text", text: "also hidden ones" }] },
    ]);
    expect(b).toMatchObject({ store: false, include: ["reasoning.encrypted_content"], stream: true });
  });

  it("gemini: answers by function name; an unsigned call turn gets Google's skip placeholder", () => {
    const wire = buildWireRequest({ endpoint: endpoint("gemini", { baseUrl: "https://g.example/v1beta", modelId: "gemini-3-pro-preview" }), messages: toolTurn, tools });
    expect(wire.url).toBe("https://g.example/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse");
    expect(wire.headers["x-goog-api-key"]).toBe("key-1");
    const b: unknown = JSON.parse(wire.body);
    expect(b).toMatchObject({
      contents: [
        { role: "user", parts: [{ text: "list files" }] },
        { role: "model", parts: [{ functionCall: { name: "ls", args: { path: "." } }, thoughtSignature: "skip_thought_signature_validator" }] },
        { role: "user", parts: [{ functionResponse: { name: "ls", response: { error: "a.txt" } } }, { text: "also hidden ones" }] },
      ],
      tools: [{ functionDeclarations: [{ name: "ls", description: "list", parametersJsonSchema: tools[0]?.parameters }, { name: "cat" }] }],
    });
  });

  it("fast mode: OpenAI's priority tier and Anthropic's fast speed with its beta header", () => {
    const oa = body({ endpoint: endpoint("openai-responses", { baseUrl: "https://api.openai.com/v1", fastMode: true }), messages: hello, tools: [] });
    expect(oa.service_tier).toBe("priority");
    const wire = buildWireRequest({ endpoint: endpoint("anthropic-messages", { baseUrl: "https://api.anthropic.com", fastMode: true }), messages: hello, tools: [] });
    expect(JSON.parse(wire.body)).toMatchObject({ speed: "fast" });
    expect(wire.headers["anthropic-beta"]).toBe("fast-mode-2026-02-01");
  });
});

describe("tool outputs' JSON text kept from the trace (wire-body.ts)", () => {
  const longOutput = (n: number) => `line ${n}: "quoted" \\ back\tslash é 😀 \u0001\n`.repeat(40);
  function history(): CompleteModelPayload[] {
    return [
      { type: "text", role: "user", text: "run them" },
      { type: "tool_call", role: "assistant", name: "ls", arguments: '{"path":"."}', tool_call_id: "call_1" },
      { type: "tool_call", role: "assistant", name: "cat", arguments: '{"path":"a"}', tool_call_id: "call_2" },
      { type: "tool_call_output", role: "user", tool_call_id: "call_1", output: longOutput(1), stop_reason: "completed" },
      { type: "tool_call_output", role: "user", tool_call_id: "call_2", output: longOutput(2), stop_reason: "failed", images: ["data:image/png;base64,AAAA"] },
      { type: "text", role: "assistant", text: "done" },
      { type: "text", role: "user", text: "again" },
    ];
  }
  /** The same history with each output's JSON text kept as `spell` writes it. */
  function keptAs(spell: (output: string) => string): CompleteModelPayload[] {
    const h = history();
    for (const p of h) if (p.type === "tool_call_output") keepRawOutputJson(p, Buffer.from(spell(p.output), "utf8"));
    return h;
  }
  const clients: ClientType[] = ["openai-chat", "openai-responses", "anthropic-messages", "gemini"];

  it("given outputs kept as JSON.stringify writes them, then every protocol's body is byte for byte the one without them, output cap included", () => {
    for (const clientType of clients) {
      for (const e of [endpoint(clientType), endpoint(clientType, { contextWindow: 10_000, maxTokens: 9500 })]) {
        // Bodies are bytes now (the history list comes from the wire cache): compared as text.
        const plain = textOf(buildWireRequest({ endpoint: e, messages: history(), tools: [] }).body);
        const kept = buildWireRequest({ endpoint: e, messages: keptAs((o) => JSON.stringify(o)), tools: [] }).body;
        expect(kept).toBeInstanceOf(Uint8Array);
        expect([clientType, textOf(kept)]).toEqual([clientType, plain]);
      }
    }
  });

  it("given outputs kept with other escapes than JSON.stringify's, then the body is other bytes with the same JSON value", () => {
    const spell = (o: string) => JSON.stringify(o).replace(/a/g, "\\u0061");
    for (const clientType of clients) {
      const plain = textOf(buildWireRequest({ endpoint: endpoint(clientType), messages: history(), tools: [] }).body);
      const kept = Buffer.from(buildWireRequest({ endpoint: endpoint(clientType), messages: keptAs(spell), tools: [] }).body).toString("utf8");
      expect(kept).not.toBe(plain);
      expect(JSON.parse(kept)).toEqual(JSON.parse(plain));
    }
  });

  it("given outputs kept to be decoded on read (as resume keeps ASCII ones), then every protocol's body is byte for byte the plain one, output cap included, and building it decoded none of them", () => {
    const ascii = (): CompleteModelPayload[] => history().map((p) => (p.type === "tool_call_output" ? { ...p, output: p.output.replace(/[^\x00-\x7f]/g, "?") } : p));
    const isAccessor = (p: CompleteModelPayload) => Object.getOwnPropertyDescriptor(p, "output")?.get !== undefined;
    for (const clientType of clients) {
      // The second endpoint's window is what binds the cap: the estimate of the history decides it.
      for (const e of [endpoint(clientType), endpoint(clientType, { contextWindow: 10_000, maxTokens: 9500 })]) {
        const plain = textOf(buildWireRequest({ endpoint: e, messages: ascii(), tools: [] }).body);
        const h = ascii().map((p) => (p.type === "tool_call_output" ? withOutputDecodedOnRead(p, Buffer.from(JSON.stringify(p.output), "utf8")) : p));
        const outputs = h.filter((p): p is ToolCallOutputPayload => p.type === "tool_call_output");
        expect(outputs.every(isAccessor)).toBe(true);
        const kept = buildWireRequest({ endpoint: e, messages: h, tools: [] }).body;
        expect([clientType, e.maxTokens, outputs.map(isAccessor)]).toEqual([clientType, e.maxTokens, [true, true]]);
        expect([clientType, e.maxTokens, Buffer.from(kept).toString("utf8")]).toEqual([clientType, e.maxTokens, plain]);
      }
    }
  });

  it("outside a body's encoding a kept output is its string, so token estimates and other uses see the text", () => {
    const [output] = keptAs((o) => JSON.stringify(o)).filter((p) => p.type === "tool_call_output");
    const wire = outputForWire(output as ToolCallOutputPayload);
    expect(typeof wire).not.toBe("string");
    expect(JSON.stringify({ content: wire })).toBe(JSON.stringify({ content: (output as ToolCallOutputPayload).output }));
    expect(outputForWire(history()[3] as ToolCallOutputPayload)).toBe(longOutput(1));
  });
});
