// Following another node's trace by byte position (runtime/trace-follower.ts, SessionChannel.follow):
// real trace files written by a real TraceWriter, read through a counting FollowReader that wraps the
// production file reader, so the test sees every byte the follower reads. Shows: each byte of a
// followed trace is read once over many notices; a line split across two notices is sent once, when
// its newline lands (its first half read again with the rest, the only bytes read twice); lines past the announced position wait (unread again) for the notice that
// covers them; rotation to the next file and a file cut back under the follower are handled.
import { appendFileSync, existsSync, mkdtempSync, rmSync, statSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { TraceWriter, type TracePosition } from "@penguin/core";
import { userText } from "@penguin/omnimessage";
import type { SseSink } from "../src/http/sse.js";
import { SessionChannel } from "../src/runtime/session-channel.js";
import { fileFollowReader, type FollowReader } from "../src/runtime/trace-follower.js";

const SID = "session-2026-12-03-22-00-00-0123abcd";
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function sink(): SseSink & { frames: string[] } {
  const frames: string[] = [];
  return { frames, send: (f) => void frames.push(f), close: () => undefined, closed: false };
}
const ids = (frames: string[]) => frames.map((f) => /^id: (.*)$/m.exec(f)?.[1]);
const texts = (frames: string[]) => frames.map((f) => (JSON.parse(/^data: (.*)$/m.exec(f)![1]!) as { payload: { text?: string } }).payload.text);
const idOf = (p: TracePosition) => `${String(p.file).padStart(3, "0")}:${String(p.line).padStart(6, "0")}`;

/** The production reader, counting the bytes it hands back per file and the ranges read. */
function countingReader(): FollowReader & { bytes: Map<string, number>; ranges: { file: string; from: number; to: number }[] } {
  const bytes = new Map<string, number>();
  const ranges: { file: string; from: number; to: number }[] = [];
  return {
    bytes,
    ranges,
    readFrom(file, from) {
      const read = fileFollowReader.readFrom(file, from);
      if (read !== undefined && read.bytes.length > 0) {
        bytes.set(file, (bytes.get(file) ?? 0) + read.bytes.length);
        ranges.push({ file, from, to: from + read.bytes.length });
      }
      return read;
    },
  };
}

function setup() {
  const dir = mkdtempSync(join(tmpdir(), "penguin-follower-"));
  dirs.push(dir);
  const file = (index: number) => join(dir, `${SID}_${String(index).padStart(3, "0")}.jsonl`);
  let listings = 0;
  const files = () => {
    listings++;
    return [1, 2, 3].map((index) => ({ index, file: file(index) })).filter((f) => existsSync(f.file));
  };
  const writer = new TraceWriter({ fileFor: file, index: 1, meta: { session_id: SID, provider: "p", model_id: "m", workspace: dir, agent_state: dir, system_prompt: "" } as never, existing: false, fsync: false });
  const positions: TracePosition[] = [];
  writer.onAppend((_m, p) => void positions.push(p));
  writer.start();
  const reader = countingReader();
  // The following node's channel, made at the trace's end (after the header), as a hub is.
  const channel = new SessionChannel(files, "nodec", undefined, undefined, reader);
  const client = sink();
  channel.subscribe(client, channel.lastId);
  return { dir, file, files, writer, positions, reader, channel, client, listings: () => listings };
}

describe("TraceFollower", () => {
  it("reads each byte of a followed trace once over many notices, and sends every record once in order", () => {
    const { file, writer, positions, reader, channel, client, listings } = setup();
    const header = positions.length;
    for (let i = 0; i < 60; i++) {
      writer.append(userText(`record ${i}`));
      channel.follow(positions.at(-1));
    }
    // The traces folder (every session's files) was listed for the first notice, not for each.
    expect(listings()).toBeLessThanOrEqual(3);
    expect(ids(client.frames)).toEqual(positions.slice(header).map(idOf));
    expect(texts(client.frames)).toEqual(Array.from({ length: 60 }, (_, i) => `record ${i}`));
    // Every byte of the file was read, and none twice: the ranges tile the file.
    expect(reader.bytes.get(file(1))).toBe(statSync(file(1)).size);
    let at = 0;
    for (const r of reader.ranges) {
      expect(r.from).toBe(at);
      at = r.to;
    }
    writer.close();
  });

  it("holds a line split across two notices until its newline lands, then sends it once", () => {
    const { file, writer, positions, reader, channel, client } = setup();
    writer.append(userText("whole"));
    writer.close();
    channel.follow();
    expect(texts(client.frames)).toEqual(["whole"]);
    // Another writer's record lands in two writes; a notice comes between them.
    const line = `${JSON.stringify({ ...userText("split"), timestamp: new Date().toISOString() })}\n`;
    const cut = Math.floor(line.length / 2);
    appendFileSync(file(1), line.slice(0, cut));
    channel.follow();
    expect(texts(client.frames)).toEqual(["whole"]);
    appendFileSync(file(1), line.slice(cut));
    channel.follow();
    channel.follow();
    expect(texts(client.frames)).toEqual(["whole", "split"]);
    expect(ids(client.frames).at(-1)).toBe(idOf({ file: 1, line: positions.at(-1)!.line + 1 }));
    // The torn half is the one part read twice (it may have been cut back and rewritten); nothing else is.
    expect(reader.bytes.get(file(1))).toBe(statSync(file(1)).size + cut);
  });

  it("keeps lines past the announced position unread-again until a notice covers them", () => {
    const { file, writer, positions, reader, channel, client } = setup();
    for (const t of ["a", "b", "c", "d"]) writer.append(userText(t));
    const header = positions.length - 4;
    channel.follow(positions[header + 1]);
    expect(texts(client.frames)).toEqual(["a", "b"]);
    channel.follow(positions[header + 3]);
    expect(texts(client.frames)).toEqual(["a", "b", "c", "d"]);
    expect(reader.bytes.get(file(1))).toBe(statSync(file(1)).size);
    writer.close();
  });

  it("moves on to the next file on rotation, and re-reads nothing of the finished one", () => {
    const { file, writer, positions, reader, channel, client } = setup();
    writer.append(userText("first file"));
    channel.follow(positions.at(-1));
    writer.rotate();
    writer.append(userText("second file"));
    channel.follow(positions.at(-1));
    expect(texts(client.frames).filter((t) => t !== undefined)).toEqual(["first file", "second file"]);
    expect(ids(client.frames).at(-1)).toBe(idOf(positions.at(-1)!));
    expect(reader.bytes.get(file(1))).toBe(statSync(file(1)).size);
    expect(reader.bytes.get(file(2))).toBe(statSync(file(2)).size);
    writer.close();
  });

  it("drops a half-written line that is cut back, and reads what is written in its place", () => {
    const { file, writer, channel, client } = setup();
    writer.append(userText("kept"));
    writer.close();
    channel.follow();
    const size = statSync(file(1)).size;
    appendFileSync(file(1), '{"half a reco');
    channel.follow();
    truncateSync(file(1), size);
    appendFileSync(file(1), `${JSON.stringify({ ...userText("replacement"), timestamp: new Date().toISOString() })}\n`);
    channel.follow();
    expect(texts(client.frames)).toEqual(["kept", "replacement"]);
  });
});
