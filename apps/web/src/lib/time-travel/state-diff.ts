/**
 * The state panel's content, pure: a time-travel state (api/time-travel.ts) laid out as
 * sections of rows (context, open tool calls, pending approvals, steering queue, settings,
 * usage, turns, compaction, goal, files read and written), each row marked against the
 * previous step's state as added, removed, changed (with the value before) or the same.
 *
 * How each part is compared, and why:
 * - the context is compared as a sequence (its longest common subsequence): a context mostly
 *   grows by appending, but a step can also put a message before others (a tool output goes
 *   before the pending input), and a message that stays is `same` wherever it moved to; a
 *   message repeated word for word is still told apart by its place. A compaction replaces
 *   the context: what is gone is removed, what is new is added;
 * - lists with ids (tool calls, steering) are compared by id; files by path;
 * - scalar parts (settings, usage, counts, goal) are compared field by field.
 * With no previous state (not loaded yet) every row is `same`: nothing is claimed to change.
 */
import type { OmniMessage } from "@penguin/omnimessage";
import type { RecordCut, SessionState, StateToolCall } from "../../api/time-travel";
import { timelineRow } from "../trace-analysis";

export type Change = "added" | "removed" | "changed" | "same";

export interface StateRow {
  key: string;
  label: string;
  change: Change;
  /** For `changed`: the value before. */
  before?: string;
  /** The server cut this message's text (a context message over 4 MiB): what is left out and where it is whole. */
  cut?: RecordCut;
}

export interface StateSection {
  id: string;
  title: string;
  rows: StateRow[];
  /** What the section says when it has no rows. */
  empty: string;
}

/** A list compared by keys: the current rows in their order, then the ones that were removed. */
export function diffKeyed<T>(previous: readonly T[] | undefined, current: readonly T[], keyOf: (t: T) => string, labelOf: (t: T) => string): StateRow[] {
  const before = new Map((previous ?? []).map((t) => [keyOf(t), t] as const));
  const now = new Set(current.map(keyOf));
  const rows: StateRow[] = current.map((t) => {
    const key = keyOf(t);
    const old = before.get(key);
    if (previous === undefined) return { key, label: labelOf(t), change: "same" };
    if (old === undefined) return { key, label: labelOf(t), change: "added" };
    return labelOf(old) === labelOf(t) ? { key, label: labelOf(t), change: "same" } : { key, label: labelOf(t), change: "changed", before: labelOf(old) };
  });
  for (const [key, t] of before) if (!now.has(key)) rows.push({ key, label: labelOf(t), change: "removed" });
  return rows;
}

/** Above this many cells the middle of two sequences is not aligned: it is shown removed, then added. */
const MAX_ALIGNED_CELLS = 1_000_000;

/** A sequence compared by its longest common subsequence (see the file comment); removed rows sit where they were. */
export function diffSequence<T>(previous: readonly T[] | undefined, current: readonly T[], keyOf: (t: T) => string, labelOf: (t: T) => string): StateRow[] {
  if (previous === undefined) return current.map((t, i) => ({ key: `${i}`, label: labelOf(t), change: "same" }));
  const oldKeys = previous.map(keyOf);
  const newKeys = current.map(keyOf);
  const kept = commonSubsequence(oldKeys, newKeys);
  const rows: StateRow[] = [];
  let o = 0;
  let n = 0;
  for (const [keptOld, keptNew] of [...kept, [previous.length, current.length] as const]) {
    for (; o < keptOld; o++) rows.push({ key: `old-${o}`, label: labelOf(previous[o]!), change: "removed" });
    for (; n < keptNew; n++) rows.push({ key: `${n}`, label: labelOf(current[n]!), change: "added" });
    if (keptNew < current.length) rows.push({ key: `${keptNew}`, label: labelOf(current[keptNew]!), change: "same" });
    o = keptOld + 1;
    n = keptNew + 1;
  }
  return rows;
}

/** Index pairs (old, new) of a longest common subsequence of two key lists, in order. */
function commonSubsequence(a: readonly string[], b: readonly string[]): (readonly [number, number])[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  const pairs: (readonly [number, number])[] = [];
  for (let i = 0; i < start; i++) pairs.push([i, i]);
  const rowsA = endA - start;
  const colsB = endB - start;
  if (rowsA > 0 && colsB > 0 && rowsA * colsB <= MAX_ALIGNED_CELLS) {
    // lengths[i][j]: the longest common subsequence of a[start+i..endA) and b[start+j..endB).
    const lengths = Array.from({ length: rowsA + 1 }, () => new Uint32Array(colsB + 1));
    for (let i = rowsA - 1; i >= 0; i--) {
      for (let j = colsB - 1; j >= 0; j--) {
        lengths[i]![j] = a[start + i] === b[start + j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < rowsA && j < colsB) {
      if (a[start + i] === b[start + j]) {
        pairs.push([start + i, start + j]);
        i += 1;
        j += 1;
      } else if (lengths[i + 1]![j]! >= lengths[i]![j + 1]!) i += 1;
      else j += 1;
    }
  }
  for (let k = 0; k < a.length - endA; k++) pairs.push([endA + k, endB + k]);
  return pairs;
}

type Scalar = string | number | boolean | undefined;

/** Named values compared one by one; a value that is absent on both sides is left out. */
export function diffFields(previous: Record<string, Scalar> | undefined, current: Record<string, Scalar>): StateRow[] {
  const names = [...new Set([...Object.keys(current), ...Object.keys(previous ?? {})])];
  return names.flatMap((name): StateRow[] => {
    const now = current[name];
    const old = previous?.[name];
    if (now === undefined && old === undefined) return [];
    if (previous === undefined) return [{ key: name, label: `${name}: ${String(now)}`, change: "same" }];
    if (now === undefined) return [{ key: name, label: `${name}: ${String(old)}`, change: "removed" }];
    if (old === undefined) return [{ key: name, label: `${name}: ${String(now)}`, change: "added" }];
    return old === now ? [{ key: name, label: `${name}: ${String(now)}`, change: "same" }] : [{ key: name, label: `${name}: ${String(now)}`, change: "changed", before: String(old) }];
  });
}

/** One line for a context message: its kind and a clipped text, as the timeline shows it. */
export function contextLabel(m: OmniMessage): string {
  const row = timelineRow(0, m);
  return row.text === "" ? row.type : `${row.type}: ${row.text}`;
}

const callLabel = (c: StateToolCall) => `${c.name} ${c.arguments}`.trim();
const messageKey = (m: OmniMessage) => JSON.stringify(m.payload);

function usageFields(s: SessionState): Record<string, Scalar> {
  return {
    "session tokens": s.usage.session.total,
    "output tokens": s.usage.session.output,
    "cache read": s.usage.session.cacheRead,
    "cache write": s.usage.session.cacheWrite,
    "last request": s.usage.lastRequest?.total,
  };
}

const turnFields = (s: SessionState): Record<string, Scalar> => ({ turns: s.turns, requests: s.requests, running: s.running ? "yes" : "no" });

const compactionFields = (s: SessionState): Record<string, Scalar> => ({
  segment: s.compaction.segment,
  completed: s.compaction.completed,
  "in progress": s.compaction.inProgress ? "yes" : "no",
  "summary waiting": s.pendingSummary === undefined ? undefined : "yes",
});

const goalFields = (s: SessionState): Record<string, Scalar> => ({ objective: s.goal?.objective, budget: s.goal?.budget, rounds: s.goal?.rounds, outcome: s.goal?.outcome });

const settingsFields = (s: SessionState): Record<string, Scalar> => ({
  ...s.settings,
  "forked from": s.forkedFrom === undefined ? undefined : `${s.forkedFrom.sessionId} at ${s.forkedFrom.at}`,
});

/** The panel's sections for `state`, marked against `previous` (undefined: no marks). */
export function stateSections(state: SessionState, previous: SessionState | undefined): StateSection[] {
  const same = (s: string) => s;
  return [
    { id: "context", title: "Context (current segment)", rows: withCuts(diffSequence(previous?.nextContext, state.nextContext, messageKey, contextLabel), state), empty: "The context is empty." },
    { id: "open-calls", title: "Open tool calls", rows: diffKeyed(previous?.openToolCalls, state.openToolCalls, (c) => c.toolCallId, callLabel), empty: "No tool call is running." },
    { id: "approvals", title: "Pending approvals", rows: diffKeyed(previous?.pendingApprovals, state.pendingApprovals, (c) => c.toolCallId, callLabel), empty: "Nothing waits for approval." },
    { id: "steering", title: "Steering queue", rows: diffKeyed(previous?.steeringQueue, state.steeringQueue, (q) => q.id, (q) => q.text), empty: "No steering queued." },
    { id: "settings", title: "Settings", rows: diffFields(previous === undefined ? undefined : settingsFields(previous), settingsFields(state)), empty: "No settings recorded." },
    { id: "usage", title: "Usage so far", rows: diffFields(previous === undefined ? undefined : usageFields(previous), usageFields(state)), empty: "No usage yet." },
    { id: "turns", title: "Turns", rows: diffFields(previous === undefined ? undefined : turnFields(previous), turnFields(state)), empty: "" },
    { id: "compaction", title: "Compaction segment", rows: diffFields(previous === undefined ? undefined : compactionFields(previous), compactionFields(state)), empty: "" },
    { id: "goal", title: "Goal", rows: diffFields(previous === undefined ? undefined : goalFields(previous), goalFields(state)), empty: "No goal." },
    { id: "files-read", title: "Files read", rows: diffKeyed(previous?.filesRead, state.filesRead, same, same), empty: "No file read yet." },
    { id: "files-written", title: "Files written", rows: diffKeyed(previous?.filesWritten, state.filesWritten, same, same), empty: "No file written yet." },
  ];
}

/** How many rows differ from the previous step, over all sections. */
/** Context rows of the current state (keyed by their index) carry the cut of their message, if any. */
function withCuts(rows: StateRow[], state: SessionState): StateRow[] {
  return rows.map((row) => {
    const cut = /^\d+$/.test(row.key) ? state.contextCuts[Number(row.key)] : undefined;
    return cut === undefined ? row : { ...row, cut };
  });
}

export function changeCount(sections: readonly StateSection[]): number {
  return sections.reduce((n, s) => n + s.rows.filter((r) => r.change !== "same").length, 0);
}
