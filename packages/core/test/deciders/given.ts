// Given/when/then for the deciders: `given(...)` folds events with `evolve` (the one reducer),
// `lines(...)` is what a decision appends, each event as its payload (JSON: no undefined
// fields), so a test reads as the trace lines it expects. `AT` is the time every command carries.
import type { OmniMessage } from "@penguin/omnimessage";
import { foldTrace, type SessionState } from "@penguin/trace";

export const AT = "2026-01-02T03:04:05.000Z";

export function given(...events: OmniMessage[]): SessionState {
  return foldTrace(events);
}

export function lines(events: readonly OmniMessage[]): unknown[] {
  return events.map((m) => ({ [m.type]: JSON.parse(JSON.stringify(m.payload)) as unknown }));
}

/** The state after `events` are appended to the trace `state` was folded from. */
export function appended(state: SessionState, events: readonly OmniMessage[]): SessionState {
  return foldTrace(events, state);
}
