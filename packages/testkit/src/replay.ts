/**
 * Replay a recorded fixture as a real SSE response, optionally damaged the way networks and
 * buggy proxies damage streams: cut after a byte count, bytes overwritten with garbage, and
 * the body written in pieces at chosen or seeded-random byte offsets (so a client's framing
 * is tested across every boundary, including inside a multi-byte character).
 *
 * Order of operations: wrap as SSE → truncate → corrupt → split → write piece by piece, with
 * an event-loop turn between writes so each piece leaves as its own chunk.
 */
import { readFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { fixtureEvents, fixturePath, fixtureProtocol } from "./fixtures.js";
import { distinctSorted, randomInt, seededRandom } from "./prng.js";
import type { FixtureReplay, WireProtocol } from "./script.js";
import { flushTurn, SSE_HEADERS, writePiece } from "./write.js";

export interface PreparedReplay {
  protocol: WireProtocol;
  /** The exact bytes that will be sent. */
  body: Buffer;
  /** Where the body is cut into separate writes (ascending, inside (0, length)). */
  offsets: number[];
}

/** Build the bytes and write plan of a replay; `fallback` is used when the folder names no protocol. */
export function prepareReplay(step: FixtureReplay, fallback: WireProtocol): PreparedReplay {
  const path = fixturePath(step.fixture);
  const protocol = step.protocol ?? fixtureProtocol(path) ?? fallback;
  const events = fixtureEvents(readFileSync(path, "utf8"), protocol).map((event) => Buffer.from(event, "utf8"));
  let body: Buffer = Buffer.concat(events);
  if (step.truncateAt !== undefined) body = body.subarray(0, Math.max(0, step.truncateAt));
  if (step.corrupt !== undefined) body = corruptBytes(body, step.corrupt.seed, step.corrupt.count);
  return { protocol, body, offsets: splitOffsets(step.split, events, body.length) };
}

/** A copy of `body` with `count` seeded-random bytes replaced by a different byte. */
export function corruptBytes(body: Buffer, seed: number, count: number): Buffer {
  const random = seededRandom(seed);
  const copy = Buffer.from(body);
  for (const offset of distinctSorted(random, count, 0, copy.length)) {
    const original = copy[offset] ?? 0;
    const garbage = randomInt(random, 0, 255);
    copy[offset] = garbage >= original ? garbage + 1 : garbage;
  }
  return copy;
}

function splitOffsets(split: FixtureReplay["split"], events: Buffer[], length: number): number[] {
  const inside = (offset: number): boolean => offset > 0 && offset < length;
  if (split === undefined) {
    const boundaries: number[] = [];
    let end = 0;
    for (const event of events) boundaries.push((end += event.length));
    return boundaries.filter(inside);
  }
  if (Array.isArray(split)) return [...new Set(split)].filter(inside).sort((a, b) => a - b);
  return distinctSorted(seededRandom(split.seed), split.count, 1, length);
}

/** Cut `body` at the offsets. */
export function splitBody(body: Buffer, offsets: number[]): Buffer[] {
  const pieces: Buffer[] = [];
  let start = 0;
  for (const offset of [...offsets, body.length]) {
    if (offset > start) pieces.push(body.subarray(start, offset));
    start = offset;
  }
  return pieces;
}

export async function playReplay(res: ServerResponse, replay: PreparedReplay, signal: AbortSignal): Promise<void> {
  res.writeHead(200, SSE_HEADERS);
  res.flushHeaders();
  for (const piece of splitBody(replay.body, replay.offsets)) {
    if (!(await writePiece(res, piece, signal)) || !(await flushTurn(signal))) return;
  }
  res.end();
}
