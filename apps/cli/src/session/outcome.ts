/**
 * How a task ended, read from its messages, and the exit code that says so.
 *
 *   done     the run ended without an `abort` event                      → 0
 *   aborted  an `abort` after the user's interrupt (our signal fired)     → 130
 *   auth     the last request ended `auth` (the engine never retries it) → 3
 *   config   the last request failed on the endpoint's configuration
 *            (bad base URL, unknown host, 404/501; never retried)         → 2
 *   failed   any other `abort`: retries exhausted, a permanent error,
 *            max turns reached                                           → 1
 *
 * The engine reports failures as values (request_end status, abort reason), never as
 * throws, so this is a fold over the stream; a throw out of `session.run` is a bug and the
 * caller reports it as `failed`.
 */
import type { OmniMessage, RequestEndPayload } from "@penguin/omnimessage";
import { EXIT, type ExitCode } from "../exit-codes.js";

export type TaskOutcome =
  | { kind: "done" }
  | { kind: "aborted"; reason: string }
  | { kind: "auth"; message: string }
  | { kind: "config"; message: string }
  | { kind: "failed"; message: string };

export class OutcomeTracker {
  #lastEnd: RequestEndPayload | undefined;
  #abort: string | undefined;
  readonly #interrupted: () => boolean;

  /** `interrupted` says whether the user aborted the task (the run's signal fired). */
  constructor(interrupted: () => boolean) {
    this.#interrupted = interrupted;
  }

  observe(m: OmniMessage): void {
    if (m.type !== "event_msg" || (m.origin !== undefined && m.origin.length > 0)) return;
    const p = m.payload;
    if (p.type === "request_end") this.#lastEnd = p;
    else if (p.type === "abort") this.#abort = p.reason ?? "aborted";
  }

  get outcome(): TaskOutcome {
    if (this.#abort === undefined) return { kind: "done" };
    const end = this.#lastEnd;
    if (end !== undefined && end.status === "auth" && end.retry_in_ms === undefined) {
      return { kind: "auth", message: end.error_message ?? this.#abort };
    }
    if (end !== undefined && end.configuration === true && end.retry_in_ms === undefined) {
      return { kind: "config", message: end.error_message ?? this.#abort };
    }
    if (this.#interrupted()) return { kind: "aborted", reason: this.#abort };
    return { kind: "failed", message: this.#abort };
  }
}

export function exitCodeOf(outcome: TaskOutcome): ExitCode {
  switch (outcome.kind) {
    case "done":
      return EXIT.done;
    case "aborted":
      return EXIT.aborted;
    case "auth":
      return EXIT.auth;
    case "config":
      return EXIT.usage;
    case "failed":
      return EXIT.failed;
  }
}
