// Paging a trace file by record through TraceRecordIndexes (record-index.ts). Given real files
// damaged the ways files get damaged (garbage, NUL padding, CRLF, JSON that is no envelope,
// blank lines, text outside ASCII, a torn tail), then every page holds exactly the records of
// a whole read (readTraceFile) at those offsets, numbered alike, with the same total; and it
// stays so while the file grows, its torn tail is completed, it is replaced, or a line is
// changed in place where the index cannot see it.
import { appendFileSync, mkdtempSync, openSync, renameSync, rmSync, writeFileSync, writeSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assistantText, requestBegin, requestEnd, sessionMeta, userText, type OmniMessage } from "@penguin/omnimessage";
import { readTraceFile, TraceRecordIndexes } from "../src/index.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "penguin-record-index-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const meta = () => sessionMeta({ session_id: "session-2026-12-01-09-00-00-0123abcd", provider: "p", model_id: "m", model_context_window: 1000, system_prompt: "", agent_state: "/a", workspace: "/w" });

function turns(from: number, count: number): OmniMessage[] {
  const out: OmniMessage[] = [];
  for (let n = from; n < from + count; n++) out.push(requestBegin(), userText(`ask ${n} — ü ✓`), assistantText(`answer ${n} `.repeat(1 + (n % 9) * 7)), requestEnd("completed"));
  return out;
}

/** A file with every kind of damage a reader must pass over, and a torn tail. */
function damagedFile(name: string): string {
  const file = join(dir, name);
  const lines = [
    JSON.stringify(meta()),
    "not json",
    ...turns(0, 40).map((m) => JSON.stringify(m)),
    "\0\0" + JSON.stringify(userText("padded")),
    "",
    "   ",
    JSON.stringify({ type: "event_msg", payload: { type: 42 } }),
    JSON.stringify(assistantText("crlf")) + "\r",
    "{garbage",
    ...turns(40, 40).map((m) => JSON.stringify(m)),
  ];
  writeFileSync(file, lines.join("\n") + "\n" + JSON.stringify(userText("torn")).slice(0, -3));
  return file;
}

/** What a whole read gives for records offset to offset + limit. */
function wholeRead(file: string, offset: number, limit: number): { records: { line: number; message: OmniMessage }[]; total: number } {
  const full = readTraceFile(file);
  const all = full.messages.map((message, i) => ({ line: full.lines[i]!, message }));
  return { records: all.slice(offset, offset + limit), total: all.length };
}

async function expectPagesLikeWholeRead(indexes: TraceRecordIndexes, file: string): Promise<number> {
  const { total } = wholeRead(file, 0, 0);
  let pages = 0;
  for (const limit of [1, 7, 50, 500]) {
    for (let offset = 0; offset <= total + 2; offset += Math.max(1, Math.floor(limit / 2))) {
      expect(await indexes.page(file, offset, limit)).toEqual(wholeRead(file, offset, limit));
      pages++;
    }
  }
  return pages;
}

describe("TraceRecordIndexes", () => {
  it("given a damaged file, then every page at every offset is the whole read's, whatever the slice size", async () => {
    const file = damagedFile("t_001.jsonl");
    expect(readTraceFile(file).skipped.length).toBeGreaterThan(3);
    for (const sliceBytes of [1, 100, 4096, 1 << 20]) {
      const pages = await expectPagesLikeWholeRead(new TraceRecordIndexes({ sliceBytes }), file);
      expect(pages).toBeGreaterThan(300);
    }
  });

  it("given a file that grows, whose torn tail is completed, and an empty one, then each page follows what is on disk", async () => {
    const file = join(dir, "t_001.jsonl");
    writeFileSync(file, "");
    const indexes = new TraceRecordIndexes({ sliceBytes: 256 });
    expect(await indexes.page(file, 0, 10)).toEqual({ records: [], total: 0 });
    appendFileSync(file, turns(0, 5).map((m) => `${JSON.stringify(m)}\n`).join(""));
    await expectPagesLikeWholeRead(indexes, file);
    // A torn last line is no record while it is torn; completed, it is one, and it is the last.
    const last = JSON.stringify(userText("was torn"));
    appendFileSync(file, last.slice(0, 20));
    expect((await indexes.page(file, 0, 100)).total).toBe(20);
    appendFileSync(file, last.slice(20));
    expect((await indexes.page(file, 0, 100)).records.at(-1)).toEqual({ line: 21, message: JSON.parse(last) });
    appendFileSync(file, `\n${turns(5, 30).map((m) => JSON.stringify(m)).join("\n")}\n`);
    await expectPagesLikeWholeRead(indexes, file);
    expect(indexes.indexedFiles()).toEqual([file]);
  });

  it("given a file replaced by another one, truncated and rewritten, or changed in place before the bytes it checks, then pages are the new file's", async () => {
    const file = damagedFile("t_001.jsonl");
    const indexes = new TraceRecordIndexes({ sliceBytes: 512 });
    await expectPagesLikeWholeRead(indexes, file);
    // Another file moved over it: another inode.
    const other = join(dir, "other.jsonl");
    writeFileSync(other, [meta(), ...turns(100, 60)].map((m) => `${JSON.stringify(m)}\n`).join(""));
    renameSync(other, file);
    await expectPagesLikeWholeRead(indexes, file);
    // The same inode, truncated and written longer with other lines: the bytes before the indexed length differ.
    writeFileSync(file, [meta(), ...turns(200, 70)].map((m) => `${JSON.stringify(m)}\n`).join(""));
    await expectPagesLikeWholeRead(indexes, file);
    // A record far from the end overwritten in place with garbage of its length: the checked
    // bytes are the same, but the page that holds it no longer decodes as indexed.
    const text = [meta(), ...turns(300, 70)].map((m) => JSON.stringify(m));
    writeFileSync(file, `${text.join("\n")}\n`);
    await expectPagesLikeWholeRead(indexes, file);
    const at = text[0]!.length + 1 + text[1]!.length + 1;
    const fd = openSync(file, "r+");
    writeSync(fd, Buffer.from("x".repeat(text[2]!.length)), 0, text[2]!.length, at);
    closeSync(fd);
    expect(await indexes.page(file, 0, 5)).toEqual(wholeRead(file, 0, 5));
    await expectPagesLikeWholeRead(indexes, file);
  });

  it("given more files than it keeps and pages asked at once, then it keeps the most recent files and every answer is right", async () => {
    const files = ["a_001.jsonl", "b_001.jsonl", "c_001.jsonl"].map((name) => damagedFile(name));
    const indexes = new TraceRecordIndexes({ maxFiles: 2, sliceBytes: 300 });
    const asked = files.flatMap((file) => [0, 10, 100, 150].map((offset) => ({ file, offset, answer: indexes.page(file, offset, 25) })));
    for (const { file, offset, answer } of asked) expect(await answer).toEqual(wholeRead(file, offset, 25));
    expect(indexes.indexedFiles().sort()).toEqual(files.slice(1).sort());
    await indexes.page(files[0]!, 0, 1);
    expect(indexes.indexedFiles()).toEqual([files[2], files[0]]);
  });

  it("given a file many slices long, then building its index lets the event loop turn between slices", async () => {
    const file = join(dir, "t_001.jsonl");
    writeFileSync(file, [meta(), ...turns(0, 500)].map((m) => `${JSON.stringify(m)}\n`).join(""));
    let turnsSeen = 0;
    let stop = false;
    const spin = (): void => {
      turnsSeen++;
      if (!stop) setImmediate(spin);
    };
    setImmediate(spin);
    const page = await new TraceRecordIndexes({ sliceBytes: 8192 }).page(file, 1990, 50);
    stop = true;
    expect(page).toEqual(wholeRead(file, 1990, 50));
    // The file is ~70 slices: the loop turned between them, not once after the whole build.
    expect(turnsSeen).toBeGreaterThan(20);
  });

  it("given a file that is gone, then paging it fails as opening it does", async () => {
    await expect(new TraceRecordIndexes().page(join(dir, "missing.jsonl"), 0, 10)).rejects.toThrow(/ENOENT/);
  });
});
