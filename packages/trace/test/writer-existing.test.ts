// The TraceWriter appending to a file it did not write (resume): the file is counted in chunks,
// so these files are several chunks long. The next record gets the next line number (a torn
// last line counts, and the record starts on a fresh line after it), and its stamp is never
// earlier than the file's last one, even when the clock is behind. A resume that has just read
// the file passes what it read, and the writer trusts it only while the file is still that long.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assistantText, type SessionMetaPayload } from "@penguin/omnimessage";
import { TraceWriter } from "../src/index.js";

const SID = "session-2026-12-01-10-00-00-0fedcba9";
const meta: SessionMetaPayload = { session_id: SID, provider: "p", model_id: "m", model_context_window: 1000, system_prompt: "", agent_state: "/a", workspace: "/w" };
const LAST_STAMP = "2026-12-01T10:00:05.000Z";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "penguin-writer-existing-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A file of `lines` whole lines (~3 MiB: several of the writer's chunks), the last one stamped LAST_STAMP. */
function longFile(lines: number, tail: string): string {
  const filler = "x".repeat(3000);
  const body: string[] = [];
  for (let i = 1; i <= lines; i++) {
    const stamp = i === lines ? LAST_STAMP : "2026-12-01T10:00:00.000Z";
    body.push(JSON.stringify({ type: "model_msg", timestamp: stamp, payload: { type: "text", role: "assistant", text: `${i} ${filler}` } }));
  }
  const file = join(dir, `${SID}_001.jsonl`);
  writeFileSync(file, `${body.join("\n")}\n${tail}`);
  return file;
}

function resumeWriter(file: string, knownExtent?: { bytes: number; lines: number }): TraceWriter {
  // A clock behind the file: the stamp must not go back.
  return new TraceWriter({ fileFor: () => file, index: 1, meta, existing: true, toolsWritten: true, fsync: false, now: () => Date.parse("2026-12-01T09:00:00.000Z"), ...(knownExtent === undefined ? {} : { knownExtent }) });
}

describe("TraceWriter on an existing file", () => {
  it("numbers the next record after the file's last line and stamps it no earlier than that line", () => {
    const file = longFile(1000, "");
    const writer = resumeWriter(file);
    expect(writer.nextPosition()).toEqual({ file: 1, line: 1001 });
    const m = assistantText("appended");
    expect(writer.append(m)).toEqual({ file: 1, line: 1001 });
    writer.close();
    expect(m.timestamp).toBe(LAST_STAMP);
    const lines = readFileSync(file, "utf8").split("\n");
    expect(lines).toHaveLength(1002);
    expect(JSON.parse(lines[1000]!).payload.text).toBe("appended");
  });

  it("counts a torn last line and starts the next record on a fresh line after it", () => {
    const file = longFile(1000, '{"type":"model_msg","timest');
    const writer = resumeWriter(file);
    expect(writer.append(assistantText("after the tear"))).toEqual({ file: 1, line: 1002 });
    writer.close();
    const lines = readFileSync(file, "utf8").split("\n");
    expect(lines[1000]).toBe('{"type":"model_msg","timest');
    expect(JSON.parse(lines[1001]!).payload.text).toBe("after the tear");
  });

  it("takes the lines a resume read as the count while the file is still that long, and still stamps after its last line", () => {
    const file = longFile(1000, "");
    // A count no scan would give: the writer can only have taken it from the hint.
    const writer = resumeWriter(file, { bytes: statSync(file).size, lines: 4321 });
    const m = assistantText("appended");
    expect(writer.append(m)).toEqual({ file: 1, line: 4322 });
    writer.close();
    expect(m.timestamp).toBe(LAST_STAMP);
  });

  it("counts the file itself when it no longer has the size that was read (it grew, or its tail is torn)", () => {
    const grown = longFile(1000, "");
    const readAt = statSync(grown).size - 1;
    const writer = resumeWriter(grown, { bytes: readAt, lines: 4321 });
    expect(writer.append(assistantText("after growth"))).toEqual({ file: 1, line: 1001 });
    writer.close();
    const torn = longFile(1000, '{"type":"model_msg","timest');
    const tornWriter = resumeWriter(torn, { bytes: statSync(torn).size - '{"type":"model_msg","timest'.length, lines: 1000 });
    expect(tornWriter.append(assistantText("after the tear"))).toEqual({ file: 1, line: 1002 });
    tornWriter.close();
    expect(readFileSync(torn, "utf8").split("\n")[1000]).toBe('{"type":"model_msg","timest');
  });
});
