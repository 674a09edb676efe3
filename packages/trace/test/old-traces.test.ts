// Old traces keep loading: given the seeds' example lines and a session written by the engine
// before this package existed (test/fixtures/pre-trace-package), when they are read and
// folded, then every line decodes, and the state is what that session did.
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { carryOverOf, foldTrace, parseTraceText, readTraceFile, replayTrace, SessionFolds, traceFileIndex } from "../src/index.js";
import type { OmniMessage } from "@penguin/omnimessage";

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "pre-trace-package");
const files = readdirSync(FIXTURE)
  .filter((n) => n.endsWith(".jsonl"))
  .map((n) => ({ file: join(FIXTURE, n), index: traceFileIndex(n)! }))
  .sort((a, b) => a.index - b.index);
const texts = (ms: readonly OmniMessage[]) => ms.map((m) => (m.type === "model_msg" && m.payload.type === "text" ? m.payload.text : m.type === "model_msg" ? m.payload.type : m.type));

const SEEDS_EXAMPLE = [
  '{"timestamp":"2026-07-18T03:10:22.531Z","type":"session_meta","payload":{"session_id":"session-2026-07-18-11-10-22-3f8a1c2d","provider":"deepseek","model_id":"deepseek-v4-pro","model_context_window":1000000,"system_prompt":"…","tools":[],"thinking_level":"medium","agent_state":"/home/u/.penguin/data/default_project/agents/default_agent/agent_state","workspace":"/home/u/work"}}',
  '{"timestamp":"2026-07-18T03:10:22.600Z","type":"event_msg","payload":{"type":"request_begin"}}',
  '{"timestamp":"2026-07-18T03:10:22.601Z","type":"model_msg","payload":{"type":"text","role":"user","text":"创建 hello.txt"}}',
  '{"timestamp":"2026-07-18T03:10:23.000Z","type":"model_msg","payload":{"type":"tool_call","role":"assistant","name":"exec_command","arguments":"{\\"cmd\\":\\"printf hi > hello.txt\\"}","tool_call_id":"call_0"}}',
  '{"timestamp":"2026-07-18T03:10:23.001Z","type":"event_msg","payload":{"type":"approval_decision","decision":"allow","tool_call_id":"call_0"}}',
  '{"timestamp":"2026-07-18T03:10:23.100Z","type":"model_msg","payload":{"type":"tool_call_output","role":"user","output":"[no output]","tool_call_id":"call_0"}}',
  '{"timestamp":"2026-07-18T03:10:23.200Z","type":"event_msg","payload":{"type":"request_end","status":"completed"}}',
  '{"timestamp":"2026-07-18T03:10:23.201Z","type":"event_msg","payload":{"type":"token_usage","session":{"cache_read":0,"cache_write":100,"output":20,"total":120},"request":{"cache_read":0,"cache_write":100,"output":20,"total":120}}}',
].join("\n") + "\n";

describe("old traces", () => {
  it("given the seeds' example lines, when folded, then the call is committed, its output carried over, and the legacy thinking level read", () => {
    const { messages, skipped } = parseTraceText(SEEDS_EXAMPLE);
    expect(skipped).toEqual([]);
    const state = foldTrace(messages);
    expect(state.meta?.session_id).toBe("session-2026-07-18-11-10-22-3f8a1c2d");
    expect(texts(state.history.toArray())).toEqual(["创建 hello.txt", "tool_call"]);
    expect(texts(carryOverOf(state, ""))).toEqual(["tool_call_output"]);
    expect(state.settings.thinkingLevel).toBe("medium");
    expect(state.sessionUsage.total).toBe(120);
  });

  it("given a session written before @penguin/trace, when every file is read, then no line is skipped", () => {
    expect(files.map((f) => f.index)).toEqual([1, 2, 3]);
    for (const f of files) expect(readTraceFile(f.file).skipped).toEqual([]);
  });

  it("given that session, when folded across its files, then the state is what it did: two compactions, files touched, the abort's input kept", () => {
    const end = new SessionFolds({ snapshotEvery: 8 }).stateAtFiles("fixture", files);
    expect(end.totalEvents).toBe(56);
    const s = end.state;
    expect(s.segments).toBe(3);
    expect(s.compaction).toEqual({ status: "idle", last: { reason: "context", mode: "summarize", status: "completed" } });
    expect(s.turns).toBe(0);
    expect(s.history.size).toBe(0);
    expect(s.filesRead).toEqual(["notes.txt"]);
    expect(s.filesWritten).toEqual(["out.txt"]);
    expect(s.sessionUsage.total).toBe(14863);
    const pending = texts(s.pending.toArray());
    expect(pending[0]).toMatch(/^\[context_summary\]\nWrote out.txt./);
    expect(pending).toContain("now explain");
    expect(pending.at(-1)).toMatch(/^\[turn_aborted\]\nThe user interrupted/);
    expect(s.toolCallIds.toArray()).toEqual(["call_tk0_0", "call_tk0_1", "call_tk4_0"]);
  });

  it("given that session, when resumed from its latest file, then the context opens with its summary and the abort's note", () => {
    const r = replayTrace(readTraceFile(files[2]!.file).messages);
    expect(r.contextClosed).toBe(false);
    expect(r.danglingCompaction).toBeUndefined();
    expect(r.history).toEqual([]);
    const carry = texts(r.carryOver);
    expect(carry[0]).toMatch(/^\[context_summary\]/);
    expect(carry.at(-1)).toMatch(/^\[turn_aborted\]/);
  });
});
