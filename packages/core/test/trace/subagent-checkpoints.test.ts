// Subagents and workspace checkpoints (issue 29): a child session checkpoints its own
// workspace changes in its own trace, and the parent's checkpoints cover the child's span, so
// rewinding the parent's files across it puts the workspace back as it was before the child
// ran (byte by byte) and forward again to the child's changes; a rewind of the rewind returns
// the later state. Real parts throughout: the testkit model scripts parent and child, the
// child edits a temp workspace with write_file and shell commands (sed -i, rm). Three ways the
// parent learns of the child's writes: a foreground child (the run_subagent call's own
// checkpoint), a background child whose notice reaches a parent that only reads meanwhile
// (the notice's turn boundary), and a background child that ends while the parent is idle
// (the next task's start).
import { lstatSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isEvent, isModel } from "@penguin/omnimessage";
import type { RecordedRequest, ScriptedTurn } from "@penguin/testkit";
import { allow, collect, startHarness, type Harness } from "../helpers/harness.js";
import { waitUntil } from "../environment/helpers.js";
import { lastSubagentId, routeConversations, runSubagent, userTexts, type Turn } from "../subagents/helpers/conversations.js";
import { loadRecording } from "../../src/replay/recording.js";
import { isCheckpoint } from "../../src/trace/workspace-files.js";

type Snapshot = Map<string, string>;

/** The workspace as a walk of its own sees it: mode and bytes of each file. */
function snapshot(root: string): Snapshot {
  const out: Snapshot = new Map();
  for (const name of readdirSync(root).sort()) {
    const st = lstatSync(join(root, name));
    out.set(name, `${(st.mode & 0o7777).toString(8)} ${readFileSync(join(root, name)).toString("base64")}`);
  }
  return out;
}

function seedWorkspace(workspace: string): void {
  writeFileSync(join(workspace, "keep.txt"), "kept\n");
  writeFileSync(join(workspace, "edit.txt"), "alpha\nbeta\n");
  writeFileSync(join(workspace, "gone.txt"), "to be removed\n");
}

/** What every child does: a file tool, then a shell edit and a removal. */
const CHILD_EDITS: ScriptedTurn[] = [
  { toolCalls: [{ name: "write_file", arguments: { file_path: "new.txt", content: "made by the child\n" } }] },
  { toolCalls: [{ name: "exec_command", arguments: { cmd: "sed -i 's/alpha/ALPHA/' edit.txt && rm gone.txt", description: "edit and remove" } }] },
  { text: "child done" },
];
/** A first checkpoint names every path it holds. */
const SEEDED = ["edit.txt", "gone.txt", "keep.txt"];
const CHILD_CHANGED = [["baseline", SEEDED], ["tool", ["new.txt"]], ["tool", ["edit.txt", "gone.txt"]]];
const ALL_CHANGED = ["edit.txt", "gone.txt", "new.txt"];

const readKeep: ScriptedTurn = { toolCalls: [{ name: "read_file", arguments: { file_path: "keep.txt" } }] };
const hasNotice = (r: RecordedRequest) => userTexts(r).some((t) => t.includes("[background_task_done]"));

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

type Events = ReturnType<typeof loadRecording>["events"];
const checkpointsOf = (events: Events) => events.filter((e) => isCheckpoint(e.message));
const reasonAndChanged = (events: Events) => checkpointsOf(events).map((e) => (isCheckpoint(e.message) ? [e.message.payload.reason ?? "tool", e.message.payload.changed] : []));

/**
 * The child's own trace, found through the parent's `subagent` pointer (the id the parent's
 * tool result named), names its changes call by call.
 */
function expectChildCheckpoints(agent: Harness["agent"], parentId: string, childId: string): void {
  const pointers = loadRecording({ paths: agent.paths }, parentId).events.flatMap((e) => (isEvent(e.message, "subagent") ? [e.message.payload.session_id] : []));
  expect(pointers).toEqual([childId]);
  expect(reasonAndChanged(loadRecording({ paths: agent.paths }, childId).events), "the child's own checkpoints").toEqual(CHILD_CHANGED);
}

/** The record of the parent's run_subagent call. */
function spawnRecord(events: Events): number {
  const call = events.find((e) => isModel(e.message, "tool_call") && e.message.payload.name === "run_subagent");
  if (call === undefined) throw new Error("the parent's trace has no run_subagent call");
  return call.n;
}

/**
 * The parent's rewinds across the child's span: to the spawn (the workspace before the child),
 * to its last record (the child's changes), then the undo of the first rewind.
 */
function expectRewindsAcrossChild(agent: Harness["agent"], parentId: string, before: Snapshot, after: Snapshot): void {
  const events = loadRecording({ paths: agent.paths }, parentId).events;
  const last = events.at(-1)!.n;
  const back = agent.rewindSession({ sessionId: parentId, to: spawnRecord(events), what: "files" });
  expect(snapshot(h!.workspace), "files rewound to the spawn").toEqual(before);
  agent.rewindSession({ sessionId: parentId, to: last, what: "files" });
  expect(snapshot(h!.workspace), "files rewound to after the child").toEqual(after);
  agent.rewindSession({ sessionId: parentId, to: spawnRecord(events), what: "files" });
  expect(snapshot(h!.workspace)).toEqual(before);
  agent.rewindSession({ sessionId: parentId, to: back.undoRecord!, what: "files" });
  expect(snapshot(h!.workspace), "the undo of a rewind").toEqual(after);
}

describe("subagents' workspace checkpoints", { timeout: 120_000 }, () => {
  it("a foreground child checkpoints in its own trace; the parent's rewind across it restores and replays its changes", async () => {
    h = await startHarness();
    seedWorkspace(h.workspace);
    const before = snapshot(h.workspace);
    let childId = "";
    const conv = routeConversations(h.kit, {
      "PARENT-FG": [
        { toolCalls: [runSubagent({ prompt: "CHILD-FG: edit the files", description: "edit" })] },
        (r) => {
          childId = lastSubagentId(r);
          return { text: "done" };
        },
      ],
      "CHILD-FG": CHILD_EDITS,
    });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(session.run("PARENT-FG: delegate the edits", { approve: allow }));
    await session.dispose();
    expect(conv.errors).toEqual([]);
    const after = snapshot(h.workspace);
    expect(after).not.toEqual(before);

    // 1. The child's own trace names its changes, call by call.
    expectChildCheckpoints(h.agent, session.id, childId);
    // The parent's: its baseline before the spawn, then the child's span as one change.
    const parentEvents = loadRecording({ paths: h.agent.paths }, session.id).events;
    expect(reasonAndChanged(parentEvents)).toEqual([["baseline", SEEDED], ["tool", ALL_CHANGED]]);
    // 2. Rewinds of the parent across the child's span.
    expectRewindsAcrossChild(h.agent, session.id, before, after);
  });

  it("a background child's changes are checkpointed by the parent at the boundary that brings its notice", async () => {
    h = await startHarness();
    seedWorkspace(h.workspace);
    const before = snapshot(h.workspace);
    let childId = "";
    // The child writes only once the parent's next request is out (its run_subagent call's
    // checkpoint recorded); the parent only reads until the notice arrives.
    let parentRequests = 0;
    let childStep = 0;
    const child: Turn = () => (parentRequests < 2 ? readKeep : CHILD_EDITS[childStep++]!);
    const parent: Turn = (r) => {
      parentRequests++;
      if (parentRequests === 1) return { toolCalls: [runSubagent({ prompt: "CHILD-BG: edit the files", run_in_background: true, description: "edit" })] };
      childId ||= lastSubagentId(r);
      return hasNotice(r) ? { text: "the child is done" } : readKeep;
    };
    const conv = routeConversations(h.kit, { "PARENT-BG": Array.from({ length: 1000 }, () => parent), "CHILD-BG": Array.from({ length: 1000 }, () => child) }, 2000);
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(session.run("PARENT-BG: delegate the edits", { approve: allow }));
    await session.dispose();
    expect(conv.errors).toEqual([]);
    const after = snapshot(h.workspace);
    expect(after).not.toEqual(before);

    expectChildCheckpoints(h.agent, session.id, childId);
    const parentEvents = loadRecording({ paths: h.agent.paths }, session.id).events;
    expect(reasonAndChanged(parentEvents)).toEqual([["baseline", SEEDED], ["background_done", ALL_CHANGED]]);
    expectRewindsAcrossChild(h.agent, session.id, before, after);
  });

  it("a background child that ends while the parent is idle is checkpointed at the parent's next task start", async () => {
    h = await startHarness();
    seedWorkspace(h.workspace);
    const before = snapshot(h.workspace);
    let childId = "";
    let childStep = 0;
    const conv = routeConversations(h.kit, {
      "PARENT-IDLE": [
        { toolCalls: [runSubagent({ prompt: "CHILD-IDLE: edit the files", run_in_background: true, description: "edit" })] },
        (r) => {
          childId = lastSubagentId(r);
          return { text: "started it" };
        },
        { text: "seen it" },
      ],
      // The child starts writing once the parent's first task has ended (its first task's answer sent).
      "CHILD-IDLE": [...Array.from({ length: 1000 }, () => (() => (conv.requests("PARENT-IDLE").length < 2 ? readKeep : CHILD_EDITS[childStep++]!)) as Turn)],
    }, 2000);
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(session.run("PARENT-IDLE: delegate the edits", { approve: allow }));
    await waitUntil(() => session.subagents()[0]?.status === "idle", "the background child to end", 60_000);
    await collect(session.run("what happened?", { approve: allow }));
    await session.dispose();
    expect(conv.errors).toEqual([]);
    const after = snapshot(h.workspace);
    expect(after).not.toEqual(before);

    expectChildCheckpoints(h.agent, session.id, childId);
    const parentEvents = loadRecording({ paths: h.agent.paths }, session.id).events;
    expect(reasonAndChanged(parentEvents)).toEqual([["baseline", SEEDED], ["task_start", ALL_CHANGED]]);
    expectRewindsAcrossChild(h.agent, session.id, before, after);
  });
});
