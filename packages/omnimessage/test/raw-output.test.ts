// A tool output kept as its JSON text and decoded on read (raw-output.ts): given a payload kept
// that way, then it reads, spreads, serialises and compares as the plain payload, its key order
// is kept, the first read turns it back into a plain data property, assignment still works, and
// asking whether it is empty does not decode it.
import { describe, expect, it } from "vitest";
import { outputIsEmpty, rawOutputJsonOf, toolCallOutput, withOutputDecodedOnRead, type ToolCallOutputPayload } from "../src/index.js";

const utf8 = (text: string) => new TextEncoder().encode(text);
const isAccessor = (p: object) => Object.getOwnPropertyDescriptor(p, "output")?.get !== undefined;

function decodedOnRead(output: string): { kept: ToolCallOutputPayload; plain: ToolCallOutputPayload } {
  const plain = toolCallOutput({ tool_call_id: "call_1", output, stop_reason: "completed" }).payload as ToolCallOutputPayload;
  const kept = withOutputDecodedOnRead(JSON.parse(JSON.stringify(plain)) as ToolCallOutputPayload, utf8(JSON.stringify(output)));
  return { kept, plain };
}

describe("a tool output decoded on read", () => {
  const output = 'line 1: "quoted" \\ back\tslash \u0001\n'.repeat(30);

  it("given a kept payload, then JSON, spreading, key order and equality are the plain payload's, and the first read settles it", () => {
    const { kept, plain } = decodedOnRead(output);
    expect(isAccessor(kept)).toBe(true);
    expect(Object.keys(kept)).toEqual(Object.keys(plain));
    expect(JSON.stringify(kept)).toBe(JSON.stringify(plain));
    expect({ ...kept }).toEqual(plain);
    expect(kept).toEqual(plain);
    expect(isAccessor(kept)).toBe(false);
    expect(Object.getOwnPropertyDescriptor(kept, "output")).toEqual({ value: output, writable: true, enumerable: true, configurable: true });
    expect(rawOutputJsonOf(kept)).toBeDefined();
  });

  it("given a kept payload, when its output is assigned before any read, then it holds the new value as a plain property and no longer has kept text", () => {
    const { kept } = decodedOnRead(output);
    (kept as { output: string }).output = "replaced";
    expect(isAccessor(kept)).toBe(false);
    expect(kept.output).toBe("replaced");
    // The kept text was the old output's: a body must not send it for the new one.
    expect(rawOutputJsonOf(kept)).toBeUndefined();
    expect(outputIsEmpty(kept)).toBe(false);
  });

  it("given kept payloads, empty or not, then outputIsEmpty answers without decoding; a payload without kept text is asked directly", () => {
    const empty = decodedOnRead("").kept;
    const full = decodedOnRead(output).kept;
    expect([outputIsEmpty(empty), outputIsEmpty(full)]).toEqual([true, false]);
    expect([isAccessor(empty), isAccessor(full)]).toEqual([true, true]);
    expect(outputIsEmpty({ output: "" })).toBe(true);
    expect(outputIsEmpty({ output: "x" })).toBe(false);
  });
});
