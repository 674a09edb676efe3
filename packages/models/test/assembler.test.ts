// ResponseAssembler: the settle order (thinking → text → tool_call) whatever order the provider
// interleaved, same-kind segments that never overlap, and failures that close everything.
import { describe, expect, it } from "vitest";
import type { ModelPayload } from "@penguin/omnimessage";
import { ResponseAssembler } from "../src/assembler.js";
import { RawJson, rawMember, stringifyWithRaw } from "../src/raw-json.js";
import { expectWellFormed } from "./helpers/invariants.js";

const kinds = (items: ModelPayload[]) => items.filter((p) => !p.type.startsWith("partial_")).map((p) => p.type);

describe("ResponseAssembler", () => {
  it("settles thinking, then text, then tool calls, whatever the provider's order", () => {
    const a = new ResponseAssembler();
    const call = a.open("tool_call", { id: "c1", name: "ls" });
    a.append(call, "{}");
    a.close(call);
    const text = a.open("text");
    a.append(text, "hi");
    a.close(text);
    const think = a.open("thinking");
    a.append(think, "hmm");
    a.close(think);
    a.finish("completed");
    const items = a.take();
    expect(kinds(items)).toEqual(["thinking", "text", "tool_call"]);
    expectWellFormed(items, { status: "completed" });
  });

  it("streams deltas live but holds text until the end; thinking settles as it closes", () => {
    const a = new ResponseAssembler();
    const think = a.open("thinking");
    a.append(think, "a");
    a.close(think);
    expect(kinds(a.take())).toEqual(["thinking"]);
    const text = a.open("text");
    a.append(text, "b");
    a.close(text);
    expect(kinds(a.take())).toEqual([]);
    a.finish("completed");
    expect(kinds(a.take())).toEqual(["text"]);
  });

  it("a second text segment settles the first before it starts, so aggregation keys never overlap", () => {
    const a = new ResponseAssembler();
    const t1 = a.open("text");
    a.append(t1, "one");
    a.close(t1);
    const t2 = a.open("text");
    a.setFidelity(t2, { sig: "s" });
    a.close(t2);
    a.finish("completed");
    const items = a.take();
    expectWellFormed(items, { status: "completed" });
    expect(items.filter((p) => p.type === "text")).toEqual([
      { type: "text", role: "assistant", text: "one", stop_reason: "completed" },
      { type: "text", role: "assistant", text: "", stop_reason: "completed", fidelity: { sig: "s" } },
    ]);
  });

  it("a failure closes open segments with its stop reason", () => {
    const a = new ResponseAssembler();
    const text = a.open("text");
    a.append(text, "par");
    const call = a.open("tool_call", { id: "c", name: "x" });
    a.append(call, '{"a":');
    a.finish("malformed");
    const items = a.take();
    expectWellFormed(items, { status: "malformed" });
    expect(items.filter((p) => !p.type.startsWith("partial_")).map((p) => ("stop_reason" in p ? p.stop_reason : undefined))).toEqual([
      "malformed",
      "malformed",
    ]);
  });
});

describe("raw JSON", () => {
  it("cuts a member out byte for byte, whatever its spacing and escapes", () => {
    const text = '{"type" : "x", "item":{"a":"\\u00e9\\"}", "n":1.50e1 ,"z":[1, {"b":"}"}]} ,"after":true}';
    expect(rawMember(text, "item")).toBe('{"a":"\\u00e9\\"}", "n":1.50e1 ,"z":[1, {"b":"}"}]}');
    expect(rawMember(text, "after")).toBe("true");
    expect(rawMember(text, "type")).toBe('"x"');
    expect(rawMember(text, "missing")).toBeUndefined();
  });

  it("splices raw text back verbatim and serialises the rest like JSON.stringify", () => {
    const raw = '{"n":1.50e1, "s":"\\u00e9"}';
    const value = { a: [1, new RawJson(raw), undefined, "é"], b: undefined, c: { d: null } };
    expect(stringifyWithRaw(value)).toBe(`{"a":[1,${raw},null,"é"],"c":{"d":null}}`);
    expect(stringifyWithRaw({ x: 1, y: "q\n" })).toBe(JSON.stringify({ x: 1, y: "q\n" }));
  });
});
