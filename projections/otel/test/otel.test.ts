// The span tree of recorded sessions (fixtures/traces, read with the trace package's parser) and
// its export through the real OpenTelemetry OTLP/HTTP exporter to an in-test collector: the
// tree's shape (tasks, chat per request with usage and finish reason, execute_tool per call,
// compaction, subagent), every GenAI attribute name found among
// @opentelemetry/semantic-conventions' constants, contents only when asked, and the same ids
// on every export (so a collector recognises a repeat).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import * as semconv from "@opentelemetry/semantic-conventions/incubating";
import { parseTraceText } from "@penguin/trace";
import { exportSpans, GEN_AI, sessionSpans, traceIdOf, type TraceRecord } from "../src/index.js";
import { startOtlpReceiver, type OtlpReceiver } from "./otlp-receiver.js";

const FIXTURES = fileURLToPath(new URL("../../../fixtures/traces/", import.meta.url));

function recordsOf(folder: string): TraceRecord[] {
  const dir = join(FIXTURES, folder);
  const files = readdirSync(dir).filter((f) => f.endsWith(".jsonl")).sort();
  const messages = files.flatMap((f) => parseTraceText(readFileSync(join(dir, f), "utf8")).messages);
  return messages.map((message, i) => ({ n: i + 1, message }));
}

let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

/** Every `gen_ai.*` attribute name the semantic conventions define. */
const GEN_AI_NAMES = new Set(Object.entries(semconv).flatMap(([k, v]) => (k.startsWith("ATTR_GEN_AI_") && typeof v === "string" ? [v] : [])));

describe("the span tree of a recorded session", () => {
  it("has an invoke_agent per task, a chat per request with usage and finish reason, an execute_tool per call", () => {
    const records = recordsOf("tools");
    const spans = sessionSpans(records);
    const sessionId = records[0]!.message.type === "session_meta" ? records[0]!.message.payload.session_id : "";
    const tasks = spans.filter((s) => s.attributes[GEN_AI.operationName] === "invoke_agent");
    const chats = spans.filter((s) => s.attributes[GEN_AI.operationName] === "chat");
    const tools = spans.filter((s) => s.attributes[GEN_AI.operationName] === "execute_tool");
    const humanInputs = records.filter((r) => r.message.type === "model_msg" && r.message.payload.type === "text" && r.message.payload.role === "user" && r.message.payload.sender === undefined);
    const requests = records.filter((r) => r.message.type === "event_msg" && r.message.payload.type === "request_begin");
    const calls = records.filter((r) => r.message.type === "model_msg" && r.message.payload.type === "tool_call");
    expect(tasks).toHaveLength(humanInputs.length);
    expect(chats).toHaveLength(requests.length);
    expect(tools).toHaveLength(calls.length);
    expect(tasks.length).toBeGreaterThanOrEqual(2);
    for (const s of spans) {
      expect(s.traceId).toBe(traceIdOf(sessionId));
      expect(s.attributes[GEN_AI.conversationId]).toBe(sessionId);
      expect(s.endMs).toBeGreaterThanOrEqual(s.startMs);
    }
    const taskIds = new Set(tasks.map((t) => t.spanId));
    for (const s of [...chats, ...tools]) expect(taskIds.has(s.parentSpanId!)).toBe(true);
    for (const c of chats) {
      expect(c.attributes[GEN_AI.finishReasons]).toEqual(["completed"]);
      expect(c.attributes[GEN_AI.outputTokens]).toEqual(expect.any(Number));
      expect(c.attributes[GEN_AI.inputTokens]).toEqual(expect.any(Number));
    }
    // A denied command is a failed tool call.
    expect(tools.some((t) => t.status.code === "error")).toBe(true);
    expect(new Set(spans.map((s) => s.spanId)).size).toBe(spans.length);
  });

  it("has compaction and subagent spans", () => {
    expect(sessionSpans(recordsOf("compaction")).some((s) => s.name === "compaction")).toBe(true);
    const sub = sessionSpans(recordsOf("subagent")).find((s) => s.name === "invoke_agent subagent");
    expect(sub?.attributes["penguin.subagent.session_id"]).toEqual(expect.stringMatching(/^session-/));
  });

  it("names every gen_ai attribute as @opentelemetry/semantic-conventions does", () => {
    expect(GEN_AI_NAMES.size).toBeGreaterThan(20);
    for (const name of Object.values(GEN_AI)) expect(GEN_AI_NAMES.has(name), name).toBe(true);
    const used = new Set(["tools", "compaction", "subagent"].flatMap((f) => sessionSpans(recordsOf(f), { contents: true }).flatMap((s) => Object.keys(s.attributes))));
    for (const name of used) if (name.startsWith("gen_ai.")) expect(GEN_AI_NAMES.has(name), name).toBe(true);
  });

  it("carries prompts, answers and tool data only with contents on", () => {
    const off = JSON.stringify(sessionSpans(recordsOf("tools")));
    const on = sessionSpans(recordsOf("tools"), { contents: true });
    for (const key of [GEN_AI.inputMessages, GEN_AI.outputMessages, GEN_AI.toolArguments, GEN_AI.toolResult]) {
      expect(off).not.toContain(key);
      expect(on.some((s) => s.attributes[key] !== undefined), key).toBe(true);
    }
  });
});

describe("OTLP/HTTP export", () => {
  it("sends the tree through the OpenTelemetry exporter; a second export sends the same spans", async () => {
    receiver = await startOtlpReceiver();
    const spans = sessionSpans(recordsOf("tools"));
    await exportSpans(spans, { endpoint: receiver.url, serviceName: "penguin-test" });
    const first = await receiver.waitFor(spans.length);
    expect(first).toHaveLength(spans.length);
    expect(first.map((s) => s.spanId).sort()).toEqual(spans.map((s) => s.spanId).sort());
    const task = first.find((s) => s.name.startsWith("invoke_agent"))!;
    expect(task.serviceName).toBe("penguin-test");
    expect(task.attributes[GEN_AI.conversationId]).toBe(spans[0]!.attributes[GEN_AI.conversationId]);
    const chat = first.find((s) => s.name.startsWith("chat "))!;
    expect(chat.parentSpanId).toBeDefined();
    expect(chat.attributes[GEN_AI.outputTokens]).toEqual(expect.any(Number));

    await exportSpans(sessionSpans(recordsOf("tools")), { endpoint: `${receiver.url}/v1/traces` });
    const both = await receiver.waitFor(spans.length * 2);
    const key = (s: { spanId: string; traceId: string; parentSpanId?: string | undefined; name: string }) => `${s.traceId}/${s.spanId}/${s.parentSpanId ?? ""}/${s.name}`;
    expect(both.slice(spans.length).map(key).sort()).toEqual(first.map(key).sort());
  });

  it("rejects with the exporter's error when the collector refuses", async () => {
    receiver = await startOtlpReceiver();
    await expect(exportSpans(sessionSpans(recordsOf("tools")), { endpoint: `${receiver.url}/not-traces/v1/traces` })).rejects.toThrow();
  });
});
