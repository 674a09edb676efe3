/**
 * The steering decider: text the Human sends while a task runs, as the events it makes.
 *
 * - `queue`: while a task can still take it, `steering_queued` (the id comes in the command:
 *   naming is the caller's, and an id already queued is refused); otherwise nothing (no task
 *   would ever deliver it).
 * - `recall`: queued text not yet on its way is taken back (`steering_recalled`); an unknown
 *   id, or one the next request already carries (`inFlight`), is nothing.
 * - `deliver`: at a request boundary, the whole queue as one `[user_steering]` user text
 *   (recording it delivers the items it carries: evolve's rule); an empty queue is nothing.
 * - `run_ended`: what the finished run never delivered is dropped, one `steering_recalled`
 *   per item.
 */
import { steeringQueued, steeringRecalled, userText, wrapMarker } from "@penguin/omnimessage";
import type { QueuedSteering, SessionState } from "@penguin/trace";
import type { Decider } from "./decider.js";

export type SteeringCommand =
  | { readonly type: "queue"; readonly id: string; readonly text: string; /** a task runs and will read its next input */ readonly accepting: boolean; readonly at: string }
  | { readonly type: "recall"; readonly id: string; /** ids a delivery already carries */ readonly inFlight: ReadonlySet<string>; readonly at: string }
  | { readonly type: "deliver"; readonly at: string }
  | { readonly type: "run_ended"; readonly at: string };

export type SteeringFacts = Pick<SessionState, "steering">;

/** The `[user_steering]` text that delivers `items`, as evolve reads it. */
export function steeringText(items: readonly QueuedSteering[]): string {
  return wrapMarker("user_steering", items.map((s) => s.text).join("\n\n"));
}

export const decideSteering: Decider<SteeringCommand, SteeringFacts> = (state, command) => {
  const at = command.at;
  switch (command.type) {
    case "queue":
      if (!command.accepting || state.steering.some((s) => s.id === command.id)) return [];
      return [steeringQueued(command.id, command.text, { at })];
    case "recall":
      if (command.inFlight.has(command.id) || !state.steering.some((s) => s.id === command.id)) return [];
      return [steeringRecalled(command.id, { at })];
    case "deliver":
      return state.steering.length === 0 ? [] : [userText(steeringText(state.steering), { at })];
    case "run_ended":
      return state.steering.map((s) => steeringRecalled(s.id, { at }));
  }
};
