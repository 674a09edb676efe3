// The TraceWriter's background sync, on a real file with a sync whose completion the test
// controls (the writer's `backgroundSync` option; nothing is timed): a commit point and the
// records after it reach the listeners only once a sync started after its write completes,
// while every record is already on file in order; syncs are coalesced (one in flight, the next
// covers all written before it starts); `published()` waits for the sync, `close()` makes the
// file durable at once and publishes, closing the descriptor only after the running sync
// returns; a failed sync publishes nothing it covered and is reported.
import { fstatSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assistantText, requestBegin, requestEnd, sessionTitle, userText, type OmniMessage, type SessionMetaPayload } from "@penguin/omnimessage";
import { formatPosition, TraceWriter, type BackgroundSync } from "../src/index.js";

const SID = "session-2026-12-01-10-00-00-0123abcd";
const meta: SessionMetaPayload = { session_id: SID, provider: "p", model_id: "m", model_context_window: 1000, system_prompt: "", agent_state: "/a", workspace: "/w" };

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "penguin-writer-sync-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A background sync that only records each request; the test completes them one by one. */
function heldSyncs(): { sync: BackgroundSync; requests: { fd: number; complete: (error?: NodeJS.ErrnoException) => void }[] } {
  const requests: { fd: number; complete: (error?: NodeJS.ErrnoException) => void }[] = [];
  const sync: BackgroundSync = (fd, done) => requests.push({ fd, complete: (error) => done(error ?? null) });
  return { sync, requests };
}

function writerWith(sync: BackgroundSync): { writer: TraceWriter; seen: string[]; file: string } {
  const file = join(dir, `${SID}_001.jsonl`);
  const writer = new TraceWriter({ fileFor: () => file, index: 1, meta, existing: false, backgroundSync: sync });
  const seen: string[] = [];
  writer.onAppend((m, position) => seen.push(`${formatPosition(position)} ${label(m)}`));
  return { writer, seen, file };
}

function label(m: OmniMessage): string {
  if (m.type === "event_msg") return m.payload.type;
  if (m.type === "model_msg") return m.payload.type === "text" ? `${m.payload.role}:${m.payload.text}` : m.payload.type;
  return m.type;
}

/** Lets pending promise callbacks run (one macrotask turn; no timer). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("TraceWriter background sync", () => {
  it("given a commit point whose sync has not completed, when records follow it, then none is published before the sync completes, and all are on file in order", () => {
    const { sync, requests } = heldSyncs();
    const { writer, seen, file } = writerWith(sync);
    writer.append(requestBegin());
    writer.append(userText("q"));
    writer.append(assistantText("a"));
    expect(seen).toEqual(["001:000001 session_meta", "001:000002 request_begin", "001:000003 user:q", "001:000004 assistant:a"]);

    writer.append(requestEnd("completed"));
    writer.append(sessionTitle("after the commit point"));
    expect(requests).toHaveLength(1);
    expect(seen).toHaveLength(4);
    const lines = readFileSync(file, "utf8").trimEnd().split("\n").map((l) => (JSON.parse(l) as OmniMessage).type);
    expect(lines).toEqual(["session_meta", "event_msg", "model_msg", "model_msg", "event_msg", "event_msg"]);

    requests[0]!.complete();
    expect(seen.slice(4)).toEqual(["001:000005 request_end", "001:000006 session_title"]);
    writer.close();
  });

  it("given a commit point whose sync has not completed, when a write listener follows the writer, then it has every record the moment it is written, in file order, while the append listeners wait", () => {
    const { sync, requests } = heldSyncs();
    const { writer, seen } = writerWith(sync);
    const written: string[] = [];
    writer.onWrite((m, position) => written.push(`${formatPosition(position)} ${label(m)}`));
    writer.append(requestBegin());
    writer.append(requestEnd("completed"));
    writer.append(sessionTitle("t"));
    expect(requests).toHaveLength(1);
    expect(written).toEqual(["001:000001 session_meta", "001:000002 request_begin", "001:000003 request_end", "001:000004 session_title"]);
    expect(seen).toEqual(["001:000001 session_meta", "001:000002 request_begin"]);
    requests[0]!.complete();
    expect(seen).toEqual(written);
    writer.close();
  });

  it("given a sync in flight, when more commit points are written, then one more sync starts only after it returns, and it publishes them all", () => {
    const { sync, requests } = heldSyncs();
    const { writer, seen } = writerWith(sync);
    writer.append(requestEnd("completed"));
    writer.append(requestBegin());
    writer.append(requestEnd("completed"));
    writer.append(requestBegin());
    writer.append(requestEnd("completed"));
    expect(requests).toHaveLength(1);
    expect(seen).toEqual(["001:000001 session_meta"]);

    // The first sync covers only the first commit point; what is not a commit point follows it out.
    requests[0]!.complete();
    expect(seen).toEqual(["001:000001 session_meta", "001:000002 request_end", "001:000003 request_begin"]);
    expect(requests).toHaveLength(2);

    requests[1]!.complete();
    expect(seen.slice(3)).toEqual(["001:000004 request_end", "001:000005 request_begin", "001:000006 request_end"]);
    expect(requests).toHaveLength(2);
    writer.close();
  });

  it("given a commit point, when the caller awaits published(), then it resolves only after the sync completes and the listeners have the record", async () => {
    const { sync, requests } = heldSyncs();
    const { writer, seen } = writerWith(sync);
    writer.append(requestEnd("completed"));
    let resolved = false;
    const published = writer.published().then(() => {
      resolved = true;
      return [...seen];
    });
    await settle();
    expect(resolved).toBe(false);

    requests[0]!.complete();
    expect(await published).toEqual(["001:000001 session_meta", "001:000002 request_end"]);
    writer.close();
  });

  it("given only records that are not commit points, when they are appended, then they are published at once and nothing is synced", async () => {
    const { sync, requests } = heldSyncs();
    const { writer, seen } = writerWith(sync);
    writer.append(requestBegin());
    writer.append(sessionTitle("t"));
    await writer.published();
    expect(seen).toEqual(["001:000001 session_meta", "001:000002 request_begin", "001:000003 session_title"]);
    expect(requests).toHaveLength(0);
    writer.close();
  });

  it("given a sync in flight, when the writer is closed, then everything is published at once and the descriptor stays open until that sync returns", async () => {
    const { sync, requests } = heldSyncs();
    const { writer, seen } = writerWith(sync);
    writer.append(requestEnd("completed"));
    writer.append(assistantText("tail"));
    const fd = requests[0]!.fd;

    writer.close();
    expect(seen).toEqual(["001:000001 session_meta", "001:000002 request_end", "001:000003 assistant:tail"]);
    await writer.flush();
    expect(() => fstatSync(fd)).not.toThrow();

    requests[0]!.complete();
    expect(() => fstatSync(fd)).toThrow(/EBADF/);
  });

  it("given a sync that fails, when the caller waits, then what it covered is never published and the failure names the file", async () => {
    const { sync, requests } = heldSyncs();
    const { writer, seen, file } = writerWith(sync);
    writer.append(requestEnd("completed"));
    const published = writer.published();
    requests[0]!.complete(Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" }));
    await expect(published).rejects.toThrow(`the trace file ${file} could not be synced to disk (EIO: i/o error, fdatasync)`);
    expect(seen).toEqual(["001:000001 session_meta"]);
    expect(() => writer.append(requestBegin())).toThrow(/could not be synced/);
    writer.close();
    expect(seen).toEqual(["001:000001 session_meta", "001:000002 request_end"]);
  });

  it("given the real background sync, when a commit point is awaited, then it is published and its file durable", async () => {
    const file = join(dir, `${SID}_001.jsonl`);
    const writer = new TraceWriter({ fileFor: () => file, index: 1, meta, existing: false });
    const seen: string[] = [];
    writer.onAppend((m) => seen.push(label(m)));
    writer.append(requestBegin());
    writer.append(requestEnd("completed"));
    await writer.published();
    expect(seen).toEqual(["session_meta", "request_begin", "request_end"]);
    await writer.flush();
    writer.close();
    expect(readFileSync(file, "utf8").trimEnd().split("\n")).toHaveLength(3);
  });
});
