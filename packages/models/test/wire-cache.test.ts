// The wire cache (src/wire-cache.ts) against the encoders it stands in for: for each of the four
// protocols, over random histories that grow request by request and are compacted, edited,
// cut back and resumed (outputs kept as JSON text, as the trace reader keeps them), the body
// built from the cache is byte for byte the body encoded afresh (the cache bypassed), output cap
// included, whether a request's list is a new array or the previous one's grown (as core's adapter
// sends it); one more request encodes only its new runs, and a grown list compares none of its
// payloads; and each body begins with the previous one's history list (Anthropic: but for its
// moved cache breakpoint).
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { keepRawOutputJson, withOutputDecodedOnRead, type CompleteModelPayload } from "@penguin/omnimessage";
import { buildWireRequest, type ClientType, type ModelEndpoint, type ModelRequest, type WireRequest } from "../src/index.js";
import { setWireCacheBypass, wireCacheCounters } from "../src/wire-cache.js";

const CLIENTS: ClientType[] = ["openai-chat", "openai-responses", "anthropic-messages", "gemini"];

function textOf(body: WireRequest["body"]): string {
  return typeof body === "string" ? body : Buffer.concat(body instanceof Uint8Array ? [body] : body).toString("utf8");
}

/** The body encoded afresh: the cache bypassed, and left as it was. */
function freshBody(req: ModelRequest): string {
  setWireCacheBypass(true);
  try {
    return textOf(buildWireRequest(req).body);
  } finally {
    setWireCacheBypass(false);
  }
}

/** The body built from the cache, and the one encoded afresh. */
function bothBodies(req: ModelRequest): { cached: string; fresh: string } {
  const cached = textOf(buildWireRequest(req).body);
  return { cached, fresh: freshBody(req) };
}

const words = fc.string({ unit: fc.constantFrom("a", "b", " ", "é", "😀", '"', "\\", "\n", "\u0001"), maxLength: 12 });
const ids = fc.constantFrom("c1", "c2", "c3", "c4");
const names = fc.constantFrom("ls", "cat", "exec_command");
const fidelity = fc.option(
  fc.oneof(
    fc.record({ reasoning_field: fc.constantFrom("reasoning_content", "reasoning", "content_thinking") }),
    fc.record({ signature: words }),
    fc.record({ redacted_thinking: words }),
    fc.record({ thoughtSignature: words }),
    fc.record({ item_id: fc.constantFrom("msg_1", "fc_1") }),
    words.map((w) => ({ reasoning_item: JSON.stringify({ type: "reasoning", id: "rs_1", summary: [], encrypted_content: w }) })),
  ),
  { nil: undefined },
);

/** A payload of any kind the history holds, fidelity and images included. */
const payload: fc.Arbitrary<CompleteModelPayload> = fc.oneof(
  fc.record({ type: fc.constant("text" as const), role: fc.constantFrom("user" as const, "assistant" as const), text: words, fidelity }),
  fc.record({ type: fc.constant("thinking" as const), role: fc.constant("assistant" as const), thinking: words, fidelity }),
  fc.record({ type: fc.constant("inline_thinking" as const), role: fc.constant("assistant" as const), data: words, mime_type: fc.constant("text/plain") }),
  fc.record({ type: fc.constant("tool_call" as const), role: fc.constant("assistant" as const), name: names, arguments: fc.constantFrom('{"a":1}', "{}", "not json"), tool_call_id: ids, fidelity }),
  fc.record({
    type: fc.constant("tool_call_output" as const),
    role: fc.constant("user" as const),
    output: words,
    tool_call_id: ids,
    stop_reason: fc.constantFrom("completed" as const, "failed" as const),
    images: fc.option(fc.constant(["data:image/png;base64,AAAA"]), { nil: undefined }),
  }),
  fc.record({ type: fc.constant("image_url" as const), role: fc.constant("user" as const), image_url: fc.constantFrom("https://x/y.png", "data:image/png;base64,AAAA") }),
  fc.record({ type: fc.constant("inline_data" as const), role: fc.constantFrom("user" as const, "assistant" as const), data: fc.constant("AAAA"), mime_type: fc.constantFrom("image/png", "application/pdf") }),
).map((p) => {
  // fc.record with an optional field gives `undefined` members: drop them, as real payloads have none.
  const clean: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(p)) if (v !== undefined) clean[k] = v;
  return clean as CompleteModelPayload;
});

/** What happens to the history between two requests. */
type Step =
  | { kind: "append"; payloads: CompleteModelPayload[] }
  | { kind: "compact"; keep: number; summary: string }
  | { kind: "edit"; at: number; payload: CompleteModelPayload }
  | { kind: "cut"; count: number }
  | { kind: "resume" };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.array(payload, { minLength: 1, maxLength: 4 }).map((payloads) => ({ kind: "append" as const, payloads })) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("compact" as const), keep: fc.nat(3), summary: words }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("edit" as const), at: fc.nat(), payload }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("cut" as const), count: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "resume" as const }) },
);

/** A fresh copy of a payload (what a trace read gives back): outputs kept as their JSON text, half of them decoded on read. */
function readBack(p: CompleteModelPayload, n: number): CompleteModelPayload {
  const copy = structuredClone(p);
  if (copy.type !== "tool_call_output") return copy;
  const json = Buffer.from(JSON.stringify(copy.output), "utf8");
  if (n % 2 === 0 && !/[^\x00-\x7f]/.test(copy.output)) return withOutputDecodedOnRead(copy, json);
  keepRawOutputJson(copy, json);
  return copy;
}

function apply(history: CompleteModelPayload[], s: Step): CompleteModelPayload[] {
  switch (s.kind) {
    case "append":
      // New objects each time, as the engine makes them; the history's own stay.
      return [...history, ...s.payloads.map((p) => structuredClone(p))];
    case "compact":
      return [{ type: "text", role: "user", text: `summary: ${s.summary}` }, ...history.slice(Math.max(0, history.length - s.keep))];
    case "edit": {
      if (history.length === 0) return history;
      const next = [...history];
      next[s.at % history.length] = structuredClone(s.payload);
      return next;
    }
    case "cut":
      return history.slice(0, Math.max(0, history.length - s.count));
    case "resume":
      return history.map(readBack);
  }
}

function endpoint(clientType: ClientType, small: boolean): ModelEndpoint {
  const e: ModelEndpoint = { provider: "p", modelId: "m", clientType, baseUrl: "https://api.example/v1", apiKey: "k" };
  // A window small enough that the history's estimate decides the output cap.
  if (small) Object.assign(e, { contextWindow: 4096, maxTokens: 4000 });
  return e;
}

const tools = [{ name: "ls", description: "list", parameters: { type: "object", properties: { path: { type: "string" } } } }];

describe("a body built from the wire cache is the body encoded afresh", () => {
  for (const clientType of CLIENTS) {
    it(`${clientType}: over random histories, growing, compacted, edited, cut back and resumed`, () => {
      fc.assert(
        fc.property(fc.array(step, { minLength: 1, maxLength: 25 }), fc.boolean(), fc.boolean(), fc.boolean(), (steps, small, system, grown) => {
          let history: CompleteModelPayload[] = [];
          for (const s of steps) {
            // Grown as gateway-llm.ts grows its list: an append pushes onto the array the last
            // request was given; anything else makes a new one.
            if (grown && s.kind === "append") history.push(...s.payloads.map((p) => structuredClone(p)));
            else history = apply(history, s);
            const req: ModelRequest = { endpoint: endpoint(clientType, small), messages: history, tools };
            if (system) req.systemPrompt = "You are a coding agent. é";
            const { cached, fresh } = bothBodies(req);
            expect(cached).toBe(fresh);
          }
        }),
        { numRuns: 150 },
      );
    });
  }
});

/** A realistic session's history after `turns` turns: a prompt, then per turn thinking, a call, its output and an answer. */
function session(turns: number, clientType: ClientType): CompleteModelPayload[] {
  const out: CompleteModelPayload[] = [{ type: "text", role: "user", text: "fix the build" }];
  for (let n = 0; n < turns; n++) out.push(...turn(n, clientType));
  return out;
}

function turn(n: number, clientType: ClientType): CompleteModelPayload[] {
  const sig = clientType === "anthropic-messages" ? { signature: `s${n}` } : clientType === "gemini" ? { thoughtSignature: `t${n}` } : { reasoning_field: "reasoning_content" };
  return [
    { type: "thinking", role: "assistant", thinking: `think ${n}`, fidelity: sig },
    { type: "tool_call", role: "assistant", name: "ls", arguments: `{"n":${n}}`, tool_call_id: `call_${n}` },
    { type: "tool_call_output", role: "user", output: `output ${n} `.repeat(50), tool_call_id: `call_${n}`, stop_reason: "completed" },
    { type: "text", role: "assistant", text: `answer ${n}` },
    { type: "text", role: "user", text: `next ${n}` },
  ];
}

describe("a long history's first request (runs written as one span in flat lists) and what follows it", () => {
  for (const clientType of CLIENTS) {
    it(`${clientType}: a resumed session of 20-40 turns, then growing, edited inside, cut back, compacted`, () => {
      fc.assert(
        fc.property(fc.integer({ min: 20, max: 40 }), fc.array(step, { minLength: 1, maxLength: 8 }), fc.boolean(), fc.boolean(), (turns, steps, small, grown) => {
          // Read back as a resume does: new objects, outputs kept as JSON text; over 64 runs at once.
          let history = session(turns, clientType).map(readBack);
          const first = bothBodies({ endpoint: endpoint(clientType, small), messages: history, tools });
          expect(first.cached).toBe(first.fresh);
          for (const s of steps) {
            if (grown && s.kind === "append") history.push(...s.payloads.map((p) => structuredClone(p)));
            else history = apply(history, s);
            const { cached, fresh } = bothBodies({ endpoint: endpoint(clientType, small), messages: history, tools });
            expect(cached).toBe(fresh);
          }
        }),
        { numRuns: 40 },
      );
    });
  }
});

describe("one more request encodes its new runs only", () => {
  for (const clientType of CLIENTS) {
    it(`${clientType}: after 40 turns, a turn's two requests encode 2 runs each, not the history`, () => {
      let history = session(40, clientType);
      buildWireRequest({ endpoint: endpoint(clientType, false), messages: history, tools });
      const perRequest: number[] = [];
      const charShare: number[] = [];
      for (let n = 40; n < 43; n++) {
        const [think, call, output, answer, next] = turn(n, clientType) as [CompleteModelPayload, CompleteModelPayload, CompleteModelPayload, CompleteModelPayload, CompleteModelPayload];
        for (const added of [[think, call, output], [answer, next]]) {
          history = [...history, ...added];
          const before = { ...wireCacheCounters };
          const body = buildWireRequest({ endpoint: endpoint(clientType, false), messages: history, tools }).body;
          perRequest.push(wireCacheCounters.encodedRuns - before.encodedRuns);
          charShare.push(Math.round((100 * (wireCacheCounters.encodedChars - before.encodedChars)) / textOf(body).length));
        }
      }
      // Each request adds an assistant run and a user run: a few percent of a 40-turn body.
      expect(perRequest).toEqual([2, 2, 2, 2, 2, 2]);
      expect(charShare.every((share) => share <= 5)).toBe(true);
    });

    it(`${clientType}: a list that is the previous request's array grown compares none of its payloads`, () => {
      // The same turns twice, on two histories of their own: pushed onto one array, as
      // gateway-llm.ts sends them, then a new array per request (compared item by item).
      const compared = (grown: boolean): number[] => {
        let history = session(40, clientType);
        buildWireRequest({ endpoint: endpoint(clientType, false), messages: history, tools });
        const counts: number[] = [];
        for (let n = 40; n < 43; n++) {
          const t = turn(n, clientType);
          for (const added of [t.slice(0, 3), t.slice(3)]) {
            if (grown) history.push(...added);
            else history = [...history, ...added];
            const counted = wireCacheCounters.comparedItems;
            const body = textOf(buildWireRequest({ endpoint: endpoint(clientType, false), messages: history, tools }).body);
            counts.push(wireCacheCounters.comparedItems - counted);
            expect(body).toBe(freshBody({ endpoint: endpoint(clientType, false), messages: history, tools }));
          }
        }
        return counts;
      };
      expect(compared(true)).toEqual([0, 0, 0, 0, 0, 0]);
      // New arrays: the whole previous list, 201 payloads after 40 turns and growing.
      expect(compared(false)).toEqual([201, 204, 206, 209, 211, 214]);
    });
  }
});

describe("each body begins with the previous one's history list", () => {
  const BREAKPOINT = ',"cache_control":{"type":"ephemeral"}';
  for (const clientType of CLIENTS) {
    it(`${clientType}: over 30 requests${clientType === "anthropic-messages" ? ", the moved breakpoint set aside" : ""}`, () => {
      let history: CompleteModelPayload[] = [{ type: "text", role: "user", text: "start" }];
      let previous: string | undefined;
      const key = { "openai-chat": "messages", "openai-responses": "input", "anthropic-messages": "messages", gemini: "contents" }[clientType];
      const closing = clientType === "anthropic-messages" || clientType === "gemini" ? "]}]" : "]";
      const unmarked = (text: string) => (clientType === "anthropic-messages" ? text.replaceAll(BREAKPOINT, "") : text);
      for (let n = 0; n < 15; n++) {
        const t = turn(n, clientType);
        // A turn's two requests: the call and its output, then the answer and the next prompt.
        for (const added of [t.slice(0, 3), t.slice(3)]) {
          history = [...history, ...added];
          const body = textOf(buildWireRequest({ endpoint: endpoint(clientType, false), messages: history, tools, systemPrompt: "sys" }).body);
          if (previous !== undefined) {
            // The previous body up to its list's closing bracket(s).
            const list = JSON.stringify((JSON.parse(previous) as Record<string, unknown>)[key]);
            const end = previous.indexOf(`"${key}":${list}`) + key.length + 3 + list.length - closing.length;
            expect(list.endsWith(closing)).toBe(true);
            expect(unmarked(body).startsWith(unmarked(previous.slice(0, end)))).toBe(true);
          }
          previous = body;
        }
      }
    });
  }
});
