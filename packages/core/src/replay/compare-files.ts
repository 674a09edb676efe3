/**
 * Replays and workspace checkpoints (issue 29). Checkpoints are facts about the workspace,
 * not about the conversation: the record-by-record comparison and the replay's sequencing
 * set them aside on both sides (`withoutCheckpoints` keeps each remaining record's recorded
 * number, so a verdict still names the recording's record N). A replay that reruns its tools
 * then compares the files: each tool call's checkpoint in the recording with the rerun's
 * checkpoint after the same call (what each left at the paths either changed, where both
 * trees are in the store; else the changed paths themselves), and reports `files differ (…)` at the recorded checkpoint. A recording made
 * before checkpoints (none in it) is not compared on files.
 */
import type { OmniMessage, WorkspaceCheckpointPayload } from "@penguin/omnimessage";
import { loadTree, sameEntry, type PackStore, type Tree } from "@penguin/trace";
import type { RecordedEvent, RecordedSession } from "./recording.js";
import type { Verdict } from "./compare.js";

const checkpointOf = (m: OmniMessage): WorkspaceCheckpointPayload | undefined =>
  m.type === "event_msg" && m.payload.type === "workspace_checkpoint" ? m.payload : undefined;

/** The recording without its checkpoints, renumbered; `recordedN` maps a new number back. */
export function withoutCheckpoints(recording: RecordedSession): { recording: RecordedSession; recordedN: (n: number) => number } {
  const kept = recording.events.filter((e) => checkpointOf(e.message) === undefined);
  const events = kept.map((e, i) => ({ ...e, n: i + 1 }));
  const children = new Map([...recording.children].map(([id, child]) => [id, withoutCheckpoints(child).recording]));
  return { recording: { ...recording, events, children }, recordedN: (n) => kept[n - 1]?.n ?? n };
}

/** The events without checkpoints, renumbered (the replay's side). */
export function eventsWithoutCheckpoints(events: readonly RecordedEvent[]): RecordedEvent[] {
  return events.filter((e) => checkpointOf(e.message) === undefined).map((e, i) => ({ ...e, n: i + 1 }));
}

export function isCheckpointMessage(m: OmniMessage): boolean {
  return checkpointOf(m) !== undefined;
}

const short = (paths: readonly string[]): string => (paths.length > 5 ? `${paths.slice(0, 5).join(", ")} and ${paths.length - 5} more` : paths.join(", "));

/** The first tool call whose files differ between the recording and the rerun; identical when none (or nothing to compare). */
/**
 * `replayedUnchanged`: the rerun workspace's tree now, for a rerun that recorded no checkpoint
 * at all (its files never changed, so they are as they are now).
 */
export function compareCheckpoints(recorded: readonly RecordedEvent[], replayed: readonly RecordedEvent[], store: PackStore | undefined, replayedUnchanged?: () => string | undefined): Verdict {
  const byCall = (events: readonly RecordedEvent[]) => {
    const out = new Map<string, { event: RecordedEvent; payload: WorkspaceCheckpointPayload }>();
    for (const e of events) {
      const p = checkpointOf(e.message);
      if (p?.tool_call_id !== undefined) out.set(p.tool_call_id, { event: e, payload: p });
    }
    return out;
  };
  const want = byCall(recorded);
  if (want.size === 0) return { identical: true, records: recorded.length };
  const got = byCall(replayed);
  const calls = [...new Set([...want.keys(), ...got.keys()])];
  const order = (id: string) => want.get(id)?.event.n ?? Number.MAX_SAFE_INTEGER;
  for (const id of calls.sort((x, y) => order(x) - order(y))) {
    const a = want.get(id);
    const b = got.get(id);
    const at = a?.event ?? outputOf(recorded, id) ?? recorded.at(-1)!;
    // What each side's call left at the paths either one changed: a side without a checkpoint
    // after the call had the workspace of its checkpoint before it (its baseline at the start),
    // so a path the workspace already held as the other side's call left it is no difference.
    const paths = [...new Set([...(a?.payload.changed ?? []), ...(b?.payload.changed ?? [])])];
    const treeA = store === undefined ? undefined : treeIn(store, a?.payload.tree ?? treeBefore(recorded, id));
    const treeB = store === undefined ? undefined : treeIn(store, b?.payload.tree ?? treeBefore(replayed, id) ?? replayedUnchanged?.());
    const differing =
      treeA !== undefined && treeB !== undefined
        ? paths.filter((p) => !sameEntry(treeA.get(p), treeB.get(p)))
        : paths.filter((p) => !(a?.payload.changed ?? []).includes(p) || !(b?.payload.changed ?? []).includes(p));
    if (differing.length > 0) return { identical: false, at: at.n, position: at.position, what: `files differ (${short(differing.sort())})` };
  }
  return { identical: true, records: recorded.length };
}

const outputOf = (events: readonly RecordedEvent[], id: string): RecordedEvent | undefined =>
  events.find((e) => e.message.type === "model_msg" && e.message.payload.type === "tool_call_output" && e.message.payload.tool_call_id === id);

/** The tree in force when call `id` ended on a side without a checkpoint after it. */
function treeBefore(events: readonly RecordedEvent[], id: string): string | undefined {
  const end = outputOf(events, id)?.n ?? Number.MAX_SAFE_INTEGER;
  let tree: string | undefined;
  let baseline: string | undefined;
  for (const e of events) {
    const p = checkpointOf(e.message);
    if (p === undefined) continue;
    if (p.reason === "baseline") baseline = p.tree;
    else if (e.n < end) tree = p.tree;
  }
  return tree ?? baseline;
}

function treeIn(store: PackStore, id: string | undefined): Tree | undefined {
  if (id === undefined) return undefined;
  try {
    return loadTree(id, (node) => store.read(node));
  } catch {
    return undefined;
  }
}
