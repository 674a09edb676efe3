/**
 * The one shape of the engine's decisions: `decide(state, command) → events`.
 *
 * A decider is a pure function beside `evolve` (@penguin/trace): given the session's folded
 * state and a command (what just happened at an edge: a tool call proposed, a human's answer,
 * a request boundary, a crash found on resume), it returns the events to append, in order, or
 * none. It reads no clock (a command carries its time, `at`), does no I/O and keeps nothing:
 * the service that calls it appends the events through the session's live fold, and the next
 * decision sees them folded. So every rule has one copy, testable as given (events) / when
 * (command) / then (events).
 */
import type { OmniMessage } from "@penguin/omnimessage";
import type { SessionState } from "@penguin/trace";

/** A decider over the session's state: the events `command` makes the session append (none: nothing happens). */
export type Decider<Command, State = SessionState> = (state: State, command: Command) => readonly OmniMessage[];
