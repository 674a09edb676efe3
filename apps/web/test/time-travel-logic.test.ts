// The time-travel scrubber's pure parts: events numbered across rotated files with their
// positions and kinds; cursor steps and jumps clamped to the list; play stops at the end;
// the state loader keeps one request in flight, drops the steps play skipped, serves the
// cache without asking, and reports a failure until asked again; the state diff marks what
// was added, removed and changed between two steps, section by section.
import { describe, expect, it } from "vitest";
import { assistantText, eventMessage, sessionMeta, toolCall, toolCallOutput, userText, type OmniMessage } from "@penguin/omnimessage";
import { sessionStateOf, type SessionState } from "../src/api/time-travel";
import { clampCursor, formatPosition, indexOfPosition, jumpCursor, playTick, scrubEventsOf, stepCursor } from "../src/lib/time-travel/cursor";
import { changeCount, diffFields, diffKeyed, diffSequence, stateSections } from "../src/lib/time-travel/state-diff";
import { createStateLoader } from "../src/lib/time-travel/state-loader";

const meta = () => sessionMeta({ session_id: "session-2026-01-01-00-00-00-aaaaaaaa", provider: "p", model_id: "m", model_context_window: 1000, system_prompt: "", agent_state: "", workspace: "/w" });
const begin = () => eventMessage({ type: "request_begin" });

function session(): { fileIndex: number; lines: { line: number; message: OmniMessage }[] }[] {
  const first: OmniMessage[] = [meta(), userText("hi"), begin(), toolCall({ name: "read_file", arguments: '{"file_path":"a"}', tool_call_id: "c1" }), toolCallOutput({ tool_call_id: "c1", output: "A" })];
  const second: OmniMessage[] = [meta(), begin(), assistantText("done")];
  // Given out of order on purpose: the events come out by file, then by line.
  return [
    { fileIndex: 2, lines: second.map((message, i) => ({ line: i + 1, message })) },
    { fileIndex: 1, lines: first.map((message, i) => ({ line: i + 1, message })).reverse() },
  ];
}

describe("scrub events", () => {
  it("counts events across rotated files and names their positions and kinds", () => {
    const events = scrubEventsOf(session());
    expect(events.map((e) => e.n)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(events.map((e) => e.position)).toEqual(["001:000001", "001:000002", "001:000003", "001:000004", "001:000005", "002:000001", "002:000002", "002:000003"]);
    expect(events.map((e) => e.kind)).toEqual(["event", "event", "request", "tool_call", "event", "event", "request", "event"]);
    expect(events[3]?.label).toBe("tool_call read_file");
    expect(formatPosition(12, 345)).toBe("012:000345");
    expect(indexOfPosition(events, "002:000002")).toBe(6);
    expect(indexOfPosition(events, "003:000001")).toBeUndefined();
  });

  it("steps and jumps inside the list, and play stops on the last event", () => {
    const events = scrubEventsOf(session());
    expect(stepCursor(0, -1, events.length)).toBe(0);
    expect(stepCursor(6, 5, events.length)).toBe(7);
    expect(stepCursor(3, 1, events.length)).toBe(4);
    expect(clampCursor(Number.NaN, 8)).toBe(0);
    expect(clampCursor(4, 0)).toBe(0);
    expect(jumpCursor(events, 0, ["tool_call"], 1)).toBe(3);
    expect(jumpCursor(events, 3, ["tool_call"], 1)).toBeUndefined();
    expect(jumpCursor(events, 7, ["request"], -1)).toBe(6);
    expect(jumpCursor(events, 6, ["request"], -1)).toBe(2);
    expect(jumpCursor(events, 0, ["request", "tool_call"], 1)).toBe(2);
    expect(playTick(6, 8)).toBe(7);
    expect(playTick(7, 8)).toBeUndefined();
  });
});

function deferredFetch() {
  const calls: { position: string; resolve(v: string): void; reject(e: unknown): void }[] = [];
  const fetch = (position: string) =>
    new Promise<string>((resolve, reject) => {
      calls.push({ position, resolve, reject });
    });
  return { calls, fetch };
}

const settled = () => new Promise((r) => setTimeout(r, 0));

describe("state loader", () => {
  it("keeps one request in flight and asks next only for what is wanted when it ends", async () => {
    const { calls, fetch } = deferredFetch();
    let changes = 0;
    const loader = createStateLoader({ fetch, onChange: () => (changes += 1) });
    loader.want(["p1"]);
    loader.want(["p2", "p1"]);
    loader.want(["p3", "p2"]);
    loader.want(["p4", "p3"]);
    expect(calls.map((c) => c.position)).toEqual(["p1"]);
    expect(loader.loading("p1")).toBe(true);
    calls[0]!.resolve("state 1");
    await settled();
    // p2 and p3 were skipped over: the next request is the newest wish.
    expect(calls.map((c) => c.position)).toEqual(["p1", "p4"]);
    calls[1]!.resolve("state 4");
    await settled();
    expect(calls.map((c) => c.position)).toEqual(["p1", "p4", "p3"]);
    calls[2]!.resolve("state 3");
    await settled();
    expect(loader.get("p4")).toBe("state 4");
    expect(loader.get("p3")).toBe("state 3");
    expect(loader.get("p2")).toBeUndefined();
    expect(changes).toBeGreaterThan(0);
    // Cached: no new request.
    loader.want(["p4", "p3"]);
    loader.want(["p1"]);
    expect(calls).toHaveLength(3);
  });

  it("reports a failure until asked again, and drops answers after a reset", async () => {
    const { calls, fetch } = deferredFetch();
    const loader = createStateLoader({ fetch, onChange: () => undefined });
    loader.want(["p1"]);
    calls[0]!.reject(new Error("HTTP 500: boom"));
    await settled();
    expect(loader.error("p1")).toBe("HTTP 500: boom");
    loader.want(["p1"]);
    expect(calls).toHaveLength(1);
    loader.retry("p1");
    expect(calls).toHaveLength(2);
    expect(loader.error("p1")).toBeUndefined();
    loader.reset();
    calls[1]!.resolve("stale");
    await settled();
    expect(loader.get("p1")).toBeUndefined();
    loader.want(["p1"]);
    expect(calls).toHaveLength(3);
  });
});

function state(patch: Record<string, unknown>): SessionState {
  return sessionStateOf({ sessionId: "s", at: { n: 1, position: "001:000001", record: "session_meta" }, records: 9, settings: { provider: "p", model_id: "m" }, ...patch });
}

describe("state diff", () => {
  it("compares lists by key, sequences by prefix and fields by value", () => {
    expect(diffKeyed(["a", "b"], ["b", "c"], (s) => s, (s) => s).map((r) => `${r.change} ${r.label}`)).toEqual(["same b", "added c", "removed a"]);
    expect(diffKeyed(undefined, ["a"], (s) => s, (s) => s)[0]?.change).toBe("same");
    expect(diffSequence(["x", "y"], ["x", "y", "z"], (s) => s, (s) => s).map((r) => r.change)).toEqual(["same", "same", "added"]);
    expect(diffSequence(["x", "y"], ["s"], (s) => s, (s) => s).map((r) => `${r.change} ${r.label}`)).toEqual(["removed x", "removed y", "added s"]);
    const fields = diffFields({ a: 1, b: "x", c: true }, { a: 2, b: "x", d: "new" });
    expect(fields).toEqual([
      { key: "a", label: "a: 2", change: "changed", before: "1" },
      { key: "b", label: "b: x", change: "same" },
      { key: "d", label: "d: new", change: "added" },
      { key: "c", label: "c: true", change: "removed" },
    ]);
  });

  // Issue 28: a step that puts a message before an unchanged one (a tool output arrives ahead of
  // the pending [turn_aborted] note) showed the unchanged line as removed and added again.
  it("keeps an unchanged [turn_aborted] line the same when a message arrives before it", () => {
    const aborted = userText("[turn_aborted]The user interrupted the previous turn before it finished.[/turn_aborted]", { sender: "harness" });
    const output = toolCallOutput({ tool_call_id: "c1", output: "A" });
    const rows = diffSequence(["hi", "aborted"], ["hi", "output", "aborted"], (s) => s, (s) => s);
    expect(rows.map((r) => `${r.change} ${r.label}`)).toEqual(["same hi", "added output", "same aborted"]);
    const before = state({ nextContext: [userText("hi"), aborted] });
    const after = state({ nextContext: [userText("hi"), output, aborted] });
    const context = stateSections(after, before).find((section) => section.id === "context")!.rows;
    expect(context.map((r) => r.change)).toEqual(["same", "added", "same"]);
    expect(context.filter((r) => r.label.includes("turn_aborted")).map((r) => r.change)).toEqual(["same"]);
    // Keys of current rows are their places in the current context (cuts are found by them).
    expect(context.map((r) => r.key)).toEqual(["0", "1", "2"]);
    // A repeated message is still told apart by its place, and a replaced context is removed then added.
    expect(diffSequence(["a", "b", "a"], ["a", "a"], (s) => s, (s) => s).map((r) => `${r.change} ${r.label}`)).toEqual(["same a", "removed b", "same a"]);
    expect(diffSequence(["x", "y"], ["s", "y"], (s) => s, (s) => s).map((r) => `${r.change} ${r.label}`)).toEqual(["removed x", "added s", "same y"]);
  });

  it("marks what a tool call and its output change in the state panel's sections", () => {
    const call = toolCall({ name: "read_file", arguments: '{"file_path":"notes.txt"}', tool_call_id: "call_1" });
    const before = state({ nextContext: [userText("read it")], openToolCalls: [call.payload], turns: 0, requests: 1, usage: { session: { cache_read: 0, cache_write: 0, output: 5, total: 50 } } });
    const after = state({
      nextContext: [userText("read it"), call, toolCallOutput({ tool_call_id: "call_1", output: "hello" })],
      turns: 1,
      requests: 1,
      usage: { session: { cache_read: 0, cache_write: 0, output: 5, total: 50 } },
      filesRead: ["notes.txt"],
      settings: { provider: "p", model_id: "m", approvalMode: "allow-all" },
    });
    const sections = stateSections(after, before);
    const section = (id: string) => sections.find((s) => s.id === id)!.rows.map((r) => `${r.change} ${r.label}${r.before === undefined ? "" : ` (was ${r.before})`}`);
    expect(section("context")).toEqual(["same text (user): read it", 'added tool_call: read_file {"file_path":"notes.txt"}', "added tool_call_output: completed · hello"]);
    expect(section("open-calls")).toEqual(['removed read_file {"file_path":"notes.txt"}']);
    expect(section("files-read")).toEqual(["added notes.txt"]);
    expect(section("turns")).toEqual(["changed turns: 1 (was 0)", "same requests: 1", "same running: no"]);
    expect(section("settings")).toContain("added approvalMode: allow-all");
    expect(section("usage")).toContain("same session tokens: 50");
    expect(changeCount(sections)).toBe(6);
    // Unknown previous step: nothing is marked.
    expect(changeCount(stateSections(after, undefined))).toBe(0);
  });
});
