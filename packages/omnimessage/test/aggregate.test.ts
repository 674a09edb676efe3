// PartialAggregator: fragments fold back into exactly the complete message the producer
// emitted, for any interleaving that keeps each segment's start → delta → stop order.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { aggregateAll, modelMessage, PartialAggregator, type OmniMessage, type PartialPayload } from "../src/index.js";

const at = "2026-01-01T00:00:00.000Z";
const part = (p: PartialPayload, origin?: string[]) => modelMessage(p, { at, origin });

describe("PartialAggregator", () => {
  it("closes a text segment on stop with the concatenated deltas", () => {
    const agg = new PartialAggregator();
    expect(agg.push(part({ type: "partial_text", role: "assistant", event_type: "start", text: "" }))).toEqual([]);
    agg.push(part({ type: "partial_text", role: "assistant", event_type: "delta", text: "Hel" }));
    agg.push(part({ type: "partial_text", role: "assistant", event_type: "delta", text: "lo" }));
    const [done] = agg.push(part({ type: "partial_text", role: "assistant", event_type: "stop", text: "" }));
    expect(done?.payload).toEqual({ type: "text", role: "assistant", text: "Hello", stop_reason: "completed" });
    expect(agg.pending).toBe(false);
  });

  it("keeps interleaved tool calls apart and takes the first non-empty name", () => {
    const msgs = [
      part({ type: "partial_tool_call", role: "assistant", event_type: "start", name: "a", arguments: "", tool_call_id: "1" }),
      part({ type: "partial_tool_call", role: "assistant", event_type: "delta", name: "", arguments: "{\"x\":", tool_call_id: "2" }),
      part({ type: "partial_tool_call", role: "assistant", event_type: "delta", name: "b", arguments: "1}", tool_call_id: "2" }),
      part({ type: "partial_tool_call", role: "assistant", event_type: "delta", name: "", arguments: "{}", tool_call_id: "1" }),
      part({ type: "partial_tool_call", role: "assistant", event_type: "stop", name: "", arguments: "", tool_call_id: "2", stop_reason: "aborted" }),
      part({ type: "partial_tool_call", role: "assistant", event_type: "stop", name: "", arguments: "", tool_call_id: "1" }),
    ];
    const out = aggregateAll(msgs).map((m) => m.payload);
    expect(out).toEqual([
      { type: "tool_call", role: "assistant", name: "b", arguments: "{\"x\":1}", tool_call_id: "2", stop_reason: "aborted" },
      { type: "tool_call", role: "assistant", name: "a", arguments: "{}", tool_call_id: "1", stop_reason: "completed" },
    ]);
  });

  it("carries images whole and keeps forwarded child streams apart by origin", () => {
    const msgs = [
      part({ type: "partial_tool_call_output", role: "user", event_type: "delta", output: "x", tool_call_id: "t" }, ["child"]),
      part({ type: "partial_tool_call_output", role: "user", event_type: "delta", output: "y", tool_call_id: "t" }),
      part({ type: "partial_tool_call_output", role: "user", event_type: "delta", output: "", images: ["data:image/png;base64,AA"], tool_call_id: "t" }, ["child"]),
    ];
    const out = aggregateAll(msgs, "aborted");
    expect(out).toHaveLength(2);
    expect(out[0]).toMatchObject({ origin: ["child"], payload: { output: "x", images: ["data:image/png;base64,AA"], stop_reason: "aborted" } });
    expect(out[1]?.origin).toBeUndefined();
    expect(out[1]?.payload).toMatchObject({ output: "y" });
  });

  it("ignores complete messages and events", () => {
    const agg = new PartialAggregator();
    expect(agg.push(modelMessage({ type: "text", role: "user", text: "hi" }))).toEqual([]);
    expect(agg.pending).toBe(false);
  });

  it("aggregates any valid interleaving to the complete messages (property)", () => {
    type Seg = { kind: "text" | "thinking" | "call"; id: string; name: string; chunks: string[] };
    const seg = fc.record({
      kind: fc.constantFrom("text" as const, "thinking" as const, "call" as const),
      name: fc.string({ minLength: 1, maxLength: 5 }),
      chunks: fc.array(fc.string({ maxLength: 6 }), { maxLength: 6 }),
    });
    fc.assert(
      fc.property(fc.array(seg, { minLength: 1, maxLength: 5 }), fc.array(fc.nat(), { maxLength: 60 }), (raw, picks) => {
        // Text and thinking segments share a key, so at most one of each may be open at once;
        // we give every segment its own call id and run text/thinking ones on separate origins.
        const segs: Seg[] = raw.map((s, i) => ({ ...s, id: `c${i}` }));
        const streams = segs.map((s) => {
          const origin = s.kind === "call" ? undefined : [`o${s.id}`];
          const mk = (event_type: "start" | "delta" | "stop", body: string): OmniMessage =>
            s.kind === "text"
              ? part({ type: "partial_text", role: "assistant", event_type, text: body }, origin)
              : s.kind === "thinking"
                ? part({ type: "partial_thinking", role: "assistant", event_type, thinking: body }, origin)
                : part({ type: "partial_tool_call", role: "assistant", event_type, name: event_type === "start" ? s.name : "", arguments: body, tool_call_id: s.id }, origin);
          return [mk("start", ""), ...s.chunks.map((c) => mk("delta", c)), mk("stop", "")];
        });
        // Interleave: repeatedly take the next message of a stream chosen by `picks`.
        const merged: OmniMessage[] = [];
        const cursors = streams.map(() => 0);
        let k = 0;
        while (merged.length < streams.reduce((n, s) => n + s.length, 0)) {
          const live = streams.map((s, i) => i).filter((i) => cursors[i]! < streams[i]!.length);
          const i = live[(picks[k++ % Math.max(1, picks.length)] ?? 0) % live.length]!;
          merged.push(streams[i]![cursors[i]!++]!);
        }
        const out = aggregateAll(merged);
        expect(out).toHaveLength(segs.length);
        for (const s of segs) {
          const body = s.chunks.join("");
          const hit = out.find((m) =>
            s.kind === "call" ? m.payload.type === "tool_call" && m.payload.tool_call_id === s.id : m.origin?.[0] === `o${s.id}`,
          );
          expect(hit).toBeDefined();
          const p = hit!.payload;
          if (p.type === "text") expect(p.text).toBe(body);
          else if (p.type === "thinking") expect(p.thinking).toBe(body);
          else if (p.type === "tool_call") {
            expect(p.arguments).toBe(body);
            expect(p.name).toBe(s.name);
          } else throw new Error(`unexpected ${p.type}`);
        }
      }),
      { numRuns: 300 },
    );
  });
});
