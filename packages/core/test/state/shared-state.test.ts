// One copy of an agent's state for all its sessions (state/shared-by-content.ts): given a value
// read again with the same content, the first copy is answered; given changed content, the new
// read is answered and kept. Through a real agent: sessions started after an edit of AGENTS.md
// see the edit, those started before keep what they were started with.
import { writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { SharedByContent } from "../../src/state/shared-by-content.js";
import { startHarness, type Harness } from "../helpers/harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

describe("SharedByContent", () => {
  it("given a second read with the same content, when shared, then the first copy is answered", () => {
    const shared = new SharedByContent<{ prompt: string; skills: string[] }>();
    const first = shared.share({ prompt: "p", skills: ["a", "b"] });
    const again = shared.share({ prompt: "p", skills: ["a", "b"] });
    expect(again).toBe(first);
  });

  it("given a read with changed content, when shared, then it is answered and becomes the copy kept", () => {
    const shared = new SharedByContent<{ prompt: string; skills: string[] }>();
    const first = shared.share({ prompt: "p", skills: ["a"] });
    const changed = shared.share({ prompt: "p", skills: ["a", "c"] });
    expect(changed).not.toBe(first);
    expect(changed.skills).toEqual(["a", "c"]);
    expect(shared.share({ prompt: "p", skills: ["a", "c"] })).toBe(changed);
  });

  it("given sessions of one agent, when AGENTS.md is edited between them, then only the sessions started after the edit carry it", async () => {
    h = await startHarness();
    const before = await h.agent.createSession({ workspaceDir: h.workspace });
    const alsoBefore = await h.agent.createSession({ workspaceDir: h.workspace });
    writeFileSync(h.agent.paths.agentsMd, "Always answer in haiku (edited between sessions).\n");
    const after = await h.agent.createSession({ workspaceDir: h.workspace });
    expect(before.systemPrompt).not.toContain("Always answer in haiku");
    expect(alsoBefore.systemPrompt).not.toContain("Always answer in haiku");
    expect(after.systemPrompt).toContain("Always answer in haiku (edited between sessions).");
    for (const s of [before, alsoBefore, after]) await s.dispose();
  });
});
