// Every recorded session under fixtures/traces/ replays through the real engine to the same
// trace, with tools answered from the recording and with tools run again in a fresh copy of
// the recorded workspace; a changed input file makes `rerun` report the first record that
// differs. No model server at all: the model is the recording.
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent.js";
import { folderRootSession, loadRecording } from "../../src/replay/recording.js";

const fixtures = resolve(dirname(fileURLToPath(import.meta.url)), "../../../../fixtures/traces");
const names = readdirSync(fixtures, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
const temps: string[] = [];
const temp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("replay of the recorded sessions", () => {
  it("ships the five kinds of session", () => {
    expect(names.sort()).toEqual(["aborted", "compaction", "demo", "subagent", "tools"]);
  });

  for (const name of names) {
    for (const tools of ["recorded", "rerun"] as const) {
      it(`${name}: --tools ${tools} is identical`, async () => {
        const agent = await createAgent({ root: temp("penguin-replay-root-"), env: {} });
        const report = await agent.replay({ folder: join(fixtures, name), tools });
        expect(report.summary).toBe("identical");
        expect(report.replayOf).toBe(folderRootSession(join(fixtures, name)));
        const replayed = loadRecording({ paths: agent.paths }, report.sessionId);
        expect(replayed.meta).toMatchObject({ source: "replay", replay_of: report.replayOf });
      });
    }
  }

  it("rerun reports the first record that differs after a file the session reads changed", async () => {
    const folder = join(temp("penguin-replay-fixture-"), "tools");
    cpSync(join(fixtures, "tools"), folder, { recursive: true });
    writeFileSync(join(folder, "workspace", "notes.txt"), "alpha beta gamma\ndelta epsilon zeta\n");
    const recording = loadRecording({ folder }, folderRootSession(folder));
    const firstRead = recording.events.find((e) => e.message.type === "model_msg" && e.message.payload.type === "tool_call_output");
    const agent = await createAgent({ root: temp("penguin-replay-root-"), env: {} });
    const report = await agent.replay({ folder, tools: "rerun" });
    expect(report.verdict.identical).toBe(false);
    expect(report.summary).toMatch(new RegExp(`^diverged at ${firstRead!.n}: model_msg tool_call_output: payload\\.output`));
    // With the recorded tool outputs the same folder is still identical.
    const recorded = await agent.replay({ folder, tools: "recorded" });
    expect(recorded.summary).toBe("identical");
  });
});
