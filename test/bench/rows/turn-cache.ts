// Row 16: what one more turn costs on a long session, and how much of each request the next
// one begins with (issue 33, "O(new messages) per turn"; packages/models src/wire-cache.ts).
// - For traces of 1k, 10k, 50k and 100k lines written by the real writer (as row 5), a session
//   is resumed and its first turn taken: that one encodes the history read back, timed beside
//   the same first turn with the wire cache bypassed (a second resume of the same trace). Then
//   each further turn is timed from `session.run` to the first byte of its request at the
//   model (a relay in front of the testkit, as row 5): the engine's own work before the model
//   can answer, wall and process CPU, beside the same turns with the cache bypassed
//   (`setWireCacheBypass`: every request encodes its whole body, as before the cache). The
//   characters of JSON encoded per turn are printed beside the request body's size, and the
//   history payloads the cache compared with the previous request's (none: core sends it the
//   same array, grown).
// - Per protocol, a 50-turn scripted session (a tool call and an answer per turn, 100 requests)
//   against the testkit: of the bytes of each request up to its history list's closing
//   bracket, the share the next request begins with. Anthropic moves its cache breakpoint to
//   the newest user block, so its share is printed as the wire has it and with that one marker
//   set aside (packages/models README, "What the next request changes").
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { startTestkit, type WireProtocol } from "@penguin/testkit";
import { setWireCacheBypass, wireCacheCounters } from "@penguin/models";
import { userText } from "@penguin/omnimessage";
import type { Agent, Session } from "@penguin/core";
import { metric, type Metric, type RowResult } from "../lib/stats.js";
import { makeWorld } from "../lib/world.js";
import { firstByteRelay, writeTrace } from "./trace.js";

const PROTOCOLS: WireProtocol[] = ["openai-chat", "openai-responses", "anthropic-messages", "gemini"];
const LIST_KEY: Record<WireProtocol, string> = { "openai-chat": "messages", "openai-responses": "input", "anthropic-messages": "messages", gemini: "contents" };
const BREAKPOINT = ',"cache_control":{"type":"ephemeral"}';

async function drain(session: Session, text: string): Promise<void> {
  for await (const _ of session.run([userText(text)], { approve: async () => "allow" })) {
    // drain
  }
}

interface Turn {
  ms: number;
  cpuMs: number;
  encodedChars: number;
  comparedItems: number;
  bodyBytes: number;
}

type Relay = Awaited<ReturnType<typeof firstByteRelay>>;
type Kit = Awaited<ReturnType<typeof startTestkit>>;

/** One turn of `session`, timed from `run` to the first byte of its request at the model. */
async function timedTurn(kit: Kit, relay: Relay, session: Session): Promise<Turn> {
  // The reply keeps usage small, so no turn starts with a compaction.
  kit.enqueue({ text: "ok", usage: { input: 1000, output: 5 } });
  const firstByte = relay.next();
  const chars = wireCacheCounters.encodedChars;
  const compared = wireCacheCounters.comparedItems;
  const startCpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  const run = drain(session, "continue");
  const byte = await firstByte;
  const encodedChars = wireCacheCounters.encodedChars - chars;
  const comparedItems = wireCacheCounters.comparedItems - compared;
  await run;
  const request = kit.requests[kit.requests.length - 1];
  const bodyBytes = request === undefined ? 0 : Buffer.byteLength(request.rawBody, "utf8");
  // The testkit keeps every request (tens of MB each here): dropped, as row 5 does.
  kit.requests.splice(0);
  const cpuMs = (byte.cpu.user - startCpu.user + byte.cpu.system - startCpu.system) / 1000;
  return { ms: Number(byte.at - start) / 1e6, cpuMs, encodedChars, comparedItems, bodyBytes };
}

async function bypassed<T>(fn: () => Promise<T>): Promise<T> {
  setWireCacheBypass(true);
  try {
    return await fn();
  } finally {
    setWireCacheBypass(false);
  }
}

export async function rowTurnCache(runs: number, sizes: number[]): Promise<RowResult> {
  const metrics: Metric[] = [];
  const notes: string[] = [];
  await oneMoreTurn(runs, sizes, metrics, notes);
  for (const protocol of PROTOCOLS) await prefixShares(protocol, metrics);
  return { row: 16, title: "One more turn on a long session (wire cache), and the prefix each request keeps", metrics, note: notes.join(", ") };
}

async function oneMoreTurn(runs: number, sizes: number[], metrics: Metric[], notes: string[]): Promise<void> {
  const kit = await startTestkit();
  const upstream = new URL(kit.url);
  const relay = await firstByteRelay({ host: upstream.hostname, port: Number(upstream.port) });
  const world = await makeWorld(`${relay.url}/v1`);
  // Each first turn starts from a collected heap, so neither pays for the other's garbage.
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  const firstTurn = async (agent: Agent, sessionId: string): Promise<{ turn: Turn; session: Session }> => {
    const session = await agent.resumeSession({ sessionId });
    gc();
    return { turn: await timedTurn(kit, relay, session), session };
  };
  try {
    for (const lines of sizes) {
      const { sessionId, bytes } = writeTrace(world.agent, world.workspace, lines);
      // The first turn after a resume, with and without the cache, alternated, each on its own
      // resume of the trace; the last cached one's session goes on.
      const firsts: Turn[] = [];
      const bareFirsts: Turn[] = [];
      let resumed: Session | undefined;
      for (let i = 0; i < 3; i++) {
        const bare = await bypassed(() => firstTurn(world.agent, sessionId));
        bareFirsts.push(bare.turn);
        await bare.session.dispose();
        const next = await firstTurn(world.agent, sessionId);
        firsts.push(next.turn);
        if (i < 2) await next.session.dispose();
        else resumed = next.session;
      }
      if (resumed === undefined) throw new Error("row 16: no session");
      const session = resumed;
      const first = firsts[0] as Turn;
      try {
        const cached: Turn[] = [];
        for (let i = 0; i < runs; i++) cached.push(await timedTurn(kit, relay, session));
        const whole: Turn[] = [];
        await bypassed(async () => {
          for (let i = 0; i < runs; i++) whole.push(await timedTurn(kit, relay, session));
        });
        notes.push(`${lines} lines = ${(bytes / 1e6).toFixed(1)} MB, body ${(first.bodyBytes / 1e6).toFixed(1)} MB`);
        const baseline = (name: string, samples: number[]) => ({ baseline: { name, samples } });
        metrics.push(metric(`${lines} lines: first turn after resume → first request byte, CPU`, "ms", "lower", firsts.map((t) => t.cpuMs), baseline("no cache", bareFirsts.map((t) => t.cpuMs))));
        metrics.push(
          metric(`${lines} lines: one more turn → first request byte`, "ms", "lower", cached.map((t) => t.ms), {
            ...baseline("no cache", whole.map((t) => t.ms)),
            ...(lines === 100_000 ? { goal: "≤ 5 ms" } : {}),
          }),
        );
        metrics.push(metric(`${lines} lines: process CPU over the same span`, "ms", "lower", cached.map((t) => t.cpuMs), baseline("no cache", whole.map((t) => t.cpuMs))));
        metrics.push(
          metric(`${lines} lines: JSON characters encoded per turn`, "chars", "lower", cached.map((t) => t.encodedChars), {
            ...baseline("no cache", whole.map((t) => t.encodedChars)),
            goal: "the new messages'",
          }),
        );
        metrics.push(metric(`${lines} lines: history payloads the cache compared with the previous request's`, "payloads", "lower", cached.map((t) => t.comparedItems)));
        metrics.push(metric(`${lines} lines: request body`, "bytes", "lower", cached.map((t) => t.bodyBytes)));
      } finally {
        await session.dispose();
      }
    }
  } finally {
    await relay.close();
    await kit.close();
    world.cleanup();
  }
}

/** The index just past the last byte before the closing of `body`'s history list. */
function listOpenEnd(body: string, key: string): number {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  const list = `"${key}":${JSON.stringify(parsed[key])}`;
  const at = body.indexOf(list);
  if (at < 0) throw new Error(`row 16: no ${key} list in a request body`);
  const closing = list.endsWith("]}]") ? 3 : 1;
  return at + list.length - closing;
}

/** Of `previous` up to `end`, the share `next` begins with. */
function share(previous: string, next: string, end: number): number {
  let same = 0;
  while (same < end && previous.charCodeAt(same) === next.charCodeAt(same)) same++;
  return (100 * same) / end;
}

async function prefixShares(protocol: WireProtocol, metrics: Metric[]): Promise<void> {
  const kit = await startTestkit();
  const world = await makeWorld(kit.baseUrl(protocol), protocol);
  try {
    const session = await world.agent.createSession({ workspaceDir: world.workspace });
    for (let n = 0; n < 50; n++) {
      kit.enqueue({ toolCalls: [{ name: "read_file", arguments: { file_path: "notes.txt" } }], usage: { input: 500, output: 10 } }, { text: `done ${n}`, usage: { input: 500, output: 5 } });
      await drain(session, `task ${n}: read the notes`);
    }
    await session.dispose();
    const bodies = kit.requests.map((r) => r.rawBody);
    if (bodies.length !== 100) throw new Error(`row 16: expected 100 requests for ${protocol}, saw ${bodies.length}`);
    const key = LIST_KEY[protocol];
    const wire: number[] = [];
    const unmarked: number[] = [];
    for (let i = 1; i < bodies.length; i++) {
      const previous = bodies[i - 1] as string;
      const next = bodies[i] as string;
      const end = listOpenEnd(previous, key);
      wire.push(share(previous, next, end));
      if (protocol === "anthropic-messages") {
        const strip = (s: string) => s.replaceAll(BREAKPOINT, "");
        const head = strip(previous.slice(0, end));
        unmarked.push(share(head, strip(next), head.length));
      }
    }
    metrics.push(metric(`${protocol}: 99 request pairs, share of a request's bytes up to its list's end the next begins with`, "%", "higher", wire, { goal: "100%" }));
    if (protocol === "anthropic-messages") metrics.push(metric(`${protocol}: the same, the moved breakpoint set aside`, "%", "higher", unmarked, { goal: "100%" }));
  } finally {
    await kit.close();
    world.cleanup();
  }
}
