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
 * service only keeps the queue.
 */
import { userText, wrapMarker, steeringQueued, steeringRecalled, type OmniMessage } from "@penguin/omnimessage";
import type { QueuedSteering } from "@penguin/trace";
import { Context, Effect, Layer, Option } from "effect";
import { SessionFold, type LiveFold } from "./session-fold.js";

export interface SteeringShape {
  /** Queue `text`: records `steering_queued`; returns the id `recall` takes. */
  queue(text: string): Effect.Effect<string>;
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

/** The `[user_steering]` text that delivers `items`, as evolve reads it. */
export function steeringText(items: readonly QueuedSteering[]): string {
  return wrapMarker("user_steering", items.map((s) => s.text).join("\n\n"));
}

export function makeSteering(fold: LiveFold): SteeringShape {
  let seq = 0;
  /** Ids of the items the last delivery carries, until the next delivery or drop. */
  const none: ReadonlySet<string> = new Set();
  let inFlight = none;
  return {
    queue: Effect.fn("Steering.queue")(function* (text: string) {
      let id: string;
      do id = `steer-${++seq}`;
      while (fold.state.steering.some((s) => s.id === id));
      fold.record(steeringQueued(id, text));
      return id;
    }),
    recall: Effect.fn("Steering.recall")(function* (id: string) {
      const item = fold.state.steering.find((s) => s.id === id);
      if (item === undefined || inFlight.has(id)) return Option.none<string>();
      fold.record(steeringRecalled(id));
      return Option.some(item.text);
    }),
    pending: Effect.sync(() => fold.state.steering),
    delivery: Effect.sync(() => {
      const items = fold.state.steering;
      if (items.length === 0) {
        inFlight = none;
        return Option.none();
      }
      inFlight = new Set(items.map((s) => s.id));
      return Option.some(userText(steeringText(items)));
    }),
    dropUndelivered: Effect.sync(() => {
      inFlight = none;
      for (const s of fold.state.steering) fold.record(steeringRecalled(s.id));
    }),
  };
}

/** Steering over the session's fold. */
export const SteeringLive: Layer.Layer<Steering, never, SessionFold> = Layer.effect(Steering, Effect.map(SessionFold, makeSteering));
