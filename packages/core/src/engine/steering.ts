/**
 * Steering: text the Human sends while a task runs, queued for the task's next input.
 *
 * The queue is the fold's (`SessionState.steering`), never a copy: queueing records
 * `steering_queued`, a recall records `steering_recalled`, and recording the `[user_steering]`
 * text built by `delivery` delivers what it carries (evolve's rule). So the queue a running
 * session reports is the one a fold of its trace finds, at every record.
 *
 * Between `delivery` building the text and the engine recording it (at the next request's
 * input) the items are in flight: still queued in the fold (they are not delivered yet), but
 * no longer recallable, since the text that carries them is already part of the request. New
 * steering arriving meanwhile stays queued for the boundary after (evolve removes only the
 * items a delivered text carries).
 *
 * Whether a task is running (so steering can reach it) is the engine's to decide; this
 * service only keeps the queue. The rules are the steering decider's (deciders/steering.ts):
 * this service runs it and records the events it returns.
 */
import type { OmniMessage } from "@penguin/omnimessage";
import type { QueuedSteering } from "@penguin/trace";
import { Context, Effect, Layer, Option } from "effect";
import { decideSteering, steeringText } from "../deciders/steering.js";
import { SessionFold, type LiveFold } from "./session-fold.js";

export { steeringText };

export interface SteeringShape {
  /** Queue `text`: records `steering_queued`; returns the id `recall` takes. */
  queue(text: string): Effect.Effect<string>;
  /** Queue `text` if a task can still take it (`accepting`); none (nothing recorded) otherwise. */
  offer(text: string, accepting: boolean): Effect.Effect<Option.Option<string>>;
  /** Take back queued text before it is sent: records `steering_recalled`; its text, or none when unknown or already on its way. */
  recall(id: string): Effect.Effect<Option.Option<string>>;
  /** The queue as the fold holds it, oldest first. */
  readonly pending: Effect.Effect<readonly QueuedSteering[]>;
  /**
   * The queue as one `[user_steering]` user text for the next input (not recorded: recording
   * it delivers the items); none when the queue is empty.
   */
  readonly delivery: Effect.Effect<Option.Option<OmniMessage>>;
  /** Drop what a finished run never delivered: records `steering_recalled` for each item. */
  readonly dropUndelivered: Effect.Effect<void>;
}

export class Steering extends Context.Tag("penguin/engine/Steering")<Steering, SteeringShape>() {}

const now = () => new Date().toISOString();

/**
 * Steering over the session's fold: each operation asks `decideSteering` (deciders/steering.ts)
 * and records what it returns. Whether a task can take steering is the engine's to know (it
 * passes it to `offer`); `queue` is an offer to a running task.
 */
export function makeSteering(fold: LiveFold): SteeringShape {
  let seq = 0;
  /** Ids of the items the last delivery carries, until the next delivery or drop. */
  const none: ReadonlySet<string> = new Set();
  let inFlight = none;
  const record = (events: readonly OmniMessage[]) => {
    for (const m of events) fold.record(m);
    return events.length > 0;
  };
  const offer = Effect.fn("Steering.offer")(function* (text: string, accepting: boolean) {
    for (;;) {
      const id = `steer-${++seq}`;
      const events = decideSteering(fold.state, { type: "queue", id, text, accepting, at: now() });
      // Nothing with a fresh id: the task cannot take it. Nothing with an id already queued: the next id.
      if (events.length > 0) {
        record(events);
        return Option.some(id);
      }
      if (!accepting) return Option.none<string>();
    }
  });
  return {
    queue: (text) => Effect.map(offer(text, true), Option.getOrThrow),
    offer,
    recall: Effect.fn("Steering.recall")(function* (id: string) {
      const item = fold.state.steering.find((s) => s.id === id);
      if (item === undefined || !record(decideSteering(fold.state, { type: "recall", id, inFlight, at: now() }))) return Option.none<string>();
      return Option.some(item.text);
    }),
    pending: Effect.sync(() => fold.state.steering),
    delivery: Effect.sync(() => {
      const carried = fold.state.steering;
      const [text] = decideSteering(fold.state, { type: "deliver", at: now() });
      inFlight = text === undefined ? none : new Set(carried.map((s) => s.id));
      return Option.fromNullable(text);
    }),
    dropUndelivered: Effect.sync(() => {
      inFlight = none;
      record(decideSteering(fold.state, { type: "run_ended", at: now() }));
    }),
  };
}

/** Steering over the session's fold. */
export const SteeringLive: Layer.Layer<Steering, never, SessionFold> = Layer.effect(Steering, Effect.map(SessionFold, makeSteering));
