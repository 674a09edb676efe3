// Tool outputs' JSON text kept as resume reads it (raw-outputs.ts). Given lines written the way
// the writer writes them, with any output text (quotes, backslashes, control characters, text
// outside the BMP, the key's own spelling inside it) and the members that may follow it, then
// the proof finds the output's literal, byte for byte what JSON.stringify makes of it. Given
// lines laid out otherwise (hand edits: spacing, duplicate keys, an `output` key elsewhere),
// then whatever it answers parses to exactly the parsed output, or it answers nothing. And a
// file read for resume keeps, beside each long output, exactly those bytes.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assistantText, rawOutputJsonOf, requestBegin, requestEnd, sessionMeta, toolCall, toolCallOutput, userText, type OmniMessage } from "@penguin/omnimessage";
import { readForResume, readTraceFileWithExtent, resumeSnapshotFile } from "../src/index.js";
import { existsSync } from "node:fs";
import { outputLiteralSpan, RAW_OUTPUT_MIN_CHARS } from "../src/raw-outputs.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "penguin-raw-outputs-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const tricky = fc.oneof(
  fc.string({ unit: "binary", maxLength: 60 }),
  fc.constantFrom('"output":"', '\\"output\\":\\"', '"}}', "\\", '\\"', "\u0000\u001f", "\u2028", "😀", "é", "\n\r\t"),
);
const outputText = fc.array(tricky, { maxLength: 12 }).map((parts) => parts.join(""));

/** An envelope as the engine writes it: a tool output, perhaps with the members that follow `output`. */
const outputEnvelope = fc.record({ output: outputText, stop: fc.option(fc.constantFrom("completed", "failed"), { nil: undefined }), images: fc.option(fc.array(fc.constant("data:image/png;base64,AAAA"), { maxLength: 2 }), { nil: undefined }), origin: fc.boolean() }).map(({ output, stop, images, origin }) =>
  toolCallOutput({ tool_call_id: "call_1", output, ...(images === undefined ? {} : { images }), ...(stop === undefined ? {} : { stop_reason: stop }) }, { at: "2026-12-02T10:00:00.000Z", ...(origin ? { origin: ["session-2026-12-02-10-00-00-0123abcd"] } : {}) }),
);

function spanText(envelope: OmniMessage, text: string): string | undefined {
  const span = outputLiteralSpan(envelope, text);
  return span === undefined ? undefined : text.slice(span.from, span.to);
}

describe("outputLiteralSpan", () => {
  it("given any output written as the writer writes it, then it finds the literal, exactly what JSON.stringify makes of the output", () => {
    fc.assert(
      fc.property(outputEnvelope, (envelope) => {
        const text = JSON.stringify(envelope);
        const parsed = JSON.parse(text) as OmniMessage;
        expect(spanText(parsed, text)).toBe(JSON.stringify((parsed.payload as { output: string }).output));
      }),
      { numRuns: 500 },
    );
  });

  it("given lines laid out otherwise, then it finds the parsed output's own literal or nothing, never another one", () => {
    const meta = '"timestamp":"2026-12-02T10:00:00.000Z","type":"model_msg"';
    const cases: [string, "found" | "none"][] = [
      [`{${meta},"payload":{"type":"tool_call_output","role":"user","tool_call_id":"c","output":"real"}}`, "found"],
      [`{${meta},"payload":{"type":"tool_call_output","role":"user","tool_call_id":"c","output" : "spaced"}}`, "none"],
      [`{${meta}, "payload":{"type":"tool_call_output","role":"user","tool_call_id":"c","output":"x"} }`, "none"],
      // Duplicate keys: JSON.parse keeps the last value at the first key's place.
      [`{${meta},"payload":{"type":"tool_call_output","role":"user","tool_call_id":"c","output":"first","stop_reason":"completed","output":"second"}}`, "none"],
      [`{${meta},"payload":{"type":"tool_call_output","output":"first","role":"user","tool_call_id":"c","output":"second"}}`, "none"],
      [`{${meta},"payload":{"type":"tool_call_output","role":"user","tool_call_id":"c","output":"A","stop_reason":"x","output":"B","stop_reason":"x"}}`, "none"],
      [`{"payload":{"type":"tool_call_output","role":"user","tool_call_id":"c","output":"gone"},${meta},"payload":{"type":"tool_call_output","role":"user","tool_call_id":"c","output":"kept"}}`, "none"],
      // An "output" key before the payload's own, and after it.
      [`{${meta},"x":{"output":"decoy"},"payload":{"type":"tool_call_output","role":"user","tool_call_id":"c","output":"real"}}`, "none"],
      [`{${meta},"payload":{"type":"tool_call_output","role":"user","tool_call_id":"c","fidelity":{"output":"decoy"},"output":"real"}}`, "none"],
      [`{${meta},"payload":{"type":"tool_call_output","role":"user","tool_call_id":"c","output":"real","fidelity":{"output":"decoy"}}}`, "found"],
      [`{${meta},"payload":{"type":"tool_call_output","role":"user","tool_call_id":"c","output":"real"},"x":{"output":"decoy"}}`, "found"],
      // The key's spelling inside a key or a value.
      [`{${meta},"payload":{"type":"tool_call_output","role":"user","tool_call_id":"a\\"output\\":\\"b","output":"real \\"output\\":\\" inside"}}`, "found"],
      [`{${meta},"payload":{"a\\"output":"v","type":"tool_call_output","role":"user","tool_call_id":"c","output":"real"}}`, "none"],
      // The last member's key spells "output" after an escaped quote, while the real key and an
      // earlier duplicate of that one are written with escapes: the literal at the end is not the output.
      [`{${meta},"payload":{"type":"tool_call_output","role":"user","tool_call_id":"c","a\\u0022output":"v1","\\u006futput":"r","a\\"output":"fake"}}`, "none"],
      // A later duplicate "output" hidden in a tail as long as the expected one (1e20 is written
      // 17 characters shorter than JSON.stringify writes it): only the tail's text tells.
      [`{${meta},"payload":{"type":"tool_call_output","role":"user","tool_call_id":"c","output":"W","n":1e20,"output":"RRRRR"}}`, "none"],
      [`{${meta},"payload":{"type":"tool_call_output","role":"user","tool_call_id":"c","output":"ends in a backslash \\\\"}}`, "found"],
      [`{${meta},"payload":{"type":"tool_call_output","role":"user","tool_call_id":"c","output":"\\u0041 escaped otherwise \\/"}}`, "found"],
    ];
    for (const [text, expected] of cases) {
      const parsed = JSON.parse(text) as OmniMessage;
      const found = spanText(parsed, text);
      if (found !== undefined) expect(JSON.parse(found)).toBe((parsed.payload as { output: string }).output);
      expect([text, found === undefined ? "none" : "found"]).toEqual([text, expected]);
    }
  });
});

describe("reading for resume keeps outputs' JSON text", () => {
  it("given long and short outputs, text outside ASCII, NUL padding, CRLF and lines across read chunks, then each long clean output keeps exactly its JSON text", () => {
    const long = (n: number, extra = "") => `${extra}line ${n} "quoted" \\ path\tcol\n`.repeat(Math.ceil(RAW_OUTPUT_MIN_CHARS / 20) + n);
    const records: { line: string; keeps: boolean }[] = [
      { line: JSON.stringify(sessionMeta({ session_id: "session-2026-12-02-10-00-00-0123abcd", provider: "p", model_id: "m", model_context_window: 1000, system_prompt: "", agent_state: "/a", workspace: "/w" })), keeps: false },
      { line: JSON.stringify(toolCallOutput({ tool_call_id: "c1", output: long(1), stop_reason: "completed" })), keeps: true },
      { line: JSON.stringify(toolCallOutput({ tool_call_id: "c2", output: "short" })), keeps: false },
      { line: JSON.stringify(toolCallOutput({ tool_call_id: "c3", output: long(3, "é😀 ") })), keeps: true },
      { line: `\0\0${JSON.stringify(toolCallOutput({ tool_call_id: "c4", output: long(4) }))}`, keeps: false },
      { line: `${JSON.stringify(toolCallOutput({ tool_call_id: "c5", output: long(5) }))}\r`, keeps: false },
      { line: JSON.stringify(assistantText(long(6))), keeps: false },
      // Text outside ASCII before and after the literal: byte offsets differ from the text's.
      { line: JSON.stringify({ timestamp: "2026-12-02T10:00:00.000Z", type: "model_msg", payload: { type: "tool_call_output", role: "user", tool_call_id: "ç-1", output: long(7, "ß "), note: "ünterwegs" } }), keeps: true },
      // Outputs of about 400 KB: some of them cross the reader's 1 MiB chunks.
      ...Array.from({ length: 8 }, (_, i) => ({ line: JSON.stringify(toolCallOutput({ tool_call_id: `big${i}`, output: long(20_000 + i, i % 2 === 0 ? "ü " : "") })), keeps: true })),
    ];
    const file = join(dir, "t_001.jsonl");
    // One more line, with a byte that is not UTF-8 (0x80) in its output: as many bytes as
    // characters, as an ASCII line, but its output decodes to U+FFFD there.
    const invalidUtf8 = Buffer.from(JSON.stringify(toolCallOutput({ tool_call_id: "c8", output: long(8, "#") })));
    invalidUtf8[invalidUtf8.indexOf("#")] = 0x80;
    records.push({ line: "", keeps: true });
    writeFileSync(file, Buffer.concat([Buffer.from(records.slice(0, -1).map((r) => `${r.line}\n`).join("")), invalidUtf8, Buffer.from("\n")]));
    const { content } = readTraceFileWithExtent(file, { keepRawOutputs: true });
    // A read that does not ask keeps nothing.
    const plain = readTraceFileWithExtent(file);
    expect(plain.content.messages.some((m) => rawOutputJsonOf(m.payload) !== undefined)).toBe(false);
    expect(content.messages).toHaveLength(records.length);
    const ascii = (line: string) => /^[\x00-\x7f]*$/.test(line);
    content.messages.forEach((m, i) => {
      const raw = rawOutputJsonOf(m.payload);
      expect([i, raw !== undefined]).toEqual([i, records[i]!.keeps]);
      if (raw === undefined) return;
      // An all-ASCII line's output is decoded from its kept text when first read; any other keeps its string.
      const accessor = Object.getOwnPropertyDescriptor(m.payload, "output")?.get !== undefined;
      expect([i, accessor]).toEqual([i, records[i]!.line !== "" && ascii(records[i]!.line)]);
      expect(Buffer.from(raw).toString("utf8")).toBe(JSON.stringify((m.payload as { output: string }).output));
      expect(Object.getOwnPropertyDescriptor(m.payload, "output")?.get).toBeUndefined();
    });
    // What the two reads decoded is the same, decoded on read or not.
    expect(content.messages).toEqual(plain.content.messages);
    expect(content.messages.map((m) => JSON.stringify(m))).toEqual(plain.content.messages.map((m) => JSON.stringify(m)));
    expect((content.messages.at(-1)!.payload as { output: string }).output).toContain("\uFFFD");
  });

  it("given a session of tool turns, when it is read for resume from its start and then from its snapshot, then every tool output in the folded context is the object read, with its JSON text", () => {
    const file = join(dir, "session-2026-12-02-10-00-00-0123abcd_001.jsonl");
    const lines: OmniMessage[] = [sessionMeta({ session_id: "session-2026-12-02-10-00-00-0123abcd", provider: "p", model_id: "m", model_context_window: 1000, system_prompt: "", agent_state: "/a", workspace: "/w" }), userText("go")];
    for (let n = 1; n <= 400; n++) {
      const id = `call_${n}`;
      lines.push(requestBegin(), toolCall({ name: "exec_command", arguments: "{}", tool_call_id: id }), requestEnd("completed"), toolCallOutput({ tool_call_id: id, output: `out ${n} "x"\n`.repeat(60), stop_reason: "completed" }));
    }
    lines.push(requestBegin(), assistantText("done"), requestEnd("completed"));
    writeFileSync(file, lines.map((m) => `${JSON.stringify(m)}\n`).join(""));
    for (const from of ["start", "snapshot"]) {
      const read = readForResume(file, { minLines: 100, refreshLines: 100 });
      expect(existsSync(resumeSnapshotFile(file))).toBe(true);
      expect([from, read.fromSnapshot > 0]).toEqual([from, from === "snapshot"]);
      const outputs = read.state.history.toArray().filter((m) => m.type === "model_msg" && m.payload.type === "tool_call_output");
      expect(outputs).toHaveLength(400);
      for (const m of outputs) expect(Buffer.from(rawOutputJsonOf(m.payload)!).toString("utf8")).toBe(JSON.stringify((m.payload as { output: string }).output));
    }
  });
});
