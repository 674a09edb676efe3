// Reading only part of a trace file: the lines that hold a needle (readTraceFileMatching), the
// lines at its end (readTraceFileTail), a range of lines (readTraceFileLines), the last
// record's line (lastRecordLine), and the session's settings folded from the few records
// that change them (sessionSettingsOfFiles). Given real files damaged the ways files get
// damaged and sessions spread over several files, then each answers what the full read (and
// the full fold) answers for the part it reads.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assistantText, requestBegin, requestEnd, sessionMeta, settingsChanged, toolCallOutput, userText, withOrigin, type OmniMessage } from "@penguin/omnimessage";
import { foldTrace, lastRecordLine, readTraceFile, readTraceFileLines, readTraceFileMatching, readTraceFileTail, sessionSettingsOfFiles } from "../src/index.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "penguin-partial-reads-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const meta = (extra: Record<string, unknown> = {}) =>
  sessionMeta({ session_id: "session-2026-12-01-09-00-00-0123abcd", provider: "p", model_id: "m", model_context_window: 1000, system_prompt: "", agent_state: "/a", workspace: "/w", ...extra });
const jsonl = (records: readonly OmniMessage[]): string => records.map((r) => `${JSON.stringify(r)}\n`).join("");

function turns(from: number, count: number): OmniMessage[] {
  const out: OmniMessage[] = [];
  for (let n = from; n < from + count; n++) out.push(requestBegin(), userText(`ask ${n}`), assistantText(`answer ${n} `.repeat(20)), requestEnd("completed"));
  return out;
}

describe("readTraceFileLines and lastRecordLine", () => {
  it("given garbage, NUL padding and a torn tail, then a range holds exactly the full read's records in it, and the garbage outside it is not even looked at", () => {
    const file = join(dir, "t_001.jsonl");
    const lines = [JSON.stringify(meta()), "not json", ...turns(0, 10).map((m) => JSON.stringify(m)), "\0\0" + JSON.stringify(userText("padded")), "{garbage", ...turns(10, 5).map((m) => JSON.stringify(m))];
    writeFileSync(file, lines.join("\n") + "\n" + JSON.stringify(userText("torn")).slice(0, -3));
    const full = readTraceFile(file);
    const within = (after: number, through: number) => ({
      lines: full.lines.filter((l) => l > after && l <= through),
      messages: full.messages.filter((_, i) => full.lines[i]! > after && full.lines[i]! <= through),
      skipped: full.skipped.filter((x) => x.line > after && x.line <= through),
    });
    for (const [after, through] of [[0, 5], [5, 44], [41, 43], [43, 1000], [60, 1000]] as const) {
      const part = readTraceFileLines(file, { after, through });
      expect({ lines: part.lines, messages: part.messages, skipped: part.skipped }).toEqual(within(after, through));
    }
    const tail = readTraceFileLines(file, { after: 42 });
    expect(tail.tornTail).toBe(true);
    expect(tail.skipped.map((x) => x.line)).toEqual([44, 65]);
    // Line 2 is garbage: a range after it does not report it.
    expect(readTraceFileLines(file, { after: 2 }).skipped.some((x) => x.line === 2)).toBe(false);
    expect(lastRecordLine(file)).toBe(full.lines.at(-1));
  });

  it("given a file ending in more garbage lines than the first window, an empty file and one of garbage only, then the last record's line is the full read's", () => {
    const file = join(dir, "t_001.jsonl");
    writeFileSync(file, jsonl([meta(), ...turns(0, 3)]) + "{x\n".repeat(200));
    expect(lastRecordLine(file)).toBe(13);
    expect(readTraceFile(file).lines.at(-1)).toBe(13);
    writeFileSync(file, "");
    expect(lastRecordLine(file)).toBeUndefined();
    writeFileSync(file, "{x\n".repeat(2000));
    expect(lastRecordLine(file)).toBeUndefined();
  });
});

describe("readTraceFileMatching", () => {
  it("given NUL padding, CRLF, a malformed line holding the needle, a text quoting it and a torn tail holding it, then it reads exactly the full read's lines that hold the needle", () => {
    const file = join(dir, "t_001.jsonl");
    const lines = [
      JSON.stringify(meta()),
      JSON.stringify(settingsChanged({ approval_mode: "ask" })) + "\r",
      ...turns(0, 30).map((m) => JSON.stringify(m)),
      '{"type":"event_msg","payload":{"type":"settings_changed"',
      "\0\0" + JSON.stringify(settingsChanged({ thinking_level: "high" })),
      JSON.stringify(assistantText('quoting "settings_changed" in a text')),
      ...turns(30, 30).map((m) => JSON.stringify(m)),
    ];
    writeFileSync(file, lines.join("\n") + "\n" + JSON.stringify(settingsChanged({ approval_mode: "allow-all" })).slice(0, -12));
    const full = readTraceFile(file);
    const partial = readTraceFileMatching(file, ['"settings_changed"']);
    const holding = new Set(lines.flatMap((l, i) => (l.includes('"settings_changed"') ? [i + 1] : [])).concat([lines.length + 1]));
    expect(partial.lines).toEqual(full.lines.filter((l) => holding.has(l)));
    expect(partial.messages).toEqual(full.messages.filter((_, i) => holding.has(full.lines[i]!)));
    expect(partial.skipped).toEqual(full.skipped.filter((s) => holding.has(s.line)));
    expect(partial.tornTail).toBe(true);
    // The text quoting the type is not among them: inside a JSON string its quotes are escaped.
    expect(partial.lines).toEqual([2, 2 + 120 + 2]);
  });

  it("given lines longer than the read buffer, then a needle on either side of a chunk boundary is found", () => {
    const file = join(dir, "t_001.jsonl");
    const big = "x".repeat(1_500_000);
    const records = [meta(), toolCallOutput({ tool_call_id: "c1", output: big }), settingsChanged({ approval_mode: "ask" }), toolCallOutput({ tool_call_id: "c2", output: big }), settingsChanged({ thinking_level: "low" })];
    writeFileSync(file, jsonl(records));
    const partial = readTraceFileMatching(file, ['"settings_changed"', '"session_meta"']);
    expect(partial.lines).toEqual([1, 3, 5]);
  });
});

describe("readTraceFileTail", () => {
  it("given a window inside the file, then it holds the whole lines after the cut, and the whole file once the window covers it", () => {
    const file = join(dir, "t_001.jsonl");
    const records = [meta(), ...turns(0, 50)];
    writeFileSync(file, jsonl(records));
    const full = readTraceFile(file).messages;
    const tail = readTraceFileTail(file, 2000);
    expect(tail.fromStart).toBe(false);
    expect(tail.messages.length).toBeGreaterThan(0);
    expect(tail.messages).toEqual(full.slice(full.length - tail.messages.length));
    expect(JSON.stringify(tail.messages).length).toBeLessThan(2000);
    expect(readTraceFileTail(file, 10_000_000)).toEqual({ messages: full, fromStart: true });
  });
});

describe("sessionSettingsOfFiles", () => {
  it("given a session over three files (a legacy level in the meta, changes in the first and last files, a child's forwarded change, a text quoting the type), then the settings equal the fold of every record", () => {
    const files = [
      [meta({ thinking_level: "low" }), settingsChanged({ approval_mode: "ask" }), ...turns(0, 20), withOrigin(settingsChanged({ approval_mode: "allow-all" }), "session-child")],
      [meta(), ...turns(20, 20), userText('set "settings_changed" to "allow-all"')],
      [meta(), ...turns(40, 5), settingsChanged({ thinking_level: "high" }), ...turns(45, 5)],
    ];
    const refs = files.map((records, i) => {
      const file = join(dir, `t_00${i + 1}.jsonl`);
      writeFileSync(file, jsonl(records));
      return { file, index: i + 1 };
    });
    const whole = foldTrace(refs.flatMap((r) => readTraceFile(r.file).messages)).settings;
    expect(sessionSettingsOfFiles(refs)).toEqual(whole);
    expect(whole).toEqual({ approvalMode: "ask", thinkingLevel: "high" });
    expect(sessionSettingsOfFiles(refs.slice(0, 2))).toEqual({ approvalMode: "ask", thinkingLevel: "low" });
  });
});
