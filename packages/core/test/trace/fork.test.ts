// Forking: a new session cut after a completed task, with its own id, trace and scratchpad;
// it resumes like any session and the source is untouched.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { allow, collect, startHarness, type Harness } from "../helpers/harness.js";
import { readTraceFile, sessionTraceFiles } from "../../src/trace/reader.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const lineOf = (file: string, text: string) => readFileSync(file, "utf8").split("\n").findIndex((l) => l.includes(text)) + 1;

describe("forkSession", () => {
  it("copies up to a chosen answer, rewrites the id, copies the scratchpad, and resumes", async () => {
    h = await startHarness({ script: [{ text: "first answer" }, { toolCalls: [{ name: "exec_command", arguments: { cmd: "echo x", description: "x" } }] }, { text: "second answer" }, { text: "fork continues" }] });
    const source = await h.agent.createSession({ workspaceDir: h.workspace, source: "schedule" });
    await collect(source.run("task one", { approve: allow }));
    await collect(source.run("task two", { approve: allow }));
    await source.dispose();
    mkdirSync(source.scratchpadDir, { recursive: true });
    writeFileSync(join(source.scratchpadDir, "note.txt"), "kept");
    const before = readFileSync(source.tracePath, "utf8");

    const cutLine = lineOf(source.tracePath, "first answer");
    const forkId = await h.agent.forkSession({ sessionId: source.id, position: { fileIndex: 1, line: cutLine } });
    expect(forkId).not.toBe(source.id);
    expect(readFileSync(source.tracePath, "utf8")).toBe(before);
    const [file] = sessionTraceFiles(h.agent.paths, forkId);
    const content = readTraceFile(file!.file);
    const meta = content.messages[0];
    expect(meta?.type === "session_meta" && meta.payload).toMatchObject({ session_id: forkId, workspace: source.workspace });
    expect(meta?.type === "session_meta" && "source" in meta.payload).toBe(false);
    expect(readFileSync(file!.file, "utf8")).not.toContain("task two");
    const resumed = await h.agent.resumeSession({ sessionId: forkId });
    expect(readFileSync(join(resumed.scratchpadDir, "note.txt"), "utf8")).toBe("kept");
    await collect(resumed.run("task three", { approve: allow }));
    const texts = h.kit.requests.at(-1)!.messages.filter((m) => m.role === "user").map((m) => m.text);
    expect(texts).toEqual(["task one", "task three"]);
    expect(h.kit.violations).toEqual([]);
    await resumed.dispose();

    // Without a position: after the last completed task.
    const whole = await h.agent.forkSession({ sessionId: source.id });
    const again = await h.agent.resumeSession({ sessionId: whole });
    expect(again.history()).toHaveLength(source.history().length);
    await again.dispose();
  });

  it("refuses a cut that is not the final answer of a completed request", async () => {
    h = await startHarness({ script: [{ text: "thinking out loud", toolCalls: [{ name: "exec_command", arguments: { cmd: "echo y", description: "y" } }] }, { text: "done" }] });
    const s = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(s.run("go", { approve: allow }));
    await s.dispose();
    await expect(h.agent.forkSession({ sessionId: s.id, position: { fileIndex: 1, line: lineOf(s.tracePath, "thinking out loud") } })).rejects.toThrow(/tool calls/);
    await expect(h.agent.forkSession({ sessionId: s.id, position: { fileIndex: 1, line: 1 } })).rejects.toThrow(/not an assistant answer/);
    await expect(h.agent.forkSession({ sessionId: s.id, position: { fileIndex: 7, line: 1 } })).rejects.toThrow(/no trace file 7/);
    await expect(h.agent.forkSession({ sessionId: "session-2020-01-01-00-00-00-deadbeef" })).rejects.toThrow(/no session/);
    expect(existsSync(s.tracePath)).toBe(true);
  });
});
