// Fuzzing the PartialAggregator harder than test/aggregate.test.ts does: all four partial
// types (tool outputs with images too), nested origins, several segments one after another
// on the same key (a second text block after the first), a stop_reason on any fragment, and
// an exact expectation — every complete payload, its origin, its timestamp and the order in
// which they close — computed independently from the generated segments. A second property
// cuts the stream anywhere: what closed comes out as before, what is still open is flushed
// with the given reason, in the order it opened.
//
// Planted bugs (PENGUIN_FUZZ_PLANT), to show each property can fail: aggregate-ignores-origin
// (fragments of different origins share a segment), flush-ignores-reason (open segments are
// always flushed as completed).
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  aggregateAll as realAggregateAll,
  modelMessage,
  type CompleteModelPayload,
  type OmniMessage,
  type PartialPayload,
  type StopReason,
} from "../../../packages/omnimessage/src/index.js";

const PLANT = process.env.PENGUIN_FUZZ_PLANT;
const aggregateAll = (messages: OmniMessage[], reason?: StopReason): OmniMessage<"model_msg">[] => {
  if (PLANT === "aggregate-ignores-origin") return realAggregateAll(messages.map((m) => ({ ...m, origin: undefined })), reason);
  if (PLANT === "flush-ignores-reason") return realAggregateAll(messages);
  return realAggregateAll(messages, reason);
};

type Kind = "text" | "thinking" | "call" | "output";
interface Fragment {
  body: string;
  name: string;
  images: string[] | undefined;
  stop: StopReason | undefined;
}
interface Segment {
  kind: Kind;
  id: string;
  origin: string[] | undefined;
  fragments: Fragment[];
}

const STOPS: StopReason[] = ["completed", "aborted", "failed", "malformed", "timeout", "auth"];
const fragment = fc.record({
  body: fc.string({ unit: "grapheme", maxLength: 6 }),
  name: fc.constantFrom("", "", "read_file", "exec_command"),
  images: fc.option(fc.array(fc.constantFrom("data:image/png;base64,AA", "https://x.test/a.png"), { minLength: 1, maxLength: 2 }), { nil: undefined }),
  stop: fc.option(fc.constantFrom(...STOPS), { nil: undefined, freq: 4 }),
});
const segment = fc.record({
  kind: fc.constantFrom<Kind>("text", "thinking", "call", "output"),
  id: fc.constantFrom("c1", "c2", "c3"),
  origin: fc.constantFrom<string[] | undefined>(undefined, undefined, ["child-a"], ["child-a", "grandchild"], ["child-b"]),
  // The first fragment is the start, the last the stop, the rest deltas.
  fragments: fc.array(fragment, { minLength: 2, maxLength: 6 }),
});

const typeOf = (k: Kind) => (k === "text" ? "partial_text" : k === "thinking" ? "partial_thinking" : k === "call" ? "partial_tool_call" : "partial_tool_call_output");
const laneOf = (s: Segment) => `${(s.origin ?? []).join("/")}|${typeOf(s.kind)}|${s.kind === "call" || s.kind === "output" ? s.id : ""}`;

function partialOf(s: Segment, f: Fragment, event_type: "start" | "delta" | "stop"): PartialPayload {
  const stop = f.stop === undefined ? {} : { stop_reason: f.stop };
  switch (s.kind) {
    case "text":
      return { type: "partial_text", role: "assistant", event_type, text: f.body, ...stop };
    case "thinking":
      return { type: "partial_thinking", role: "assistant", event_type, thinking: f.body, ...stop };
    case "call":
      return { type: "partial_tool_call", role: "assistant", event_type, name: f.name, arguments: f.body, tool_call_id: s.id, ...stop };
    case "output":
      return { type: "partial_tool_call_output", role: "user", event_type, output: f.body, tool_call_id: s.id, ...(f.images === undefined ? {} : { images: f.images }), ...stop };
  }
}

/** The complete payload the producer meant, from the first `count` fragments. */
function expected(s: Segment, count: number, fallback: StopReason): CompleteModelPayload {
  const fs = s.fragments.slice(0, count);
  const body = fs.map((f) => f.body).join("");
  const stop_reason = fs.reduce<StopReason | undefined>((r, f) => f.stop ?? r, undefined) ?? fallback;
  switch (s.kind) {
    case "text":
      return { type: "text", role: "assistant", text: body, stop_reason };
    case "thinking":
      return { type: "thinking", role: "assistant", thinking: body, stop_reason };
    case "call":
      return { type: "tool_call", role: "assistant", name: fs.find((f) => f.name !== "")?.name ?? "", arguments: body, tool_call_id: s.id, stop_reason };
    case "output": {
      const images = fs.flatMap((f) => f.images ?? []);
      return { type: "tool_call_output", role: "user", output: body, tool_call_id: s.id, stop_reason, ...(fs.some((f) => f.images !== undefined) ? { images } : {}) };
    }
  }
}

interface Emitted {
  message: OmniMessage;
  segment: number;
  fragment: number;
}

/** Segments on one key run one after another; keys interleave as `picks` say. */
function interleave(segments: Segment[], picks: number[]): Emitted[] {
  const lanes = new Map<string, Emitted[]>();
  segments.forEach((s, si) => {
    const lane = lanes.get(laneOf(s)) ?? [];
    s.fragments.forEach((f, fi) => {
      const event = fi === 0 ? "start" : fi === s.fragments.length - 1 ? "stop" : "delta";
      lane.push({ message: modelMessage(partialOf(s, f, event), { origin: s.origin }), segment: si, fragment: fi });
    });
    lanes.set(laneOf(s), lane);
  });
  const queues = [...lanes.values()];
  const out: Emitted[] = [];
  let k = 0;
  for (;;) {
    const live = queues.filter((q) => q.length > 0);
    if (live.length === 0) break;
    out.push(live[(picks[k++ % Math.max(1, picks.length)] ?? 0) % live.length]!.shift()!);
  }
  // Distinct timestamps, in stream order: a complete message carries its last fragment's.
  return out.map((e, i) => ({ ...e, message: { ...e.message, timestamp: new Date(Date.UTC(2026, 0, 1) + i).toISOString() } }));
}

const view = (m: OmniMessage) => ({ payload: m.payload, origin: m.origin, timestamp: m.timestamp });

describe("PartialAggregator (fuzz)", () => {
  it("any interleaving of start → delta* → stop streams aggregates to exactly the complete messages, in stop order", () => {
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 8 }), fc.array(fc.nat(), { maxLength: 80 }), (segments, picks) => {
        const stream = interleave(segments, picks);
        const want = stream
          .filter((e) => e.fragment === segments[e.segment]!.fragments.length - 1)
          .map((e) => {
            const s = segments[e.segment]!;
            const m: OmniMessage = { timestamp: e.message.timestamp, type: "model_msg", payload: expected(s, s.fragments.length, "completed") };
            if (s.origin !== undefined) m.origin = s.origin;
            return view(m);
          });
        expect(aggregateAll(stream.map((e) => e.message)).map(view)).toEqual(want);
      }),
      { numRuns: 500, seed: 3030 },
    );
  });

  it("a stream cut anywhere: closed segments as before, open ones flushed with the given reason in opening order", () => {
    fc.assert(
      fc.property(
        fc.array(segment, { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 60 }),
        fc.nat(),
        fc.constantFrom<StopReason>("aborted", "failed", "malformed"),
        (segments, picks, cutAt, reason) => {
          const stream = interleave(segments, picks);
          const prefix = stream.slice(0, cutAt % (stream.length + 1));
          const seen = new Map<number, number>();
          for (const e of prefix) seen.set(e.segment, e.fragment + 1);
          const closed = prefix.filter((e) => e.fragment === segments[e.segment]!.fragments.length - 1);
          const open = [...seen.keys()].filter((si) => seen.get(si)! < segments[si]!.fragments.length);
          open.sort((a, b) => prefix.findIndex((e) => e.segment === a) - prefix.findIndex((e) => e.segment === b));
          const want = [
            ...closed.map((e) => ({ si: e.segment, count: segments[e.segment]!.fragments.length, fallback: "completed" as StopReason })),
            ...open.map((si) => ({ si, count: seen.get(si)!, fallback: reason })),
          ].map(({ si, count, fallback }) => ({ payload: expected(segments[si]!, count, fallback), origin: segments[si]!.origin }));
          const got = aggregateAll(prefix.map((e) => e.message), reason).map((m) => ({ payload: m.payload, origin: m.origin }));
          expect(got).toEqual(want);
        },
      ),
      { numRuns: 500, seed: 4040 },
    );
  });
});
