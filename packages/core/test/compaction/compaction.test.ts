// Compaction that keeps the task: automatic (context and turns triggers, more than once,
// mid-task), manual, failed-then-retried, aborted, and resumed after a kill during it. Each
// leaves a valid, resumable session whose next request passes the pairing check.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptStep } from "@penguin/testkit";
import { allow, collect, shapeOf, startHarness, traceOf, type Harness } from "../helpers/harness.js";
import { createAgent } from "../../src/agent.js";
import { sessionTraceFiles } from "../../src/trace/reader.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const here = dirname(fileURLToPath(import.meta.url));
// A window of 8192 tokens compacts once a request reaches 8192 − 2048 = 6144 tokens.
const SMALL_WINDOW = { context_window: 8192 };
const BIG = { input: 7000, output: 10 };
const SMALL = { input: 500, output: 10 };

const userTexts = (r: RecordedRequest) => r.messages.filter((m) => m.role === "user" && m.kind === "text").map((m) => m.text ?? "");
const isCompactionRequest = (r: RecordedRequest) => userTexts(r).some((t) => /\[summary\]/.test(t) && /summar/i.test(t));
const summary = (text: string, usage = SMALL): ScriptStep => ({ text: `[summary]\n${text}\n[/summary]`, usage });

describe("compaction", () => {
  it("compacts automatically more than once, mid-task too, and keeps the task", async () => {
    h = await startHarness({
      entry: SMALL_WINDOW,
      script: [
        // Task 1: write a file, then answer with a big context.
        { toolCalls: [{ name: "write_file", arguments: { file_path: "notes.md", content: "step one\n" } }], usage: SMALL },
        { text: "Wrote notes.md.", usage: BIG },
        // Task 2 starts over the threshold: compaction #1 first.
        summary("Goal: keep notes. Done: wrote notes.md."),
        { toolCalls: [{ name: "exec_command", arguments: { cmd: "cat notes.md", description: "read back" } }], usage: BIG },
        // Mid-task, after the tool: compaction #2, then the task goes on.
        summary("Goal: keep notes. Read notes.md back."),
        { text: "All done.", usage: SMALL },
      ],
    });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(session.run("start notes", { approve: allow }));
    const second = await collect(session.run("read them back", { approve: allow }));

    const span = shapeOf(second).filter((s) => s.startsWith("compaction_"));
    expect(span).toEqual(["compaction_begin", "compaction_end", "compaction_begin", "compaction_end"]);
    expect(second.filter((m) => m.type === "event_msg" && m.payload.type === "compaction_end").map((m) => m.payload)).toEqual([
      expect.objectContaining({ reason: "context", mode: "summarize", status: "completed" }),
      expect.objectContaining({ reason: "context", mode: "summarize", status: "completed" }),
    ]);
    // The request after each compaction opens with [context_summary] + the activity digest.
    const reqs = h.kit.requests;
    expect(reqs.map(isCompactionRequest)).toEqual([false, false, true, false, true, false]);
    const afterFirst = userTexts(reqs[3]!);
    expect(afterFirst[0]).toMatch(/^\[context_summary\]\nGoal: keep notes\. Done: wrote notes\.md\./);
    expect(afterFirst[0]).toContain("Files written: notes.md");
    expect(afterFirst[1]).toBe("read them back");
    expect(reqs[3]!.messages.some((m) => m.kind === "tool_call")).toBe(false);
    const afterSecond = userTexts(reqs[5]!);
    expect(afterSecond[0]).toContain("Commands run:\n- cat notes.md");
    // The mid-task compaction request carried the tool output that answered the open call.
    expect(reqs[4]!.messages.filter((m) => m.kind === "tool_result")).toHaveLength(1);
    expect(h.kit.violations).toEqual([]);

    // Rotated files: _001, _002, _003, each new file starting with session_meta + tool_list_ready.
    const files = sessionTraceFiles(session.paths, session.id);
    expect(files.map((f) => f.index)).toEqual([1, 2, 3]);
    for (const f of files.slice(1)) expect(shapeOf(traceOf(f.file)).slice(0, 2)).toEqual(["session_meta", "tool_list_ready"]);
    expect(shapeOf(traceOf(files[0]!.file)).at(-1)).toBe("compaction_end");
    await session.dispose();

    // Resume from the rotated file: the history is the post-compaction context.
    h.kit.enqueue({ text: "resumed", usage: SMALL });
    const resumed = await (await createAgent({ root: h.root, env: {} })).resumeSession({ sessionId: session.id });
    expect(resumed.tracePath).toBe(files[2]!.file);
    await collect(resumed.run("anything left?", { approve: allow }));
    const last = userTexts(h.kit.requests.at(-1)!);
    expect(last[0]).toMatch(/^\[context_summary\]\nGoal: keep notes\. Read notes\.md back\./);
    expect(last.at(-1)).toBe("anything left?");
    expect(h.kit.violations).toEqual([]);
    await resumed.dispose();
  });

  it("compacts on the turns trigger in discard mode", async () => {
    h = await startHarness({
      systemConfigPatch: (y) => y.replace(/max_session_turns:.*$/m, "max_session_turns: 2").replace(/^(\s*)mode: summarize/m, "$1mode: discard"),
      script: [{ toolCalls: [{ name: "read_file", arguments: { file_path: "missing.txt" } }] }, { text: "no file" }, { text: "fresh start" }],
    });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(session.run("look", { approve: allow }));
    const next = await collect(session.run("again", { approve: allow }));
    expect(next.find((m) => m.type === "event_msg" && m.payload.type === "compaction_begin")?.payload).toMatchObject({ reason: "turns", mode: "discard", turns: 2 });
    expect(h.kit.requests).toHaveLength(3);
    const texts = userTexts(h.kit.requests[2]!);
    expect(texts[0]).toMatch(/^\[context_summary\]\nThe earlier context was discarded/);
    expect(texts[0]).toContain("Files read: missing.txt");
    await session.dispose();
  });

  it("manual compaction: session.compact() summarizes and the next run starts fresh", async () => {
    h = await startHarness({ script: [{ text: "hello there" }, summary("User greeted."), { text: "hi again" }] });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    expect(() => session.compact()).toThrow(/nothing to compact/);
    await collect(session.run("hello", { approve: allow }));
    const span = await collect(session.compact());
    expect(shapeOf(span).filter((s) => !s.startsWith("partial_"))).toEqual(["compaction_begin", "text:assistant", "token_usage", "compaction_end"]);
    expect(session.compactability()).toBe("just_compacted");
    await collect(session.run("and now?", { approve: allow }));
    expect(userTexts(h.kit.requests[2]!)).toEqual([expect.stringMatching(/^\[context_summary\]\nUser greeted\./), "and now?"]);
    await session.dispose();
  });

  it("a failed summary (tool call, then empty) is retried with a corrective note", async () => {
    h = await startHarness({
      script: [
        { text: "a" },
        { toolCalls: [{ name: "exec_command", arguments: { cmd: "ls", description: "x" } }] },
        { text: "" },
        summary("Third time lucky."),
        { text: "b" },
      ],
    });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(session.run("x", { approve: allow }));
    const span = await collect(session.compact());
    expect(span.at(-1)?.payload).toMatchObject({ type: "compaction_end", status: "completed", attempt: 3 });
    const third = userTexts(h.kit.requests[3]!);
    expect(third.filter((t) => t.startsWith("Your previous reply was not a usable summary"))).toHaveLength(2);
    expect(h.kit.violations).toEqual([]);
    await collect(session.run("y", { approve: allow }));
    expect(userTexts(h.kit.requests[4]!)[0]).toMatch(/Third time lucky/);
    await session.dispose();
  });

  it("a compaction that fails keeps the old context and tries again at the next trigger", async () => {
    h = await startHarness({
      entry: SMALL_WINDOW,
      script: [
        { text: "big", usage: BIG },
        { fault: { kind: "http", status: 400, body: "context too long" } },
        summary("Recovered summary."),
        { text: "ok", usage: SMALL },
      ],
    });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(session.run("one", { approve: allow }));
    const failed = await collect(session.run("two", { approve: allow }));
    expect(failed.find((m) => m.type === "event_msg" && m.payload.type === "compaction_end")?.payload).toMatchObject({ status: "failed" });
    expect(failed.at(-1)?.payload).toMatchObject({ type: "abort", reason: expect.stringMatching(/^compaction failed/) });
    expect(session.history()).toHaveLength(2);
    expect(sessionTraceFiles(session.paths, session.id)).toHaveLength(1);
    const ok = await collect(session.run("three", { approve: allow }));
    expect(shapeOf(ok)).toContain("compaction_end");
    // Input that arrived while the context was being compacted is not lost.
    expect(userTexts(h.kit.requests[3]!)).toEqual([expect.stringMatching(/^\[context_summary\]/), "two", "three"]);
    await session.dispose();
  });

  it("an abort during compaction leaves the session valid and resumable", async () => {
    h = await startHarness({ script: [{ text: "a" }, { text: "[summary]\nnever fin", fault: { kind: "hang", afterEvents: 2 } }, summary("Done later."), { text: "b" }] });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(session.run("x", { approve: allow }));
    const controller = new AbortController();
    const span = await collect(session.compact({ signal: controller.signal }), (m) => {
      if (m.type === "event_msg" && m.payload.type === "compaction_begin") setTimeout(() => controller.abort(), 100);
    });
    expect(span.at(-1)?.payload).toMatchObject({ type: "compaction_end", status: "aborted" });
    expect(session.history()).toHaveLength(2);
    await collect(session.compact());
    await collect(session.run("y", { approve: allow }));
    expect(userTexts(h.kit.requests.at(-1)!)[0]).toMatch(/Done later/);
    expect(h.kit.violations).toEqual([]);
    await session.dispose();
  });

  it("resumes after kill -9 during compaction: the dangling span is closed as failed", async () => {
    h = await startHarness({
      entry: SMALL_WINDOW,
      script: [{ text: "big", usage: BIG }, { text: "[summary]\npartial", fault: { kind: "hang", afterEvents: 1 } }, summary("After the crash."), { text: "fine", usage: SMALL }],
    });
    const first = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(first.run("one", { approve: allow }));
    await first.dispose();

    const tsx = createRequire(import.meta.url).resolve("tsx");
    const child = spawn(process.execPath, ["--conditions=development", "--import", tsx, join(here, "../fixtures/drive-session.ts"), h.root, h.workspace, first.id, "two"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("MSG compaction_begin")) resolve();
      });
      child.on("exit", (code) => reject(new Error(`child exited early (${code}): ${out}`)));
    });
    await h.kit.waitForRequests(2);
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));

    const resumed = await (await createAgent({ root: h.root, env: {} })).resumeSession({ sessionId: first.id });
    const ends = traceOf(resumed.tracePath).filter((m) => m.type === "event_msg" && m.payload.type === "compaction_end");
    expect(ends.map((m) => m.payload)).toEqual([expect.objectContaining({ status: "failed" })]);
    const next = await collect(resumed.run("three", { approve: allow }));
    expect(next.find((m) => m.type === "event_msg" && m.payload.type === "compaction_end")?.payload).toMatchObject({ status: "completed" });
    expect(userTexts(h.kit.requests.at(-1)!)).toEqual([expect.stringMatching(/^\[context_summary\]\nAfter the crash\./), "two", "three"]);
    expect(h.kit.violations).toEqual([]);
    expect(existsSync(sessionTraceFiles(resumed.paths, resumed.id)[1]!.file)).toBe(true);
    expect(readFileSync(sessionTraceFiles(resumed.paths, resumed.id)[1]!.file, "utf8")).toContain("After the crash.");
    await resumed.dispose();
  });
});
