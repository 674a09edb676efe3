// A replay that reruns its tools compares the workspace too (issue 29): a command whose output
// is the same but whose file differs on every run (a fresh random stamp) leaves the records
// identical and the files not, which the verdict names at the recorded checkpoint; a command
// that writes the same bytes again is identical; replaying with recorded tools sets the
// checkpoints aside.
import { afterEach, describe, expect, it } from "vitest";
import { allow, collect, startHarness, type Harness } from "../helpers/harness.js";
import { loadRecording } from "../../src/replay/recording.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const exec = (cmd: string) => ({ toolCalls: [{ name: "exec_command", arguments: { cmd, description: "write" } }] });

async function recorded(cmd: string): Promise<string> {
  h = await startHarness({ script: [exec("printf 'same\\n' > same.txt"), exec(cmd), { text: "done" }] });
  const session = await h.agent.createSession({ workspaceDir: h.workspace });
  await collect(session.run("write the files", { approve: allow }));
  await session.dispose();
  return session.id;
}

describe("replay --tools rerun compares the workspace's checkpoints", { timeout: 60_000 }, () => {
  it("reports diverged at the checkpoint whose files differ, naming them", async () => {
    const sessionId = await recorded("head -c 16 /dev/urandom | od -An -tx1 > stamp.txt");
    const checkpoint = loadRecording({ paths: h!.agent.paths }, sessionId).events.filter((e) => e.message.type === "event_msg" && e.message.payload.type === "workspace_checkpoint").at(-1)!;
    const report = await h!.agent.replay({ sessionId });
    expect(report.summary).toBe(`diverged at ${checkpoint.n}: files differ (stamp.txt)`);
    const recordedTools = await h!.agent.replay({ sessionId, tools: "recorded" });
    expect(recordedTools.summary).toBe("identical");
  });

  it("is identical when the rerun leaves the same files", async () => {
    const sessionId = await recorded("printf 'fixed\\n' > stamp.txt && chmod +x stamp.txt");
    expect((await h!.agent.replay({ sessionId })).summary).toBe("identical");
  });
});
