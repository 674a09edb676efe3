// The steering decider as given/when/then, and a property: over any sequence of queue,
// recall, delivery and run ends, folding what the decider appended gives the queue a plain
// model of it predicts, and each delivery carries exactly the queued texts, oldest first.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { extractMarker, steeringQueued, steeringRecalled } from "@penguin/omnimessage";
import { decideSteering } from "../../src/deciders/steering.js";
import { AT, appended, given, lines } from "./given.js";

const none: ReadonlySet<string> = new Set();

describe("steering decider", () => {
  it("given a running task, when steering is queued, then steering_queued; with no task to take it, nothing", () => {
    expect(lines(decideSteering(given(), { type: "queue", id: "s1", text: "use staging", accepting: true, at: AT }))).toEqual([
      { event_msg: { type: "steering_queued", steering_id: "s1", text: "use staging" } },
    ]);
    expect(decideSteering(given(), { type: "queue", id: "s1", text: "use staging", accepting: false, at: AT })).toEqual([]);
  });

  it("given an id already queued, when it is queued again, then nothing (the caller picks another id)", () => {
    expect(decideSteering(given(steeringQueued("s1", "a")), { type: "queue", id: "s1", text: "b", accepting: true, at: AT })).toEqual([]);
  });

  it("given queued steering, when it is recalled, then steering_recalled; unknown or in flight, nothing", () => {
    const state = given(steeringQueued("s1", "a"), steeringQueued("s2", "b"));
    expect(lines(decideSteering(state, { type: "recall", id: "s2", inFlight: none, at: AT }))).toEqual([{ event_msg: { type: "steering_recalled", steering_id: "s2" } }]);
    expect(decideSteering(state, { type: "recall", id: "s9", inFlight: none, at: AT })).toEqual([]);
    expect(decideSteering(state, { type: "recall", id: "s1", inFlight: new Set(["s1"]), at: AT })).toEqual([]);
  });

  it("given two queued texts, when a request boundary delivers, then one [user_steering] text whose recording empties the queue", () => {
    const state = given(steeringQueued("s1", "first"), steeringQueued("s2", "second"), steeringRecalled("s9"));
    const events = decideSteering(state, { type: "deliver", at: AT });
    expect(lines(events)).toEqual([{ model_msg: { type: "text", role: "user", text: "[user_steering]\nfirst\n\nsecond\n[/user_steering]" } }]);
    expect(appended(state, events).steering).toEqual([]);
    expect(decideSteering(given(), { type: "deliver", at: AT })).toEqual([]);
  });

  it("given steering a run never delivered, when the run ends, then each item is recalled", () => {
    const state = given(steeringQueued("s1", "a"), steeringQueued("s2", "b"));
    expect(lines(decideSteering(state, { type: "run_ended", at: AT }))).toEqual([
      { event_msg: { type: "steering_recalled", steering_id: "s1" } },
      { event_msg: { type: "steering_recalled", steering_id: "s2" } },
    ]);
  });

  it("property: the fold's queue is the modelled queue after every command", () => {
    const step = fc.oneof(
      fc.record({ type: fc.constant("queue" as const), id: fc.integer({ min: 1, max: 5 }), text: fc.stringMatching(/^[a-z]{1,6}$/), accepting: fc.boolean() }),
      fc.record({ type: fc.constant("recall" as const), id: fc.integer({ min: 1, max: 5 }) }),
      fc.record({ type: fc.constant("deliver" as const) }),
      fc.record({ type: fc.constant("run_ended" as const) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        let state = given();
        let model: { id: string; text: string }[] = [];
        for (const s of steps) {
          const command =
            s.type === "queue"
              ? { type: "queue" as const, id: `s${s.id}`, text: s.text, accepting: s.accepting, at: AT }
              : s.type === "recall"
                ? { type: "recall" as const, id: `s${s.id}`, inFlight: none, at: AT }
                : { type: s.type, at: AT };
          const events = decideSteering(state, command);
          if (s.type === "queue" && s.accepting && !model.some((m) => m.id === `s${s.id}`)) model.push({ id: `s${s.id}`, text: s.text });
          if (s.type === "recall") model = model.filter((m) => m.id !== `s${s.id}`);
          if (s.type === "deliver") {
            const text = events[0]?.type === "model_msg" && events[0].payload.type === "text" ? events[0].payload.text : undefined;
            expect(text === undefined ? undefined : extractMarker(text, "user_steering")).toEqual(model.length === 0 ? undefined : model.map((m) => m.text).join("\n\n"));
            model = [];
          }
          if (s.type === "run_ended") model = [];
          state = appended(state, events);
          expect(state.steering).toEqual(model);
        }
      }),
      { numRuns: 300 },
    );
  });
});
