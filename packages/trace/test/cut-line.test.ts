// Cutting long texts out of trace lines as they are read (cut-line.ts), for the server's read
// paths. Given any envelope (texts with quotes, backslashes, escapes, text outside ASCII and
// the BMP), then the line cut in one go and the line fed to a LineCutter in any chunks give the
// same text, bytes and fields; that text is JSON whose cut strings are prefixes of the whole
// ones and whose other strings are whole. Given a file with a 5 MiB tool output among short
// records, then the history reader (lastRecordsOf), the time-travel fold (foldFromSnapshot) and
// the record index's pages, with the cut and with a prepared index's known cuts, give the
// records of a whole read, the long one cut to its head and marked with its bytes and position.
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assistantText, requestBegin, requestEnd, sessionMeta, toolCall, toolCallOutput, userText, type OmniMessage } from "@penguin/omnimessage";
import { LineCutter } from "../src/cut-line.js";
import { cutLongStrings, DEFAULT_LINE_CUT, foldFromSnapshot, lastRecordsOf, placeCutRecord, readTraceFile, recordCutOf, TraceRecordIndexes } from "../src/index.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "penguin-cut-line-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const piece = fc.oneof(fc.string({ unit: "binary", maxLength: 40 }), fc.constantFrom('"', "\\", '\\"', "\\u00e9", "\u0000\u001f", "😀", "é", "终", "\n\r\t", '"output":"'));
const text = fc.array(piece, { maxLength: 30 }).map((parts) => parts.join(""));

describe("cutting a line", () => {
  it("given any envelope and any chunking, then the cutter and the one-go cut agree, and the cut is JSON of prefixes", () => {
    const options = { overBytes: 48, keepBytes: 16 };
    fc.assert(
      fc.property(text, text, fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 8 }), (output, name, chunks) => {
        const envelope = toolCallOutput({ tool_call_id: `call_${name.length}`, output: `${output}${name}` });
        const line = Buffer.from(JSON.stringify({ ...envelope, extra: [name, output] }), "utf8");
        const once = cutLongStrings(line, 0, line.length, options);
        const cutter = new LineCutter(options);
        for (let at = 0, k = 0; at < line.length; k++) {
          const next = Math.min(line.length, at + chunks[k % chunks.length]!);
          cutter.feed(line, at, next);
          at = next;
        }
        const streamed = cutter.finish();
        expect(streamed.recordBytes).toBe(line.length);
        if (once === undefined) {
          expect(streamed.cutBytes).toBe(0);
          expect(streamed.text).toBe(line.toString("utf8"));
          return;
        }
        expect(streamed.text).toBe(once.text);
        expect(streamed.cutBytes).toBe(once.cutBytes);
        expect(streamed.fields).toEqual(once.fields);
        const whole = JSON.parse(line.toString("utf8")) as { payload: { output: string }; extra: string[] };
        const cut = JSON.parse(once.text) as { payload: { output: string }; extra: string[] };
        expect(whole.payload.output.startsWith(cut.payload.output)).toBe(true);
        expect(whole.extra[0]!.startsWith(cut.extra[0]!)).toBe(true);
        expect(whole.extra[1]!.startsWith(cut.extra[1]!)).toBe(true);
        expect(Buffer.byteLength(once.text)).toBeLessThan(line.length);
      }),
      { numRuns: 400 },
    );
  });
});

describe("reading a file with a long record", () => {
  const meta = () => sessionMeta({ session_id: "session-2026-12-01-09-00-00-0123abcd", provider: "p", model_id: "m", model_context_window: 1000, system_prompt: "", agent_state: "/a", workspace: "/w" });
  const big = 'a "quoted" line \\ with ü ✓ 😀\n'.repeat(160_000);

  function bigFile(): { file: string; records: OmniMessage[] } {
    const file = join(dir, "trace_001.jsonl");
    const records: OmniMessage[] = [meta(), requestBegin(), userText("go"), toolCall({ name: "exec_command", arguments: "{}", tool_call_id: "call_1" }), requestEnd("completed"), toolCallOutput({ tool_call_id: "call_1", output: big }), requestBegin(), assistantText("done"), requestEnd("completed")];
    writeFileSync(file, records.map((m) => `${JSON.stringify(m)}\n`).join(""));
    return { file, records };
  }

  /** The whole read's records, the long output replaced by what a cut reader must give. */
  function expectCut(got: readonly OmniMessage[], whole: readonly OmniMessage[], at: string | undefined): void {
    expect(got).toHaveLength(whole.length);
    for (let i = 0; i < whole.length; i++) {
      const cut = recordCutOf(got[i]!);
      if (i !== 5) {
        expect(cut).toBeUndefined();
        expect(got[i]).toEqual(whole[i]);
        continue;
      }
      const { cut: _marker, ...payload } = got[i]!.payload as { cut?: unknown; output: string };
      expect(big.startsWith(payload.output)).toBe(true);
      expect(Buffer.byteLength(payload.output)).toBeLessThanOrEqual(DEFAULT_LINE_CUT.keepBytes);
      expect(payload.output.length).toBeGreaterThan(1000);
      expect(cut).toMatchObject({ truncated: true, fields: ["output"], bytes: Buffer.byteLength(JSON.stringify(big)) - 2 - Buffer.byteLength(JSON.stringify(payload.output)) + 2 });
      expect(cut!.at).toBe(at);
    }
  }

  it("given the cut, then history, the fold and the index's pages give the whole read's records with the long one cut", async () => {
    const { file } = bigFile();
    expect(Buffer.byteLength(JSON.stringify(big))).toBeGreaterThan(DEFAULT_LINE_CUT.overBytes);
    const whole = readTraceFile(file);

    const history = lastRecordsOf(file, 50, undefined, DEFAULT_LINE_CUT);
    expect(history.lines).toEqual(whole.lines);
    expectCut(history.messages, whole.messages, undefined);

    const records = new TraceRecordIndexes({ cut: DEFAULT_LINE_CUT, sliceBytes: 256 * 1024 });
    const page = await records.page(file, 0, 50);
    expect(page.total).toBe(whole.messages.length);
    expectCut(page.records.map((r) => r.message), whole.messages, undefined);
    expect(await records.recordBytes(file, 6)).toEqual({ start: expect.any(Number), end: expect.any(Number) });

    // With the index's known cuts the readers skip the line's bytes, and give the same records.
    const readerCut = records.readerCut()!;
    let skipped = 0;
    const known = {
      ...readerCut,
      known: (f: string, start: number) => {
        const found = readerCut.known!(f, start);
        if (found !== undefined) skipped++;
        return found;
      },
    };
    const fromKnown = lastRecordsOf(file, 50, undefined, known);
    expect(fromKnown.lines).toEqual(whole.lines);
    expectCut(fromKnown.messages, whole.messages, undefined);

    expect(skipped).toBeGreaterThan(0);
    const byHistory = skipped;
    for (const cut of [DEFAULT_LINE_CUT, known]) {
      const end = foldFromSnapshot([{ file, index: 1 }], undefined, undefined, { cut });
      expect(end.events).toBe(whole.messages.length);
      expect(end.position).toEqual({ file: 1, line: whole.messages.length });
      const at = foldFromSnapshot([{ file, index: 1 }], undefined, { kind: "count", count: 6 }, { cut });
      expect(recordCutOf(at.message!)).toMatchObject({ truncated: true, at: "001:000006" });
    }
    expect(skipped - byHistory).toBe(2);
    placeCutRecord(history.messages[5]!, "001:000006");
    expect(recordCutOf(history.messages[5]!)?.at).toBe("001:000006");
  });

  it("given a long record at the file's unterminated end, then each reader gives it cut as its last line", async () => {
    const { file } = bigFile();
    appendFileSync(file, JSON.stringify(toolCallOutput({ tool_call_id: "call_2", output: big })));
    const whole = readTraceFile(file);
    expect(whole.messages).toHaveLength(10);
    const history = lastRecordsOf(file, 50, undefined, DEFAULT_LINE_CUT);
    expect(history.lines).toEqual(whole.lines);
    expect(recordCutOf(history.messages[9]!)).toMatchObject({ truncated: true });
    const page = await new TraceRecordIndexes({ cut: DEFAULT_LINE_CUT, sliceBytes: 256 * 1024 }).page(file, 0, 50);
    expect(page.records.map((r) => r.line)).toEqual(whole.lines);
    expect(recordCutOf(page.records[9]!.message)).toMatchObject({ truncated: true });
    const folded = foldFromSnapshot([{ file, index: 1 }], undefined, undefined, { cut: DEFAULT_LINE_CUT });
    expect(folded.events).toBe(10);
    expect(recordCutOf(folded.message!)).toMatchObject({ truncated: true, at: "001:000010" });
  });
});
