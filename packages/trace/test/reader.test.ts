// The byte reader (parseTraceBytes, what readTraceFile uses) reads exactly what the text
// reader reads: given a trace damaged in the ways files get damaged (torn tail, NUL padding,
// malformed middle lines, CRLF, blank lines, multi-byte characters cut by the damage), when
// both read it, then the envelopes, their line numbers, the skipped lines and the torn flag
// are the same, and the text reader's own answers are the ones a trace's reader must give.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseTraceBytes, parseTraceText, readTraceFile } from "../src/index.js";

const LINES = [
  '{"timestamp":"2026-07-18T03:10:22.531Z","type":"session_meta","payload":{"session_id":"session-2026-07-18-11-10-22-3f8a1c2d","provider":"deepseek","model_id":"deepseek-v4-pro","system_prompt":"…","agent_state":"/a","workspace":"/w"}}',
  '{"timestamp":"2026-07-18T03:10:22.600Z","type":"event_msg","payload":{"type":"request_begin"}}',
  '{"timestamp":"2026-07-18T03:10:22.601Z","type":"model_msg","payload":{"type":"text","role":"user","text":"创建 hello.txt — ünïcødé 🐧"}}',
  '{"timestamp":"2026-07-18T03:10:23.000Z","type":"model_msg","payload":{"type":"tool_call","role":"assistant","name":"exec_command","arguments":{"cmd":"printf hi > hello.txt"},"tool_call_id":"call_0"}}',
  '{"timestamp":"2026-07-18T03:10:23.100Z","type":"model_msg","payload":{"type":"tool_call_output","role":"user","output":"[no output]","tool_call_id":"call_0"}}',
  '{"timestamp":"2026-07-18T03:10:23.200Z","type":"event_msg","payload":{"type":"request_end","status":"completed"}}',
];
const CLEAN = Buffer.from(LINES.join("\n") + "\n", "utf8");

function sameAsText(bytes: Buffer): ReturnType<typeof parseTraceBytes> {
  const fromBytes = parseTraceBytes(bytes);
  expect(fromBytes).toEqual(parseTraceText(bytes.toString("utf8")));
  return fromBytes;
}

describe("reading a trace's bytes", () => {
  it("given a clean trace, then every line is an envelope, upcast (the unknown window, the object arguments), numbered from 1", () => {
    const r = sameAsText(CLEAN);
    expect(r.skipped).toEqual([]);
    expect(r.tornTail).toBe(false);
    expect(r.lines).toEqual([1, 2, 3, 4, 5, 6]);
    const meta = r.messages[0]!;
    expect(meta.type === "session_meta" && meta.payload.model_context_window).toBe("unknown");
    const call = r.messages[3]!;
    expect(call.type === "model_msg" && call.payload.type === "tool_call" && call.payload.arguments).toBe('{"cmd":"printf hi > hello.txt"}');
    const text = r.messages[2]!;
    expect(text.type === "model_msg" && text.payload.type === "text" && text.payload.text).toBe("创建 hello.txt — ünïcødé 🐧");
  });

  it("given a torn tail cut inside a multi-byte character, then the tail is reported torn and the rest kept", () => {
    const cut = CLEAN.indexOf(Buffer.from("🐧")) + 2;
    const r = sameAsText(CLEAN.subarray(0, cut));
    expect(r.tornTail).toBe(true);
    expect(r.skipped).toEqual([{ line: 3, reason: "torn" }]);
    expect(r.messages).toHaveLength(2);
  });

  it("given NUL padding, CRLF endings, blank lines and a malformed middle line, then the bad line is counted and skipped, never accepted", () => {
    const text = [LINES[0], "", LINES[1] + "\r", "{not json", '{"type":"model_msg","payload":{"type":"text"}}', LINES[2], "\0\0\0" + LINES[5]].join("\n") + "\n\0\0\0\0";
    const r = sameAsText(Buffer.from(text, "utf8"));
    expect(r.lines).toEqual([1, 3, 6, 7]);
    expect(r.skipped.map((s) => [s.line, s.reason])).toEqual([
      [4, "invalid-json"],
      [5, "not-an-envelope"],
    ]);
    expect(r.skipped[1]!.error).toMatch(/timestamp|role|text/);
    expect(r.tornTail).toBe(false);
  });

  it("given invalid UTF-8 bytes inside a line, then they decode as the text reader decodes them", () => {
    const bad = Buffer.from(LINES[2]!, "utf8");
    bad[bad.indexOf(Buffer.from("ü"))] = 0xff;
    sameAsText(Buffer.concat([Buffer.from(LINES[0]! + "\n"), bad, Buffer.from("\n")]));
  });

  it("given random damage (cuts, NUL runs, flipped bytes, deleted newlines), then bytes and text read the same", () => {
    let seed = 42;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed % n;
    };
    for (let round = 0; round < 300; round++) {
      const bytes = Buffer.from(CLEAN);
      for (let k = next(4); k >= 0; k--) {
        const at = next(bytes.length);
        const kind = next(3);
        if (kind === 0) bytes.fill(0, at, Math.min(bytes.length, at + next(40)));
        else if (kind === 1) bytes[at] = next(256);
        else if (bytes[at] === 0x0a) bytes[at] = 0x20;
      }
      sameAsText(bytes.subarray(0, next(bytes.length + 1)));
    }
  });

  it("given a file of several read chunks, lines across chunk edges and one line longer than a chunk, then readTraceFile reads what the text reader reads", () => {
    const dir = mkdtempSync(join(tmpdir(), "penguin-reader-"));
    try {
      const file = join(dir, "big.jsonl");
      const long = LINES[4]!.replace("[no output]", "ü".repeat(1_500_000));
      const filler = Array.from({ length: 20_000 }, (_, i) => LINES[2]!.replace("hello", `hello ${i}`));
      const text = [LINES[0], ...filler.slice(0, 9000), long, "\0".repeat(70), "{bad", ...filler.slice(9000), LINES[5]!.slice(0, 40)].join("\n");
      writeFileSync(file, text);
      const r = readTraceFile(file);
      expect(r).toEqual(parseTraceText(text));
      expect(r.messages).toHaveLength(1 + 20_000 + 1);
      expect(r.skipped).toEqual([
        { line: 9004, reason: "invalid-json" },
        { line: 20_005, reason: "torn" },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("readTraceFile reads a file through the byte reader", () => {
    const dir = mkdtempSync(join(tmpdir(), "penguin-reader-"));
    try {
      const file = join(dir, "t.jsonl");
      writeFileSync(file, Buffer.concat([CLEAN, Buffer.from(LINES[1]!.slice(0, 30))]));
      const r = readTraceFile(file);
      expect(r.messages).toHaveLength(6);
      expect(r.skipped).toEqual([{ line: 7, reason: "torn" }]);
      expect(r.tornTail).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
