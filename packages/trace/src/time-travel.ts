/**
 * The time-travel fold: `evolve`'s SessionState plus the facts `penguin inspect` reports that
 * the reducer itself does not keep (calls allowed and still running, calls waiting for a
 * decision, steering delivered, requests sent, compactions completed, the goal's result, the
 * files tools read and wrote). One step function over envelopes, so the fold at event N is a
 * plain function of the first N events, and a snapshot of it at N continues exactly as the
 * fold from the start would.
 *
 * Shaped to stay small and to share structure between snapshots of one session:
 * - a call leaves `openCalls` (and its decision leaves `decisions`) once its output arrives or
 *   an abort closes it; from then on only its id is kept, in `finishedIds`, an append-only
 *   Sequence, with a persistent HashSet beside it for lookups;
 * - the calls of the file tools are kept (append-only too, the index rebuilt from them, the
 *   latest call with an id winning) so an output that arrives for a call already closed
 *   still names its path, as a scan of the whole trace would;
 * - everything else is a counter or a short list.
 * Every step returns new objects and never changes the ones it gets.
 */
import * as HashMap from "effect/HashMap";
import * as HashSet from "effect/HashSet";
import { extractMarker, startsWithMarker, type OmniMessage, type ToolCallPayload } from "@penguin/omnimessage";
import { evolve } from "./evolve.js";
import { Sequence } from "./sequence.js";
import { initialSessionState, type SessionState } from "./state.js";

export interface FileToolCall {
  readonly id: string;
  readonly kind: "read" | "written";
  readonly path: string;
}

export interface InspectFacts {
  /** Calls seen and not finished, in the order they were first seen. */
  readonly openCalls: ReadonlyMap<string, ToolCallPayload>;
  /** The latest decision for each call not finished (a decision may precede its call). */
  readonly decisions: ReadonlyMap<string, string>;
  /** Ids of calls finished (an output arrived, or an abort closed them), in that order. */
  readonly finishedIds: Sequence<string>;
  readonly finished: HashSet.HashSet<string>;
  /** Calls of read_file / read_image / write_file / edit_file that name a path, as called. */
  readonly fileCalls: Sequence<FileToolCall>;
  readonly fileCallIndex: HashMap.HashMap<string, FileToolCall>;
  /** Paths whose read or write completed, first completion first. */
  readonly filesRead: readonly string[];
  readonly filesWritten: readonly string[];
  /** `[user_steering]` texts delivered, oldest first. */
  readonly steeringSent: Sequence<string>;
  /** `request_begin`s in the session (compaction requests included). */
  readonly requests: number;
  readonly windowOpen: boolean;
  readonly compactionsCompleted: number;
  readonly compactionInProgress: boolean;
  /** The last `goal_finished`. */
  readonly goalResult: { readonly rounds: number; readonly outcome: string } | undefined;
  readonly forkedFrom: { readonly session_id: string; readonly at: string } | undefined;
}

export interface TimeTravelState {
  readonly session: SessionState;
  readonly facts: InspectFacts;
}

export const initialInspectFacts: InspectFacts = {
  openCalls: new Map(),
  decisions: new Map(),
  finishedIds: Sequence.empty(),
  finished: HashSet.empty(),
  fileCalls: Sequence.empty(),
  fileCallIndex: HashMap.empty(),
  filesRead: [],
  filesWritten: [],
  steeringSent: Sequence.empty(),
  requests: 0,
  windowOpen: false,
  compactionsCompleted: 0,
  compactionInProgress: false,
  goalResult: undefined,
  forkedFrom: undefined,
};

export const initialTimeTravelState: TimeTravelState = { session: initialSessionState, facts: initialInspectFacts };

/** InspectFacts whose fields may still be set: what `draftFacts` hands a step to fill in. */
type FactsDraft = { -readonly [K in keyof InspectFacts]-?: InspectFacts[K] };

/**
 * A copy of `f` whose fields may be set before it is handed out: `{ ...f }` at a fraction of
 * its cost (on Node 20 an object spread this wide costs a few hundred ns, a literal naming
 * each field tens, and the fold makes one per request, call and output). The type makes a
 * field added to InspectFacts fail to compile here until it is listed.
 */
function draftFacts(f: InspectFacts): FactsDraft {
  return {
    openCalls: f.openCalls,
    decisions: f.decisions,
    finishedIds: f.finishedIds,
    finished: f.finished,
    fileCalls: f.fileCalls,
    fileCallIndex: f.fileCallIndex,
    filesRead: f.filesRead,
    filesWritten: f.filesWritten,
    steeringSent: f.steeringSent,
    requests: f.requests,
    windowOpen: f.windowOpen,
    compactionsCompleted: f.compactionsCompleted,
    compactionInProgress: f.compactionInProgress,
    goalResult: f.goalResult,
    forkedFrom: f.forkedFrom,
  };
}

/** One envelope folded into both halves. Messages forwarded from a child change nothing. */
export function stepTimeTravel(s: TimeTravelState, m: OmniMessage): TimeTravelState {
  if (m.origin !== undefined && m.origin.length > 0) return s;
  const session = evolve(s.session, m);
  const facts = stepFacts(s.facts, m);
  return session === s.session && facts === s.facts ? s : { session, facts };
}

export function foldTimeTravel(messages: Iterable<OmniMessage>, from: TimeTravelState = initialTimeTravelState): TimeTravelState {
  let s = from;
  for (const m of messages) s = stepTimeTravel(s, m);
  return s;
}

const FILE_KINDS: Record<string, "read" | "written"> = { read_file: "read", read_image: "read", write_file: "written", edit_file: "written" };

function pathArgument(call: ToolCallPayload): string | undefined {
  try {
    const args = JSON.parse(call.arguments) as { file_path?: unknown; path?: unknown } | null;
    const p = args?.file_path ?? args?.path;
    return typeof p === "string" ? p : undefined;
  } catch {
    return undefined;
  }
}

function finish(f: InspectFacts, ids: readonly string[]): FactsDraft {
  // The maps are values: copied only when an id is in them (most outputs have no decision).
  let openCalls = f.openCalls as Map<string, ToolCallPayload>;
  let decisions = f.decisions as Map<string, string>;
  let finishedIds = f.finishedIds;
  let finished = f.finished;
  for (const id of ids) {
    if (openCalls.has(id)) {
      if (openCalls === f.openCalls) openCalls = new Map(openCalls);
      openCalls.delete(id);
    }
    if (decisions.has(id)) {
      if (decisions === f.decisions) decisions = new Map(decisions);
      decisions.delete(id);
    }
    if (!HashSet.has(finished, id)) {
      finished = HashSet.add(finished, id);
      finishedIds = finishedIds.append(id);
    }
  }
  const next = draftFacts(f);
  next.openCalls = openCalls;
  next.decisions = decisions;
  next.finishedIds = finishedIds;
  next.finished = finished;
  return next;
}

export function stepFacts(f: InspectFacts, m: OmniMessage): InspectFacts {
  if (m.type === "model_msg") {
    const p = m.payload;
    if (p.type === "tool_call") {
      const kind = FILE_KINDS[p.name];
      const path = kind === undefined ? undefined : pathArgument(p);
      const isFileCall = kind !== undefined && path !== undefined;
      const known = HashSet.has(f.finished, p.tool_call_id);
      if (known && !isFileCall) return f;
      const next = draftFacts(f);
      if (isFileCall) {
        const call: FileToolCall = { id: p.tool_call_id, kind, path };
        next.fileCalls = f.fileCalls.append(call);
        next.fileCallIndex = HashMap.set(f.fileCallIndex, p.tool_call_id, call);
      }
      if (known) return next;
      const openCalls = new Map(f.openCalls);
      openCalls.set(p.tool_call_id, p);
      next.openCalls = openCalls;
      return next;
    }
    if (p.type === "tool_call_output") {
      const next = finish(f, [p.tool_call_id]);
      const call = HashMap.get(f.fileCallIndex, p.tool_call_id);
      if (call._tag === "Some" && p.stop_reason === "completed") {
        const { kind, path } = call.value;
        if (kind === "read" && !next.filesRead.includes(path)) next.filesRead = [...next.filesRead, path];
        if (kind === "written" && !next.filesWritten.includes(path)) next.filesWritten = [...next.filesWritten, path];
      }
      return next;
    }
    if (p.type === "text" && p.role === "user" && startsWithMarker(p.text, "user_steering")) {
      const next = draftFacts(f);
      next.steeringSent = f.steeringSent.append(extractMarker(p.text, "user_steering") ?? "");
      return next;
    }
    return f;
  }
  if (m.type !== "event_msg") return f;
  const e = m.payload;
  switch (e.type) {
    case "request_begin": {
      const next = draftFacts(f);
      next.requests = f.requests + 1;
      next.windowOpen = true;
      return next;
    }
    case "request_end": {
      if (!f.windowOpen) return f;
      const next = draftFacts(f);
      next.windowOpen = false;
      return next;
    }
    case "approval_decision": {
      if (HashSet.has(f.finished, e.tool_call_id)) return f;
      const decisions = new Map(f.decisions);
      decisions.set(e.tool_call_id, e.decision);
      const next = draftFacts(f);
      next.decisions = decisions;
      return next;
    }
    case "compaction_begin": {
      const next = draftFacts(f);
      next.compactionInProgress = true;
      return next;
    }
    case "compaction_end": {
      const next = draftFacts(f);
      next.compactionInProgress = false;
      next.compactionsCompleted = f.compactionsCompleted + (e.status === "completed" ? 1 : 0);
      return next;
    }
    case "abort": {
      // An abort closes every call still open: resume gives them placeholders.
      const next = finish(f, [...f.openCalls.keys()]);
      next.windowOpen = false;
      return next;
    }
    case "goal_finished": {
      const next = draftFacts(f);
      next.goalResult = { rounds: e.rounds, outcome: e.outcome };
      return next;
    }
    case "forked_from": {
      const next = draftFacts(f);
      next.forkedFrom = { session_id: e.session_id, at: e.at };
      return next;
    }
    default:
      return f;
  }
}

/**
 * A fold (or any part of one) as plain data, for comparing two folds by value: Sequences and
 * Maps become arrays, the persistent sets and maps sorted arrays, and keys whose value is
 * undefined are left out (a stored snapshot does not keep them).
 */
export function comparableFold(value: unknown): unknown {
  if (value instanceof Sequence) return value.toArray().map(comparableFold);
  if (value instanceof Map) return [...value.entries()].map(([k, v]) => [k, comparableFold(v)]);
  if (HashSet.isHashSet(value)) return [...value].map((v) => JSON.stringify(comparableFold(v))).sort();
  if (HashMap.isHashMap(value)) return [...value].map(([k, v]) => JSON.stringify([k, comparableFold(v)])).sort();
  if (Array.isArray(value)) return value.map(comparableFold);
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = comparableFold(v);
    }
    return out;
  }
  return value;
}
