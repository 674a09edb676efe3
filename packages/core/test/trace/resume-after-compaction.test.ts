// Resume after an automatic compaction: the Human message that triggered it was recorded in
// the closing file, before compaction_begin; the resumed context must still have it after
// the summary, exactly as the live session did.
import { it, expect } from "vitest";
import { allow, collect, startHarness } from "../helpers/harness.js";
it("resume after a compaction keeps the human input recorded before it", async () => {
  const h = await startHarness({ entry: { context_window: 12000 }, script: [{ text: "a", usage: { input: 10500, output: 1 } }, { text: "[summary]s[/summary]" }, { text: "b" }] });
  try {
    const s = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(s.run("one", { approve: allow }));
    await collect(s.run("two", { approve: allow }));
    const live = s.history().map((m) => m.payload);
    expect(live.some((p) => p.type === "text" && p.text === "two")).toBe(true);
    await s.dispose();
    const r = await h.agent.resumeSession({ sessionId: s.id });
    expect(r.history().map((m) => m.payload)).toEqual(live);
    await r.dispose();
  } finally {
    await h.cleanup();
  }
});
