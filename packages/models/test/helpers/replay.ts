/**
 * Test helpers: run `streamModel` to the end and collect what it yields, and build model
 * endpoints and requests for the fixture protocols. Shared by the fixture, split, fidelity and
 * error suites so each reads as arrange → run → assert.
 */
import type { ModelPayload } from "@penguin/omnimessage";
import { fixtureProtocol, fixtureToSse, readFixture, type WireProtocol } from "@penguin/testkit";
import { CLIENT_TYPES, streamModel, type ClientType, type ModelEndpoint, type ModelOutcome, type ModelRequest } from "../../src/index.js";

export interface Run {
  items: ModelPayload[];
  outcome: ModelOutcome;
}

/** Drains the generator; the test fails (by throwing) only if streamModel itself throws. */
export async function run(req: ModelRequest): Promise<Run> {
  const items: ModelPayload[] = [];
  const gen = streamModel(req);
  for (;;) {
    const step = await gen.next();
    if (step.done === true) return { items, outcome: step.value };
    items.push(step.value);
  }
}

export function completes(items: ModelPayload[]): ModelPayload[] {
  return items.filter((p) => !p.type.startsWith("partial_"));
}

export function endpointFor(protocol: ClientType, baseUrl: string, extra: Partial<ModelEndpoint> = {}): ModelEndpoint {
  return { provider: "test", modelId: "test-model", clientType: protocol, baseUrl, apiKey: "sk-test-secret-key-0001", ...extra };
}

export function request(endpoint: ModelEndpoint, extra: Partial<ModelRequest> = {}): ModelRequest {
  return {
    endpoint,
    systemPrompt: "You are a test.",
    messages: [{ type: "text", role: "user", text: "hello" }],
    tools: [],
    ...extra,
  };
}

/** The fixture's SSE body, as the testkit replays it. */
export function fixtureSse(name: string): { protocol: WireProtocol; body: Uint8Array } {
  const protocol = fixtureProtocol(`/x/${name}`);
  if (protocol === undefined) throw new Error(`no protocol folder in ${name}`);
  return { protocol, body: new TextEncoder().encode(fixtureToSse(readFixture(name), protocol)) };
}

/** A fetch that answers 200 with the body cut at the given offsets (one stream chunk each). */
export function piecesFetch(body: Uint8Array, offsets: number[]): typeof fetch {
  return async () => {
    const cuts = [...offsets, body.length];
    let start = 0;
    const pieces: Uint8Array[] = [];
    for (const c of cuts) {
      if (c > start) pieces.push(body.slice(start, c));
      start = c;
    }
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = pieces.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(next);
      },
    });
    return new Response(stream, { status: 200, headers: { "content-type": "text/event-stream" } });
  };
}

/** The raw text of `"key":"<value>"` in the fixture file (an independent regex read, for byte comparisons). */
export function stringsInFixture(name: string, key: string): string[] {
  const text = readFixture(name);
  const re = new RegExp(`"${key}":"((?:[^"\\\\]|\\\\.)*)"`, "g");
  return [...text.matchAll(re)].map((m) => m[1] ?? "").filter((s) => s !== "");
}

/** The client type of a fixture name (`<protocol>/<file>`). */
export function protocolOf(name: string): ClientType {
  const folder = name.split("/")[0];
  const found = CLIENT_TYPES.find((c) => c === folder);
  if (found === undefined) throw new Error(`fixture ${name} is not in a protocol folder`);
  return found;
}
