// Row 6: adapter throughput per wire protocol. The recorded fixtures' SSE bytes (as the
// testkit would serve them) go straight into the same pipeline the gateway runs — the SSE
// parser, the protocol's stream reducer and the ResponseAssembler — in-process, no HTTP, in
// 16 KB pieces, over and over until a sample has run for at least 300 ms. MB/s per protocol.
import { fixtureProtocol, fixtureToSse, listFixtures, readFixture } from "@penguin/testkit";
// The assembler is internal to the gateway, so this row reaches into the package's sources
// (and takes the rest from there too, so both sides are the same build).
import { adapterFor, CLIENT_TYPES, createSseParser, type ClientType, type ModelRequest } from "../../../packages/models/src/index.js";
import { ResponseAssembler } from "../../../packages/models/src/assembler.js";
import { metric, msSince, type Metric, type RowResult } from "../lib/stats.js";

const PIECE = 16 * 1024;
const SAMPLE_MS = 300;

function bodiesOf(protocol: ClientType): Uint8Array[] {
  const enc = new TextEncoder();
  return listFixtures()
    .filter((name) => fixtureProtocol(`/x/${name}`) === protocol)
    .map((name) => enc.encode(fixtureToSse(readFixture(name), protocol)));
}

function replay(protocol: ClientType, body: Uint8Array): number {
  const req: ModelRequest = {
    endpoint: { provider: "bench", modelId: "bench", clientType: protocol, baseUrl: "http://127.0.0.1:9" },
    messages: [{ type: "text", role: "user", text: "hi" }],
    tools: [],
  };
  const asm = new ResponseAssembler();
  const reducer = adapterFor(protocol).createReducer(req, asm);
  const parser = createSseParser();
  let items = 0;
  for (let at = 0; at < body.length && reducer.ending === undefined; at += PIECE) {
    for (const ev of parser.push(body.subarray(at, at + PIECE))) {
      reducer.feed(ev);
      if (reducer.ending !== undefined) break;
    }
    items += asm.take().length;
  }
  if (reducer.ending === undefined) for (const ev of parser.end().events) reducer.feed(ev);
  const ending = reducer.ending ?? reducer.end();
  asm.finish(ending.kind === "completed" ? "completed" : "malformed");
  return items + asm.take().length;
}

function sample(protocol: ClientType, bodies: Uint8Array[]): number {
  let bytes = 0;
  const start = process.hrtime.bigint();
  while (msSince(start) < SAMPLE_MS) {
    for (const b of bodies) {
      replay(protocol, b);
      bytes += b.length;
    }
  }
  return bytes / 1e6 / (msSince(start) / 1000);
}

export async function rowAdapters(runs: number): Promise<RowResult> {
  const metrics: Metric[] = [];
  const sizes: string[] = [];
  for (const protocol of CLIENT_TYPES) {
    const bodies = bodiesOf(protocol);
    const kb = bodies.reduce((n, b) => n + b.length, 0) / 1024;
    sizes.push(`${protocol} ${bodies.length} fixtures / ${kb.toFixed(0)} KB`);
    sample(protocol, bodies); // warm-up
    const samples = Array.from({ length: runs }, () => sample(protocol, bodies));
    metrics.push(metric(protocol, "MB/s", "higher", samples, { goal: "≥ 50 MB/s" }));
  }
  return { row: 6, title: "Adapter throughput per protocol (fixtures replayed in-process: SSE parser → reducer → assembler)", metrics, note: sizes.join("; ") };
}
