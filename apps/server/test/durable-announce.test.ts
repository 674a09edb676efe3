// Cluster notices follow the fsync (packages/trace writer `onDurable`, runtime/session-hub.ts
// `announceDurable`): the runner announces a position only once a completed sync covers its
// line, so a following node, which reads only up to announced positions, never sends a record
// a crash of the runner's machine could still take back. Real trace files and a real
// fdatasync, whose completion the test holds back (the writer's `backgroundSync` seam).
import { existsSync, fdatasync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { TraceWriter, type TracePosition } from "@penguin/core";
import { userText } from "@penguin/omnimessage";
import type { SseSink } from "../src/http/sse.js";
import { SessionChannel } from "../src/runtime/session-channel.js";

const SID = "session-2026-12-03-23-00-00-0123abcd";
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function sink(): SseSink & { frames: string[] } {
  const frames: string[] = [];
  return { frames, send: (f) => void frames.push(f), close: () => undefined, closed: false };
}
// The texts of the user records sent (the header the writer puts first has none).
const texts = (frames: string[]) => frames.map((f) => (JSON.parse(/^data: (.*)$/m.exec(f)![1]!) as { payload: { text?: string } }).payload.text).filter((t) => t !== undefined);

function setup() {
  const dir = mkdtempSync(join(tmpdir(), "penguin-durable-"));
  dirs.push(dir);
  const file = (index: number) => join(dir, `${SID}_${String(index).padStart(3, "0")}.jsonl`);
  const files = () => [1, 2].map((index) => ({ index, file: file(index) })).filter((f) => existsSync(f.file));
  // Syncs run for real, but only when the test releases them.
  const held: (() => void)[] = [];
  const writer = new TraceWriter({
    fileFor: file,
    index: 1,
    meta: { session_id: SID, provider: "p", model_id: "m", workspace: dir, agent_state: dir, system_prompt: "" } as never,
    existing: false,
    backgroundSync: (fd, done) => void held.push(() => fdatasync(fd, done)),
  });
  const announced: TracePosition[] = [];
  let heard: () => void = () => undefined;
  writer.onDurable((through) => {
    announced.push(through);
    heard();
  });
  const nextAnnouncement = () => new Promise<void>((resolve) => (heard = resolve));
  const positions: TracePosition[] = [];
  writer.onWrite((_m, p) => void positions.push(p));
  // Another node's channel of the session, following the announcements only.
  const follower = new SessionChannel(files, "nodec");
  const client = sink();
  follower.subscribe(client, follower.lastId);
  const follow = () => {
    const last = announced.at(-1);
    if (last !== undefined) follower.follow(last);
  };
  return { writer, held, announced, nextAnnouncement, positions, client, follow };
}

describe("announcements follow the fsync", () => {
  it("a record written but not synced is not announced, so a follower does not send it; after the sync it is", async () => {
    const { writer, held, announced, nextAnnouncement, positions, client, follow } = setup();
    writer.append(userText("one"));
    // Written to the file (a reader of the file would find it), not synced: nothing announced.
    expect(positions.length).toBeGreaterThan(0);
    expect(announced).toEqual([]);
    follow();
    expect(texts(client.frames)).toEqual([]);
    const heard = nextAnnouncement();
    held.shift()!();
    await heard;
    expect(announced.at(-1)).toEqual(positions.at(-1));
    follow();
    expect(texts(client.frames)).toEqual(["one"]);
    writer.close();
  });

  it("records written while a sync runs are announced only by the sync after it", async () => {
    const { writer, held, announced, nextAnnouncement, positions, client, follow } = setup();
    writer.append(userText("a"));
    const afterA = positions.at(-1)!;
    // The sync for "a" is in flight; "b" and "c" are written meanwhile.
    writer.append(userText("b"));
    writer.append(userText("c"));
    expect(held).toHaveLength(1);
    let heard = nextAnnouncement();
    held.shift()!();
    await heard;
    expect(announced).toEqual([afterA]);
    follow();
    expect(texts(client.frames)).toEqual(["a"]);
    // The next sync starts when the first returns and covers both.
    expect(held).toHaveLength(1);
    heard = nextAnnouncement();
    held.shift()!();
    await heard;
    expect(announced.at(-1)).toEqual(positions.at(-1));
    follow();
    expect(texts(client.frames)).toEqual(["a", "b", "c"]);
    writer.close();
  });
});
