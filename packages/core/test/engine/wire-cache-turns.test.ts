// The wire cache (packages/models src/wire-cache.ts) keeps a history's encoding only while the
// engine hands the gateway the same payload objects request after request: the fold's own,
// and the new messages it then commits. This pins that it does, for the four protocols, in a
// live session and after a resume, through the real engine, trace and testkit: a turn encodes
// its own runs (4: the user's text, the call, its output, the answer) and compares no payload
// with the previous request's, however long the history; and the first request after
// a resume encodes the history read back once.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { wireCacheCounters } from "@penguin/models";
import type { WireProtocol } from "@penguin/testkit";
import type { Session } from "../../src/index.js";
import { allow, startHarness, type Harness } from "../helpers/harness.js";

const PROTOCOLS: WireProtocol[] = ["openai-chat", "openai-responses", "anthropic-messages", "gemini"];

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

/** Payloads its two requests compared one by one with the previous request's, per task. */
const compared: number[] = [];

/** One task (a tool call, its output, an answer): the runs its two requests encoded. */
async function task(harness: Harness, session: Session, n: number): Promise<number> {
  harness.kit.enqueue({ toolCalls: [{ name: "read_file", arguments: { file_path: "notes.txt" } }], usage: { input: 100, output: 5 } }, { text: `done ${n}`, usage: { input: 100, output: 5 } });
  const before = { ...wireCacheCounters };
  for await (const _ of session.run(`task ${n}: read the notes`, { approve: allow })) {
    // drain
  }
  compared.push(wireCacheCounters.comparedItems - before.comparedItems);
  return wireCacheCounters.encodedRuns - before.encodedRuns;
}

describe("a turn encodes its own runs, not the history (the gateway gets the fold's payload objects)", () => {
  for (const protocol of PROTOCOLS) {
    it(`${protocol}: live, then after a resume`, async () => {
      h = await startHarness({ protocol });
      writeFileSync(join(h.workspace, "notes.txt"), "notes\n".repeat(100));
      const session = await h.agent.createSession({ workspaceDir: h.workspace });
      const live: number[] = [];
      compared.splice(0);
      for (let n = 0; n < 6; n++) live.push(await task(h, session, n));
      const sessionId = session.id;
      await session.dispose();
      // The first task's first request holds nothing older; from then on a task's two requests
      // encode the answer before and the new text, then the call and its output.
      expect(live.slice(1)).toEqual([4, 4, 4, 4, 4]);
      // Nor does it compare the history with the previous request's: the adapter sends one
      // array, grown request by request, so a task compares none, however long the history
      // (given a new array per request, the whole list: 8, 16, 24, …).
      expect(compared.slice(1)).toEqual([0, 0, 0, 0, 0]);

      const resumed = await h.agent.resumeSession({ sessionId });
      const after: number[] = [];
      compared.splice(0);
      for (let n = 6; n < 9; n++) after.push(await task(h, resumed, n));
      await resumed.dispose();
      // Read back from the trace, the history is new objects: encoded once (its 6 tasks' runs).
      expect(after[0]).toBeGreaterThan(6 * 3);
      expect(after.slice(1)).toEqual([4, 4]);
      expect(compared.slice(1)).toEqual([0, 0]);
      expect(h.kit.violations).toEqual([]);
    });
  }
});
