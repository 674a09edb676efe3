// Replaying a session of the data root with its tools run again, after its workspace has
// moved on: its first workspace checkpoint (or, without checkpoints, the files the recording
// shows: complete reads, files it created) is put back, so the replay is identical; with
// --workspace the given folder is used instead and a difference is reported at the first
// record it changes.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { allow, collect, startHarness, type Harness } from "../helpers/harness.js";
import { loadRecording } from "../../src/replay/recording.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

/**
 * A session that reads notes.txt and writes out/summary.txt, replayed with its tools run again after
 * the workspace moved on, given as it is, and gone: `source` is where the rerun's files came from.
 */
async function replayAfterTheWorkspaceMoved(agentOptions: { checkpoints?: false }, source: string): Promise<void> {
  h = await startHarness({
    agentOptions,
    script: [
      { toolCalls: [{ name: "read_file", arguments: { file_path: "notes.txt" } }] },
      { toolCalls: [{ name: "write_file", arguments: { file_path: "out/summary.txt", content: "two lines\n" } }] },
      { text: "done" },
    ],
  });
  writeFileSync(join(h.workspace, "notes.txt"), "first line\nsecond line\n");
  const session = await h.agent.createSession({ workspaceDir: h.workspace });
  await collect(session.run("summarize notes.txt into out/summary.txt", { approve: allow }));
  await session.dispose();

  // The workspace moves on: the note changes, the summary now exists.
  writeFileSync(join(h.workspace, "notes.txt"), "something else entirely\n");
  const changed = await h.agent.replay({ sessionId: session.id });
  expect(changed.workspaceSource).toBe(source);
  expect(changed.summary).toBe("identical");

  // Given that very folder as it is, the replay differs where the read does.
  const given = await h.agent.replay({ sessionId: session.id, workspaceDir: h.workspace });
  const recording = loadRecording({ paths: h.agent.paths }, session.id);
  const read = recording.events.find((e) => e.message.type === "model_msg" && e.message.payload.type === "tool_call_output")!;
  expect(given.summary).toMatch(new RegExp(`^diverged at ${read.n}: model_msg tool_call_output: payload\\.output`));

  rmSync(h.workspace, { recursive: true, force: true });
  const gone = await h.agent.replay({ sessionId: session.id });
  expect(gone.workspaceSource).toBe(source);
  expect(gone.summary).toBe("identical");
}

describe("replay of a data-root session with --tools rerun", () => {
  it("starts a rerun from the recording's first workspace checkpoint when the workspace changed or is gone", async () => {
    await replayAfterTheWorkspaceMoved({}, "checkpoint");
  });

  it("without workspace checkpoints, rebuilds the starting files from the recording when the workspace changed or is gone", async () => {
    await replayAfterTheWorkspaceMoved({ checkpoints: false }, "reconstructed");
  });
});
