/**
 * Snapshots of the time-travel fold (time-travel.ts) as JSON, for a database to keep.
 *
 * A session's state grows with it: the context, the tool call ids, the ids of finished calls
 * are lists that only get longer between compactions. Written whole every K events, a long
 * session's snapshots would add up to its length squared. So each list (a Sequence) is stored
 * once, as a *lineage*: chunks of items, each chunk what the list gained since the previous
 * snapshot, and a snapshot names a list by `{ l: lineage, n: size }`. A list that was reset or
 * rebuilt (a compaction empties the history, a window opens afresh) starts a new lineage.
 * Which list continues which is decided by identity (`Sequence.itemsAfter`): the fold appends
 * to the very nodes the previous snapshot saw, so nothing is compared by value.
 *
 * The rest of the state is small and written whole; derived parts are not written at all
 * (the id HashSets are rebuilt from their lists, the file-call index from the file calls).
 *
 * Lineage names are `<snapshot id>/<field>`: a function of the events, so two databases built
 * from the same traces, in any batches, hold the same rows. `SNAPSHOT_FORMAT` is stored with
 * every snapshot; a reader ignores snapshots of another format (and the timeline projection's
 * version is bumped with it, which rebuilds them).
 */
import * as HashMap from "effect/HashMap";
import * as HashSet from "effect/HashSet";
import type { OmniMessage, ToolCallOutputPayload, ToolCallPayload } from "@penguin/omnimessage";
import { Sequence } from "./sequence.js";
import { initialSessionState, type OpenWindow, type SessionState } from "./state.js";
import { initialInspectFacts, type FileToolCall, type InspectFacts, type TimeTravelState } from "./time-travel.js";

export const SNAPSHOT_FORMAT = 1;

/** Items a list gained, from `start` on, in the lineage `lineage`. */
export interface LineageChunk {
  lineage: string;
  start: number;
  /** JSON of the items array. */
  items: string;
}

type ListRef = { l: string; n: number } | null;

interface EncodedFold {
  session: Record<string, unknown>;
  facts: Record<string, unknown>;
}

/** Lists keyed by their place in the state. */
type ListPath =
  | "history"
  | "pending"
  | "toolCallIds"
  | "window.inputs"
  | "window.produced"
  | "window.producedMessages"
  | "facts.finishedIds"
  | "facts.fileCalls"
  | "facts.steeringSent";

/**
 * Encodes the successive snapshots of one session. It remembers the lists the last snapshot
 * stored (by identity), so the next one stores only what they gained. Seed it with `decoded`
 * after restoring a snapshot, to go on from there.
 */
export class SnapshotEncoder {
  #known = new Map<ListPath, { seq: Sequence<unknown>; lineage: string }>();

  /** `id` names the snapshot (the session's event count at it): lineages started here are named after it. */
  encode(fold: TimeTravelState, id: string | number): { state: string; chunks: LineageChunk[] } {
    const chunks: LineageChunk[] = [];
    const known = new Map<ListPath, { seq: Sequence<unknown>; lineage: string }>();
    const list = (path: ListPath, seq: Sequence<unknown>): ListRef => {
      if (seq.size === 0) return null;
      const prev = this.#known.get(path);
      const added = prev === undefined ? undefined : seq.itemsAfter(prev.seq);
      if (prev !== undefined && added !== undefined) {
        if (added.length > 0) chunks.push({ lineage: prev.lineage, start: prev.seq.size, items: JSON.stringify(added) });
        known.set(path, { seq, lineage: prev.lineage });
        return { l: prev.lineage, n: seq.size };
      }
      const lineage = `${id}/${path}`;
      chunks.push({ lineage, start: 0, items: JSON.stringify(seq.toArray()) });
      known.set(path, { seq, lineage });
      return { l: lineage, n: seq.size };
    };
    const s = fold.session;
    const f = fold.facts;
    const { seenToolCallIds: _derived, history, pending, toolCallIds, outputs, window, ...plain } = s;
    const encoded: EncodedFold = {
      session: {
        ...plain,
        history: list("history", history),
        pending: list("pending", pending),
        toolCallIds: list("toolCallIds", toolCallIds),
        outputs: [...outputs.entries()],
        window: window === undefined ? null : { inputs: list("window.inputs", window.inputs), produced: list("window.produced", window.produced), producedMessages: list("window.producedMessages", window.producedMessages) },
      },
      facts: {
        openCalls: [...f.openCalls.entries()],
        decisions: [...f.decisions.entries()],
        finishedIds: list("facts.finishedIds", f.finishedIds),
        fileCalls: list("facts.fileCalls", f.fileCalls),
        filesRead: f.filesRead,
        filesWritten: f.filesWritten,
        steeringSent: list("facts.steeringSent", f.steeringSent),
        requests: f.requests,
        windowOpen: f.windowOpen,
        compactionsCompleted: f.compactionsCompleted,
        compactionInProgress: f.compactionInProgress,
        goalResult: f.goalResult ?? null,
        forkedFrom: f.forkedFrom ?? null,
      },
    };
    this.#known = known;
    return { state: JSON.stringify(encoded), chunks };
  }

  /** Takes the lists of a restored snapshot as the ones the next snapshot continues. */
  seed(restored: RestoredSnapshot): void {
    this.#known = new Map(restored.lists);
  }
}

/** The lineages a snapshot's state refers to, each with the number of items it needs, to fetch their chunks. */
export function lineagesOf(state: string): { lineage: string; size: number }[] {
  const e = JSON.parse(state) as EncodedFold;
  const refs = [e.session.history, e.session.pending, e.session.toolCallIds, e.facts.finishedIds, e.facts.fileCalls, e.facts.steeringSent] as ListRef[];
  const w = e.session.window as Record<string, ListRef> | null;
  if (w !== null && w !== undefined) refs.push(w.inputs ?? null, w.produced ?? null, w.producedMessages ?? null);
  const sizes = new Map<string, number>();
  for (const r of refs) if (r !== null && r !== undefined) sizes.set(r.l, Math.max(sizes.get(r.l) ?? 0, r.n));
  return [...sizes].map(([lineage, size]) => ({ lineage, size }));
}

/** Joins a lineage's chunks (any order) into its items, checking they follow each other from item 0. */
export function lineageItems(lineage: string, chunks: readonly LineageChunk[], into: unknown[] = []): unknown[] {
  for (const c of [...chunks].filter((c) => c.lineage === lineage).sort((a, b) => a.start - b.start)) {
    if (c.start < into.length) continue;
    if (c.start !== into.length) throw new Error(`snapshot lineage ${lineage} has a gap at item ${into.length}`);
    for (const item of JSON.parse(c.items) as unknown[]) into.push(item);
  }
  return into;
}

export interface RestoredSnapshot {
  fold: TimeTravelState;
  /** The lists as restored, for `SnapshotEncoder.seed`. */
  lists: Map<ListPath, { seq: Sequence<unknown>; lineage: string }>;
}

/**
 * Rebuilds a snapshot from its state and the chunks of its lineages (any order, extra
 * chunks ignored). Throws when a chunk it needs is missing: the caller folds from the start.
 */
export function decodeSnapshot(state: string, chunks: readonly LineageChunk[]): RestoredSnapshot {
  const joined = new Map<string, readonly unknown[]>();
  return decodeSnapshotWith(state, (lineage) => {
    let items = joined.get(lineage);
    if (items === undefined) {
      items = lineageItems(lineage, chunks);
      joined.set(lineage, items);
    }
    return items;
  });
}

/**
 * The same, with the items of each lineage from `itemsOf` (at least as many as the snapshot
 * needs; a cache of them may hold more, from later snapshots of the same list).
 */
export function decodeSnapshotWith(state: string, itemsOf: (lineage: string) => readonly unknown[]): RestoredSnapshot {
  const e = JSON.parse(state) as EncodedFold;
  const lists = new Map<ListPath, { seq: Sequence<unknown>; lineage: string }>();
  const list = <A>(path: ListPath, ref: ListRef | undefined): Sequence<A> => {
    if (ref === null || ref === undefined) return Sequence.empty<A>();
    const items = itemsOf(ref.l);
    if (items.length < ref.n) throw new Error(`snapshot lineage ${ref.l} holds ${items.length} items, ${ref.n} needed`);
    const seq = Sequence.from(items.length === ref.n ? items : items.slice(0, ref.n)) as Sequence<A>;
    lists.set(path, { seq: seq as Sequence<unknown>, lineage: ref.l });
    return seq;
  };
  const s = e.session;
  const w = s.window as Record<string, ListRef> | null;
  const window: OpenWindow | undefined =
    w === null || w === undefined ? undefined : { inputs: list<OmniMessage>("window.inputs", w.inputs), produced: list("window.produced", w.produced), producedMessages: list<OmniMessage>("window.producedMessages", w.producedMessages) };
  const toolCallIds = list<string>("toolCallIds", s.toolCallIds as ListRef);
  const session: SessionState = {
    ...initialSessionState,
    ...(s as object),
    history: list<OmniMessage>("history", s.history as ListRef),
    pending: list<OmniMessage>("pending", s.pending as ListRef),
    toolCallIds,
    seenToolCallIds: HashSet.fromIterable(toolCallIds.toArray()),
    outputs: new Map(s.outputs as [string, ToolCallOutputPayload][]),
    window,
  } as SessionState;
  const f = e.facts;
  const finishedIds = list<string>("facts.finishedIds", f.finishedIds as ListRef);
  const fileCalls = list<FileToolCall>("facts.fileCalls", f.fileCalls as ListRef);
  let fileCallIndex = HashMap.empty<string, FileToolCall>();
  for (const c of fileCalls.toArray()) fileCallIndex = HashMap.set(fileCallIndex, c.id, c);
  const facts: InspectFacts = {
    ...initialInspectFacts,
    openCalls: new Map(f.openCalls as [string, ToolCallPayload][]),
    decisions: new Map(f.decisions as [string, string][]),
    finishedIds,
    finished: HashSet.fromIterable(finishedIds.toArray()),
    fileCalls,
    fileCallIndex,
    filesRead: f.filesRead as string[],
    filesWritten: f.filesWritten as string[],
    steeringSent: list<string>("facts.steeringSent", f.steeringSent as ListRef),
    requests: f.requests as number,
    windowOpen: f.windowOpen as boolean,
    compactionsCompleted: f.compactionsCompleted as number,
    compactionInProgress: f.compactionInProgress as boolean,
    goalResult: (f.goalResult ?? undefined) as InspectFacts["goalResult"],
    forkedFrom: (f.forkedFrom ?? undefined) as InspectFacts["forkedFrom"],
  };
  return { fold: { session, facts }, lists };
}
