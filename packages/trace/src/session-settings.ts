/**
 * A session's settings (approval mode, thinking level) as its whole trace records them, read
 * from the only lines that can change them instead of folding every file of the session.
 *
 * Resuming a session whose context was compacted into later files needs the settings from all
 * of them (a rotated file does not repeat them), but nothing else from the earlier files. The
 * settings are still folded by `evolve`, the one reducer, over the session's records in order:
 * only the records it changes settings on are given to it, found by their type's bytes
 * (`readTraceFileMatching`), so a 50 MB session costs a byte scan, not a parse and a fold.
 * `evolve` changes `settings` on `settings_changed` and on a `session_meta` that carries a
 * legacy thinking level, and on nothing else; a rule that changes them on another record must
 * add that record's type to `SETTINGS_RECORD_TYPES`.
 */
import { foldTrace } from "./evolve.js";
import { readTraceFileMatching, type TraceFileRef } from "./reader.js";
import { initialSessionState, type SessionSettings } from "./state.js";

/** The record types `evolve` changes the settings on. */
export const SETTINGS_RECORD_TYPES = ["settings_changed", "session_meta"] as const;

/** As a JSON string value in a line (`"settings_changed"`): a line of that type always holds it. */
const NEEDLES = SETTINGS_RECORD_TYPES.map((t) => JSON.stringify(t));

/** The settings after every record of `refs` (a session's files, lowest index first). */
export function sessionSettingsOfFiles(refs: readonly TraceFileRef[]): SessionSettings {
  let state = initialSessionState;
  for (const ref of refs) state = foldTrace(readTraceFileMatching(ref.file, NEEDLES).messages, state);
  return state.settings;
}
