// Resume through the trace file's resume snapshot: given a long session (thousands of lines),
// when it is resumed, then a snapshot is left beside its trace (at its first commit point, not
// before its first request, or when it ends); when it is resumed again from
// that snapshot, then the next request is exactly the one a resume that folds the whole file
// sends, and it still passes the testkit's pairing check. A snapshot of another file is
// ignored. A resumed session that runs leaves, when disposed, a snapshot of every line it
// wrote too; a task that writes thousands of lines leaves one when it ends, so a process
// killed before dispose resumes from there. Real agent, real trace files, the model is the testkit.
import { appendFileSync, copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { approvalDecision, assistantText, requestBegin, requestEnd, thinking, tokenUsage, toolCall, toolCallOutput, type OmniMessage } from "@penguin/omnimessage";
import { readForResume, resumeSnapshotFile } from "@penguin/trace";
import { allow, collect, startHarness, type Harness } from "../helpers/harness.js";
import { createAgent, type Agent } from "../../src/agent.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

/** The records of `turns` completed tool turns, as the engine writes them (each output `output(n)`). */
function longTail(turns: number, output: (n: number) => string = (n) => `${n}\n`): string {
  const out: OmniMessage[] = [];
  let total = 0;
  for (let n = 1; n <= turns; n++) {
    const id = `call_long_${n}`;
    total += 50;
    out.push(
      requestBegin(),
      thinking(`looking at step ${n}`),
      assistantText(`step ${n}`),
      toolCall({ name: "exec_command", arguments: JSON.stringify({ cmd: `echo ${n}`, description: "step" }), tool_call_id: id }),
      approvalDecision("allow", id),
      requestEnd("completed"),
      tokenUsage({ cache_read: 0, cache_write: 0, output: total, total }, { cache_read: 0, cache_write: 0, output: 50, total: 50 }),
      toolCallOutput({ tool_call_id: id, output: output(n), stop_reason: "completed" }),
    );
  }
  return out.map((m) => `${JSON.stringify(m)}\n`).join("");
}

const requestOf = (i: number) => h!.kit.requests[i]!.messages;

/**
 * With the snapshot beside `tracePath` in place: resume and run "continue"; then the same file
 * again without the snapshot (folded from its start), resumed and run the same way. The two
 * requests are the testkit's last two.
 */
async function continueFromSnapshotThenFromStart(agent: Agent, sessionId: string, tracePath: string): Promise<void> {
  const kept = `${tracePath}.kept`;
  copyFileSync(tracePath, kept);
  const fromSnapshot = await agent.resumeSession({ sessionId });
  await collect(fromSnapshot.run("continue", { approve: allow }));
  await fromSnapshot.dispose();
  copyFileSync(kept, tracePath);
  rmSync(resumeSnapshotFile(tracePath));
  const fromStart = await agent.resumeSession({ sessionId });
  await collect(fromStart.run("continue", { approve: allow }));
  await fromStart.dispose();
}

describe("resume from a resume snapshot", () => {
  it("given a long session resumed once, when it is resumed again from the snapshot left, then the request equals a resume that folds the whole file", async () => {
    h = await startHarness({ script: [{ text: "first done" }, { text: "again" }, { text: "again" }] });
    const first = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(first.run("first task", { approve: allow }));
    await first.dispose();
    appendFileSync(first.tracePath, longTail(300));
    const snapshot = resumeSnapshotFile(first.tracePath);
    expect(existsSync(snapshot)).toBe(false);

    const agent = await createAgent({ root: h.root, env: {} });
    const warm = await agent.resumeSession({ sessionId: first.id });
    await warm.dispose();
    expect(existsSync(snapshot)).toBe(true);
    await continueFromSnapshotThenFromStart(agent, first.id, first.tracePath);

    expect(requestOf(1).length).toBeGreaterThan(900);
    expect(requestOf(1)).toEqual(requestOf(2));
    expect(h.kit.violations).toEqual([]);
  });

  it("given a long session far past its snapshot, when it is resumed, then the newer snapshot is not written before the first request but at its first commit point, mid-task, and the resume from it sends a whole-file fold's request", async () => {
    h = await startHarness({ script: [{ text: "first done" }, { toolCalls: [{ name: "read_file", arguments: { file_path: "notes.txt" } }] }, { text: "read" }, { text: "again" }, { text: "again" }] });
    writeFileSync(`${h.workspace}/notes.txt`, "a note\n");
    const first = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(first.run("first task", { approve: allow }));
    await first.dispose();
    appendFileSync(first.tracePath, longTail(300));
    const snapshot = resumeSnapshotFile(first.tracePath);
    const linesAtResume = readFileSync(first.tracePath, "utf8").split("\n").length - 1;
    expect(linesAtResume).toBeGreaterThan(2000);

    const agent = await createAgent({ root: h.root, env: {} });
    const resumed = await agent.resumeSession({ sessionId: first.id });
    expect(existsSync(snapshot)).toBe(false);
    let coveredAtFirstCommit: number | undefined;
    for await (const m of resumed.run("read the notes", { approve: allow })) {
      if (m.type === "event_msg" && m.payload.type === "request_end" && coveredAtFirstCommit === undefined) {
        // The first request has been answered (its request_end is durable); the task goes on with the tool call.
        coveredAtFirstCommit = existsSync(snapshot) ? (JSON.parse(readFileSync(snapshot, "utf8")) as { lines: number }).lines : 0;
      }
    }
    expect(coveredAtFirstCommit).toBeGreaterThan(linesAtResume);
    // Mid-task: the tool call's approval and output, and the second request, came after it.
    expect(coveredAtFirstCommit).toBeLessThan(readFileSync(first.tracePath, "utf8").split("\n").length - 1);
    await resumed.dispose();

    await continueFromSnapshotThenFromStart(agent, first.id, first.tracePath);
    expect(requestOf(3)).toEqual(requestOf(4));
    expect(h.kit.violations).toEqual([]);
  });

  it("given a long session resumed and run, when it is disposed, then the snapshot beside its trace covers every line, the task's included, and the next resume's request is a whole-file fold's", async () => {
    h = await startHarness({ script: [{ text: "first done" }, { text: "ran" }, { text: "again" }, { text: "again" }] });
    const first = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(first.run("first task", { approve: allow }));
    await first.dispose();
    appendFileSync(first.tracePath, longTail(300));
    const snapshot = resumeSnapshotFile(first.tracePath);
    const agent = await createAgent({ root: h.root, env: {} });
    const resumed = await agent.resumeSession({ sessionId: first.id });
    await collect(resumed.run("a task after resume", { approve: allow }));
    await resumed.dispose();
    const lines = readFileSync(first.tracePath, "utf8").split("\n").length - 1;
    expect((JSON.parse(readFileSync(snapshot, "utf8")) as { lines: number }).lines).toBe(lines);

    await continueFromSnapshotThenFromStart(agent, first.id, first.tracePath);
    expect(requestOf(2)).toEqual(requestOf(3));
    expect(h.kit.violations).toEqual([]);
  });

  it("given long tool outputs, when the session is resumed from its snapshot and from the whole file, then each request's body is byte for byte the one JSON.stringify writes, outputs included", async () => {
    // Outputs long enough for resume to keep their JSON text and copy it into the body.
    const output = (n: number) => `row ${n}\t"quoted" \\ é 😀 \u0007\n`.repeat(30);
    h = await startHarness({ script: [{ text: "first done" }, { text: "again" }, { text: "again" }] });
    const first = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(first.run("first task", { approve: allow }));
    await first.dispose();
    appendFileSync(first.tracePath, longTail(300, output));
    const agent = await createAgent({ root: h.root, env: {} });
    await (await agent.resumeSession({ sessionId: first.id })).dispose();
    await continueFromSnapshotThenFromStart(agent, first.id, first.tracePath);

    for (const i of [1, 2]) {
      const raw = h.kit.requests[i]!.rawBody;
      expect(JSON.stringify(JSON.parse(raw))).toBe(raw);
      const outputs = requestOf(i).filter((m) => m.kind === "tool_result").map((m) => m.text);
      expect(outputs.slice(-300)).toEqual(Array.from({ length: 300 }, (_, n) => output(n + 1)));
    }
    expect(h.kit.requests[1]!.rawBody).toBe(h.kit.requests[2]!.rawBody);
    expect(h.kit.violations).toEqual([]);
  });

  it("given the snapshot of another session's file put in place, when the session is resumed, then it is ignored", async () => {
    h = await startHarness({ script: [{ text: "one" }, { text: "two" }, { text: "three" }, { text: "again" }] });
    const a = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(a.run("task a", { approve: allow }));
    await a.dispose();
    appendFileSync(a.tracePath, longTail(300));
    const b = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(b.run("task b", { approve: allow }));
    await b.dispose();
    appendFileSync(b.tracePath, longTail(320));
    const agent = await createAgent({ root: h.root, env: {} });
    await (await agent.resumeSession({ sessionId: a.id })).dispose();
    writeFileSync(resumeSnapshotFile(b.tracePath), readFileSync(resumeSnapshotFile(a.tracePath)));

    const resumed = await agent.resumeSession({ sessionId: b.id });
    await collect(resumed.run("continue", { approve: allow }));
    await resumed.dispose();
    const users = requestOf(2).filter((m) => m.role === "user" && m.kind === "text").map((m) => m.text);
    expect(users).toEqual(["task b", "continue"]);
    expect(h.kit.violations).toEqual([]);
  });

  it("given a task that wrote thousands of lines, when the process dies before the session is disposed, then the snapshot its end left covers every line and the resume from it sends a whole-file fold's request", async () => {
    // 700 reads in one answer: a tool call, its approval and its output each, about 2100 lines.
    const reads = Array.from({ length: 700 }, () => ({ name: "read_file", arguments: { file_path: "notes.txt" } }));
    h = await startHarness({ script: [{ toolCalls: reads }, { text: "read them all" }, { text: "again" }, { text: "again" }] });
    writeFileSync(`${h.workspace}/notes.txt`, "a note\n");
    const live = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(live.run("read the notes", { approve: allow }));
    const snapshot = resumeSnapshotFile(live.tracePath);
    const lines = readFileSync(live.tracePath, "utf8").split("\n").length - 1;
    expect(lines).toBeGreaterThan(2000);
    // Not disposed: what is on disk now is what a killed process leaves.
    expect(existsSync(snapshot)).toBe(true);
    expect((JSON.parse(readFileSync(snapshot, "utf8")) as { lines: number }).lines).toBe(lines);
    expect(readForResume(live.tracePath, { minLines: 1_000_000 }).fromSnapshot).toBe(lines);
    const atCrash = { trace: readFileSync(live.tracePath), snapshot: readFileSync(snapshot) };
    await live.dispose();
    writeFileSync(live.tracePath, atCrash.trace);
    writeFileSync(snapshot, atCrash.snapshot);

    const agent = await createAgent({ root: h.root, env: {} });
    await continueFromSnapshotThenFromStart(agent, live.id, live.tracePath);
    expect(requestOf(2).length).toBeGreaterThan(1400);
    expect(requestOf(2)).toEqual(requestOf(3));
    expect(h.kit.violations).toEqual([]);
  });

  it("given an agent whose snapshots start at one line, when a short task ends, then its snapshot is there before dispose and covers the task, and the resume from it sends a whole-file fold's request", async () => {
    h = await startHarness({ script: [{ toolCalls: [{ name: "read_file", arguments: { file_path: "notes.txt" } }] }, { text: "read" }, { text: "again" }, { text: "again" }] });
    writeFileSync(`${h.workspace}/notes.txt`, "a note\n");
    const eager = await createAgent({ root: h.root, env: {}, resumeSnapshot: { minLines: 1, refreshLines: 1 } });
    const live = await eager.createSession({ workspaceDir: h.workspace });
    await collect(live.run("read the notes", { approve: allow }));
    const lines = readFileSync(live.tracePath, "utf8").split("\n").length - 1;
    expect(lines).toBeLessThan(40);
    expect((JSON.parse(readFileSync(resumeSnapshotFile(live.tracePath), "utf8")) as { lines: number }).lines).toBe(lines);
    await live.dispose();
    await continueFromSnapshotThenFromStart(eager, live.id, live.tracePath);
    expect(requestOf(2)).toEqual(requestOf(3));
    expect(h.kit.violations).toEqual([]);
  });
});
