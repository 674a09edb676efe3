// A trace written before @penguin/trace still resumes: given the fixture session (three files,
// two compactions, an abort; packages/trace/test/fixtures/pre-trace-package) copied into an
// agent's data root, when it is resumed and given a task, then the request opens with the
// context summary, keeps the tool-call pairing, and the trace goes on in the same file.
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { allow, collect, startHarness, type Harness } from "../helpers/harness.js";
import { sessionTraceFiles } from "../../src/trace/reader.js";

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), "../../../trace/test/fixtures/pre-trace-package");
const SESSION = "session-2026-12-01-09-48-22-47e0be35";
// The workspace the fixture's session_meta names.
const WORKSPACE = "/tmp/penguin-fixture-workspace";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

describe("a trace from before @penguin/trace", () => {
  it("resumes, and the next request carries its summary with the pairing intact", async () => {
    h = await startHarness({ script: [{ text: "Explained." }] });
    mkdirSync(WORKSPACE, { recursive: true });
    const dir = join(h.agent.paths.tracesDir, "2026-12-01");
    mkdirSync(dir, { recursive: true });
    for (const name of readdirSync(FIXTURE).filter((n) => n.endsWith(".jsonl"))) copyFileSync(join(FIXTURE, name), join(dir, name));
    const before = readFileSync(join(dir, `${SESSION}_003.jsonl`), "utf8");

    const session = await h.agent.resumeSession({ sessionId: SESSION });
    expect(session.resumed).toBe(true);
    await collect(session.run("explain again", { approve: allow }));
    const users = h.kit.requests[0]!.messages.filter((m) => m.role === "user").map((m) => m.text ?? "");
    expect(users[0]).toMatch(/^\[context_summary\]\nWrote out.txt./);
    expect(users.at(-1)).toBe("explain again");
    expect(h.kit.violations).toEqual([]);
    await session.dispose();

    const files = sessionTraceFiles(h.agent.paths, SESSION);
    expect(files.map((f) => f.index)).toEqual([1, 2, 3]);
    const after = readFileSync(files[2]!.file, "utf8");
    expect(after.startsWith(before)).toBe(true);
    expect(after).toContain("Explained.");
    const state = (await h.agent.sessionState({ sessionId: SESSION })).state;
    expect(state.turns).toBe(1);
  });
});
