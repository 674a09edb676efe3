// The deterministic form of what the crash soak found (seed 862269395, kills 822 and 1081):
// a SIGKILL right after a compaction rotated the trace, while the writer was creating the
// next file, leaves `_002.jsonl` either empty (killed between open and the first write) or
// holding the first bytes of its `session_meta` line (killed inside that write: Linux cuts a
// large write short when a fatal signal arrives between pages). Everything committed is in
// `_001`, which ends with the completed compaction. Resume must tolerate that torn head like
// any torn line (a crash may tear at most the last line), and the next request must open with the summary.
//
// Runs in the normal `npm test` (it is quick and needs no child process) and in test:crash.
import { readFileSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { RecordedRequest } from "@penguin/testkit";
import { allow, collect, startHarness, type Harness } from "../../packages/core/test/helpers/harness.js";
import { createAgent } from "../../packages/core/src/agent.js";
import { sessionTraceFiles } from "../../packages/core/src/trace/reader.js";
import { parseTraceText } from "../../packages/core/src/trace/reader.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const userTexts = (r: RecordedRequest) => r.messages.filter((m) => m.role === "user" && m.kind === "text").map((m) => m.text ?? "");

/** A session whose second run compacts and then dies before the new file gets its header. */
async function compactedThenTorn(head: (metaLine: string) => string) {
  h = await startHarness({
    entry: { context_window: 8192 },
    script: [
      { text: "big answer", usage: { input: 7000, output: 10 } },
      { text: "[summary]\nGoal: survive the crash.\n[/summary]", usage: { input: 500, output: 10 } },
      { text: "after compaction", usage: { input: 500, output: 10 } },
      { text: "resumed fine", usage: { input: 500, output: 10 } },
    ],
  });
  const session = await h.agent.createSession({ workspaceDir: h.workspace });
  await collect(session.run("one", { approve: allow }));
  await collect(session.run("two", { approve: allow }));
  await session.dispose();
  const files = sessionTraceFiles(session.paths, session.id);
  expect(files.map((f) => f.index)).toEqual([1, 2]);
  // Keep _001 as it was at the moment of the kill; _002 is what the kill left of its head.
  const metaLine = readFileSync(files[1]!.file, "utf8").split("\n")[0]!;
  writeFileSync(files[1]!.file, head(metaLine));
  h.kit.requests.splice(0);
  return { sessionId: session.id, files };
}

describe("resume after a kill while a rotated trace file got its header", () => {
  // Fixed: resume skips a newest file with no readable record (the previous one ends in the
  // completed compaction) and borrows the meta of an earlier file when only the meta is torn;
  // the writer starts the next record on a fresh line after a torn tail.
  it("an empty _002 (killed between open and the first write)", async () => {
    const { sessionId } = await compactedThenTorn(() => "");
    const resumed = await (await createAgent({ root: h!.root, env: {} })).resumeSession({ sessionId });
    await collect(resumed.run("three", { approve: allow }));
    expect(userTexts(h!.kit.requests[0]!)[0]).toMatch(/^\[context_summary\]\nGoal: survive the crash\./);
    expect(h!.kit.violations).toEqual([]);
    await resumed.dispose();
  });

  it("a _002 holding half of its session_meta line (killed inside the write)", async () => {
    const { sessionId, files } = await compactedThenTorn((line) => line.slice(0, Math.floor(line.length / 2)));
    const resumed = await (await createAgent({ root: h!.root, env: {} })).resumeSession({ sessionId });
    await collect(resumed.run("three", { approve: allow }));
    expect(userTexts(h!.kit.requests[0]!)[0]).toMatch(/^\[context_summary\]\nGoal: survive the crash\./);
    // And the file it continues in is readable again: one torn line at most, a session_meta after it.
    const after = parseTraceText(readFileSync(sessionTraceFiles(resumed.paths, sessionId).at(-1)!.file, "utf8"));
    expect(after.skipped.length).toBeLessThanOrEqual(1);
    expect(after.messages.some((m) => m.type === "session_meta")).toBe(true);
    expect(files).toHaveLength(2);
    await resumed.dispose();
  });
});
