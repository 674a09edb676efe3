/**
 * Comparing a replay with its recording, record by record.
 *
 * Two records are the same when their envelopes are equal after three things that must
 * differ are set aside: the timestamp, the session_meta fields that name this run (its id,
 * workspace, agent state, `source`, `replay_of`), and the identities a replay mints anew
 * (its session id, its workspace path, its children's session ids), which are written back
 * to the recorded values before comparing. Everything else, provider fidelity included,
 * must match exactly. The first difference is reported as the record number N of the
 * recording and the field that differs, so `diverged at N: …` points at the line to read.
 */
import type { OmniMessage } from "@penguin/omnimessage";
import type { RecordedEvent } from "./recording.js";

/** Values minted by the replay, mapped back to what the recording has in their place. */
export class Identities {
  readonly #pairs: [string, string][] = [];

  add(replayValue: string, recordedValue: string): void {
    if (replayValue === recordedValue || replayValue === "") return;
    this.#pairs.push([replayValue, recordedValue]);
    this.#pairs.sort((a, b) => b[0].length - a[0].length);
  }

  /** `text` with every replay identity written as its recorded one. */
  restore(text: string): string {
    let out = text;
    for (const [from, to] of this.#pairs) out = out.split(from).join(to);
    return out;
  }

  /**
   * The reverse: `text` with every recorded identity written as the replay's. A recorded
   * tool call that names the recorded workspace or scratchpad acts on the replay's own.
   */
  toReplay(text: string): string {
    let out = text;
    for (const [to, from] of [...this.#pairs].sort((a, b) => b[1].length - a[1].length)) out = out.split(from).join(to);
    return out;
  }
}

/** The comparable form of a record: no timestamp, no per-run meta fields. */
export function comparable(m: OmniMessage): unknown {
  if (m.type === "session_meta") {
    const { provider, model_id, model_context_window, system_prompt } = m.payload;
    return { type: m.type, payload: { provider, model_id, model_context_window, system_prompt } };
  }
  const { timestamp: _time, ...rest } = m;
  return rest;
}

export type Verdict = { identical: true; records: number } | { identical: false; at: number; position: string; what: string };

function short(v: unknown): string {
  const s = v === undefined ? "nothing" : JSON.stringify(v);
  return s.length > 120 ? `${s.slice(0, 117)}…` : s;
}

/** The first path where `a` and `b` differ, with both values; undefined when equal. */
export function firstDifference(a: unknown, b: unknown, path = ""): string | undefined {
  if (a === b) return undefined;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) {
    return `${path === "" ? "value" : path}: recorded ${short(a)}, replayed ${short(b)}`;
  }
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  for (const k of keys) {
    const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], path === "" ? k : `${path}.${k}`);
    if (d !== undefined) return d;
  }
  return undefined;
}

/** What a record is, in a few words: `model_msg tool_call_output`, `event_msg request_end`. */
export function recordKind(m: OmniMessage | undefined): string {
  if (m === undefined) return "the end of the trace";
  return m.type === "session_meta" ? "session_meta" : `${m.type} ${m.payload.type}`;
}

export function compareRecords(recorded: readonly RecordedEvent[], replayed: readonly RecordedEvent[], ids: Identities): Verdict {
  const length = Math.max(recorded.length, replayed.length);
  for (let i = 0; i < length; i++) {
    const want = recorded[i];
    const got = replayed[i];
    const position = want?.position ?? got?.position ?? "";
    if (want === undefined || got === undefined) {
      return { identical: false, at: i + 1, position, what: `recorded ${recordKind(want?.message)}, replayed ${recordKind(got?.message)}` };
    }
    const a = comparable(want.message);
    const b = JSON.parse(ids.restore(JSON.stringify(comparable(got.message)))) as unknown;
    const difference = firstDifference(a, b);
    if (difference !== undefined) return { identical: false, at: want.n, position, what: `${recordKind(want.message)}: ${difference}` };
  }
  return { identical: true, records: recorded.length };
}
