/**
 * Request bodies and a poster for the tests: the minimal well-formed request of each protocol,
 * and a multi-turn conversation with two parallel tool calls answered, per protocol.
 */
import type { Testkit, WireProtocol } from "../../src/index.js";

export function modelUrl(kit: Testkit, protocol: WireProtocol, stream = true, model = "test-model"): string {
  const base = kit.baseUrl(protocol);
  switch (protocol) {
    case "openai-chat":
      return `${base}/chat/completions`;
    case "openai-responses":
      return `${base}/responses`;
    case "anthropic-messages":
      return `${base}/v1/messages`;
    case "gemini":
      return stream ? `${base}/models/${model}:streamGenerateContent?alt=sse` : `${base}/models/${model}:generateContent`;
  }
}

export function post(kit: Testkit, protocol: WireProtocol, body: unknown, stream = true): Promise<Response> {
  return fetch(modelUrl(kit, protocol, stream), {
    method: "POST",
    headers: { "content-type": "application/json", ...(protocol === "anthropic-messages" ? { "anthropic-version": "2023-06-01" } : {}) },
    body: JSON.stringify(body),
  });
}

/** The smallest valid request: one user message. */
export function simpleRequest(protocol: WireProtocol, text = "hello", stream = true): Record<string, unknown> {
  switch (protocol) {
    case "openai-chat":
      return { model: "test-model", stream, stream_options: { include_usage: true }, messages: [{ role: "user", content: text }] };
    case "openai-responses":
      return { model: "test-model", stream, input: [{ role: "user", content: [{ type: "input_text", text }] }] };
    case "anthropic-messages":
      return { model: "test-model", stream, max_tokens: 1024, messages: [{ role: "user", content: text }] };
    case "gemini":
      return { contents: [{ role: "user", parts: [{ text }] }] };
  }
}

/**
 * system → user → assistant (thinking, text, two calls) → both results → assistant text →
 * user. Well formed in every protocol.
 */
export function multiTurnRequest(protocol: WireProtocol): Record<string, unknown> {
  switch (protocol) {
    case "openai-chat":
      return {
        model: "test-model",
        stream: true,
        tools: [{ type: "function", function: { name: "read", parameters: {} } }],
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "Read a and b" },
          {
            role: "assistant",
            content: "Reading.",
            reasoning_content: "Two reads.",
            tool_calls: [
              { id: "call_a", type: "function", function: { name: "read", arguments: '{"path":"a"}' } },
              { id: "call_b", type: "function", function: { name: "read", arguments: '{"path":"b"}' } },
            ],
          },
          { role: "tool", tool_call_id: "call_b", content: "B" },
          { role: "tool", tool_call_id: "call_a", content: "A" },
          { role: "assistant", content: "A and B." },
          { role: "user", content: "Thanks" },
        ],
      };
    case "openai-responses":
      return {
        model: "test-model",
        stream: true,
        instructions: "Be brief.",
        tools: [{ type: "function", name: "read", parameters: {} }],
        input: [
          { role: "user", content: [{ type: "input_text", text: "Read a and b" }] },
          { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Two reads." }], encrypted_content: "enc" },
          { type: "message", role: "assistant", content: [{ type: "output_text", text: "Reading." }] },
          { type: "function_call", call_id: "call_a", name: "read", arguments: '{"path":"a"}' },
          { type: "function_call", call_id: "call_b", name: "read", arguments: '{"path":"b"}' },
          { type: "function_call_output", call_id: "call_a", output: "A" },
          { type: "function_call_output", call_id: "call_b", output: "B" },
          { role: "assistant", content: [{ type: "output_text", text: "A and B." }] },
          { role: "user", content: [{ type: "input_text", text: "Thanks" }] },
        ],
      };
    case "anthropic-messages":
      return {
        model: "test-model",
        stream: true,
        max_tokens: 1024,
        system: [{ type: "text", text: "Be brief." }],
        tools: [{ name: "read", input_schema: { type: "object" } }],
        messages: [
          { role: "user", content: "Read a and b" },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "Two reads.", signature: "sig" },
              { type: "text", text: "Reading." },
              { type: "tool_use", id: "toolu_a", name: "read", input: { path: "a" } },
              { type: "tool_use", id: "toolu_b", name: "read", input: { path: "b" } },
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "toolu_a", content: "A" },
              { type: "tool_result", tool_use_id: "toolu_b", content: [{ type: "text", text: "B" }] },
            ],
          },
          { role: "assistant", content: [{ type: "text", text: "A and B." }] },
          { role: "user", content: [{ type: "text", text: "Thanks" }] },
        ],
      };
    case "gemini":
      return {
        systemInstruction: { parts: [{ text: "Be brief." }] },
        tools: [{ functionDeclarations: [{ name: "read" }, { name: "list" }] }],
        contents: [
          { role: "user", parts: [{ text: "Read a and list b" }] },
          {
            role: "model",
            parts: [
              { text: "Two calls.", thought: true },
              { text: "Reading." },
              { functionCall: { name: "read", args: { path: "a" } }, thoughtSignature: "sig" },
              { functionCall: { name: "list", args: { path: "b" } } },
            ],
          },
          {
            role: "user",
            parts: [
              { functionResponse: { name: "list", response: { result: "B" } } },
              { functionResponse: { name: "read", response: { result: "A" } } },
            ],
          },
          { role: "model", parts: [{ text: "A and B." }] },
          { role: "user", parts: [{ text: "Thanks" }] },
        ],
      };
  }
}
