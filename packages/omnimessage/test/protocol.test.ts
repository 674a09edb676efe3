// Builders, guards and markers: the envelope shapes the seeds define, narrowed without casts.
import { afterEach, describe, expect, it, vi } from "vitest";
import fc from "fast-check";
import {
  abortEvent,
  approvalDecision,
  extractLastMarker,
  extractMarker,
  findAttachments,
  findMarkers,
  formatFields,
  isCompleteModel,
  isEvent,
  isModel,
  isPartial,
  isTraceable,
  MARKER_TAGS,
  parseEnvelope,
  parseFields,
  requestEnd,
  sessionMeta,
  startsWithMarker,
  toolCall,
  userText,
  withOrigin,
  wrapMarker,
  attachedImageLine,
  modelMessage,
} from "../src/index.js";

describe("builders", () => {
  it("produce the seeds' line shapes with no undefined keys", () => {
    const at = "2026-07-18T03:10:22.531Z";
    expect(JSON.stringify(userText("创建 hello.txt", { at }))).toBe(
      '{"timestamp":"2026-07-18T03:10:22.531Z","type":"model_msg","payload":{"type":"text","role":"user","text":"创建 hello.txt"}}',
    );
    expect(JSON.stringify(toolCall({ name: "exec_command", arguments: '{"cmd":"printf hi > hello.txt"}', tool_call_id: "call_0" }, { at }))).toBe(
      '{"timestamp":"2026-07-18T03:10:22.531Z","type":"model_msg","payload":{"type":"tool_call","role":"assistant","name":"exec_command","arguments":"{\\"cmd\\":\\"printf hi > hello.txt\\"}","tool_call_id":"call_0"}}',
    );
    expect(JSON.stringify(approvalDecision("allow", "call_0", { at }))).toBe(
      '{"timestamp":"2026-07-18T03:10:22.531Z","type":"event_msg","payload":{"type":"approval_decision","decision":"allow","tool_call_id":"call_0"}}',
    );
    expect(requestEnd("timeout", { attempt: 2, retry_in_ms: 4000 }, { at }).payload).toEqual({
      type: "request_end",
      status: "timeout",
      attempt: 2,
      retry_in_ms: 4000,
    });
    expect(abortEvent(undefined, { at }).payload).toEqual({ type: "abort" });
  });

  describe("stamping the current time", () => {
    afterEach(() => void vi.useRealTimers());

    it("stamps each envelope with the clock's time, to the millisecond, as the clock moves", () => {
      vi.useFakeTimers();
      vi.setSystemTime(new Date("2026-07-18T03:10:22.531Z"));
      const first = userText("a");
      const sameMillisecond = userText("b");
      vi.setSystemTime(new Date("2026-07-18T03:10:22.532Z"));
      const nextMillisecond = userText("c");
      vi.setSystemTime(new Date("2026-07-19T00:00:00.000Z"));
      const nextDay = userText("d");
      expect([first, sameMillisecond, nextMillisecond, nextDay].map((m) => m.timestamp)).toEqual([
        "2026-07-18T03:10:22.531Z",
        "2026-07-18T03:10:22.531Z",
        "2026-07-18T03:10:22.532Z",
        "2026-07-19T00:00:00.000Z",
      ]);
    });

    it("keeps an explicit `at` over the clock", () => {
      vi.useFakeTimers();
      vi.setSystemTime(new Date("2026-07-18T03:10:22.531Z"));
      expect(userText("a", { at: new Date("2020-01-01T00:00:00.000Z") }).timestamp).toBe("2020-01-01T00:00:00.000Z");
      expect(userText("a").timestamp).toBe("2026-07-18T03:10:22.531Z");
    });
  });

  it("keeps fidelity objects exactly as given", () => {
    const fidelity = { signature: "EqQBCgIYAhIM…", nested: { a: [1, "2", null] } };
    const m = modelMessage({ type: "thinking", role: "assistant", thinking: "x", fidelity });
    expect(JSON.parse(JSON.stringify(m)).payload.fidelity).toEqual(fidelity);
  });

  it("prepends origin hops outermost first", () => {
    const m = withOrigin(withOrigin(userText("x"), "inner"), "outer");
    expect(m.origin).toEqual(["outer", "inner"]);
    expect(isTraceable(m)).toBe(false);
  });
});

describe("guards", () => {
  it("narrow envelope and payload together", () => {
    const m = toolCall({ name: "n", arguments: "{}", tool_call_id: "c" });
    expect(isModel(m, "tool_call")).toBe(true);
    if (isModel(m, "tool_call")) expect(m.payload.name).toBe("n");
    expect(isEvent(m)).toBe(false);
    expect(isCompleteModel(m)).toBe(true);
    const p = modelMessage({ type: "partial_text", role: "assistant", event_type: "delta", text: "a" });
    expect(isPartial(p)).toBe(true);
    expect(isTraceable(p)).toBe(false);
    expect(isTraceable(requestEnd("completed"))).toBe(true);
  });

  it("parseEnvelope accepts the seeds' lines and rejects broken ones", () => {
    expect(parseEnvelope(JSON.parse('{"timestamp":"t","type":"event_msg","payload":{"type":"request_begin"}}'))).toBeDefined();
    expect(parseEnvelope(sessionMeta({ session_id: "s", provider: "p", model_id: "m", model_context_window: "unknown", system_prompt: "", agent_state: "/a", workspace: "/w" }))).toBeDefined();
    for (const bad of [null, 3, [], {}, { timestamp: 1, type: "model_msg", payload: { type: "text" } }, { timestamp: "t", type: "model_msg", payload: { type: "nope" } }, { timestamp: "t", type: "x", payload: {} }, { timestamp: "t", type: "event_msg", payload: { type: "abort" }, origin: [1] }, { timestamp: "t", type: "session_meta", payload: {} }]) {
      expect(parseEnvelope(bad)).toBeUndefined();
    }
  });
});

describe("markers", () => {
  it("round-trip the bracket form and read the legacy form", () => {
    const text = `before\n${wrapMarker("context_summary", "line 1\nline 2")}\nafter <summary>\nold\n</summary> [link](x)`;
    expect(extractMarker(text, "context_summary")).toBe("line 1\nline 2");
    expect(extractMarker(text, "summary")).toBe("old");
    expect(findMarkers(text).map((b) => [b.tag, b.legacy])).toEqual([["context_summary", false], ["summary", true]]);
    expect(extractMarker("[link](x) [unknown]a[/unknown]", "summary")).toBeUndefined();
  });

  it("finds the last of repeated blocks and detects a leading block", () => {
    const t = `${wrapMarker("summary", "a")} ${wrapMarker("summary", "b")}`;
    expect(extractLastMarker(t, "summary")).toBe("b");
    expect(startsWithMarker(`  ${wrapMarker("user_steering", "x")}`, "user_steering")).toBe(true);
    expect(startsWithMarker(`hi ${wrapMarker("user_steering", "x")}`, "user_steering")).toBe(false);
  });

  it("find and detect blocks as a fresh search of the whole text does, for any text", () => {
    // The reference: every call builds its own expression and searches the whole text, as
    // markers.ts did before its shared expression and its early returns.
    const tags = ["summary", "user_steering", "goal", "context_summary"] as const;
    const alternation = MARKER_TAGS.join("|");
    const reference = (text: string) =>
      [...text.matchAll(new RegExp(`\\[(${alternation})\\]\\n?([\\s\\S]*?)\\n?\\[\\/\\1\\]|<(${alternation})>\\n?([\\s\\S]*?)\\n?<\\/\\3>`, "g"))].map((m) => ({
        tag: m[1] ?? m[3],
        body: (m[1] === undefined ? m[4] : m[2]) ?? "",
        start: m.index,
        end: m.index + m[0].length,
        legacy: m[1] === undefined,
      }));
    const piece = fc.oneof(
      fc.constantFrom(...tags.flatMap((t) => [`[${t}]`, `[/${t}]`, `<${t}>`, `</${t}>`, `[${t}]\n`, `\n[/${t}]`])),
      fc.constantFrom(" ", "\n", "\t", "\u00a0", "[", "<", "]", ">", "[link](x)", "[unknown]"),
      fc.string({ maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), fc.constantFrom(...tags), (pieces, tag) => {
        const text = pieces.join("");
        const blocks = reference(text);
        expect(findMarkers(text)).toEqual(blocks);
        const first = blocks[0];
        expect(startsWithMarker(text, tag)).toBe(first !== undefined && first.tag === tag && text.slice(0, first.start).trim() === "");
      }),
      { numRuns: 2000 },
    );
  });

  it("formats and parses key-value fields and attachments", () => {
    const body = formatFields({ kind: "command", id: "p1", status: "exited 0", skip: undefined, detail: "two\nlines" });
    expect(body).toBe("kind: command\nid: p1\nstatus: exited 0\ndetail: two lines");
    expect(parseFields(body)).toEqual({ kind: "command", id: "p1", status: "exited 0", detail: "two lines" });
    expect(findAttachments(`${attachedImageLine("/tmp/a.png")}\n[attached file: /w/b.txt]`)).toEqual([
      { kind: "image", path: "/tmp/a.png" },
      { kind: "file", path: "/w/b.txt" },
    ]);
  });
});
