// Acceptance: a parent spawns two children in one response, one in the foreground and one in
// the background. Each child writes its own trace (source: subagent) with its own requests
// and tools; the parent's trace holds only the two `subagent` pointers; the children's
// messages reach the parent's stream with `origin` and never its trace; the background
// child's `[background_task_done]` notice reaches one of the parent's next requests.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { extractMarker, isEvent, isModel, isSessionMeta, parseFields } from "@penguin/omnimessage";
import { WIRE_PROTOCOLS, type RecordedRequest, type ScriptedTurn } from "@penguin/testkit";
import { sessionTraceFiles } from "../../src/trace/reader.js";
import { collect, startHarness, traceOf, type Harness } from "../helpers/harness.js";
import { fromChild, routeConversations, runSubagent, subagentIds, toolResults, userTexts, type Turn } from "./helpers/conversations.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const SUBAGENT_TOOLS = ["run_subagent", "input_subagent", "kill_subagent"];

/** The parent waits (a short sleep per turn) until the background notice shows up, then answers. */
function waitForNotice(r: RecordedRequest): ScriptedTurn {
  if (userTexts(r).some((t) => t.includes("[background_task_done]"))) return { text: "both children are done" };
  return { toolCalls: [{ name: "exec_command", arguments: { cmd: "sleep 0.05", description: "wait for the background child" } }] };
}

function noticeOf(requests: RecordedRequest[]): Record<string, string> & { body: string } {
  for (const r of requests) {
    for (const t of userTexts(r)) {
      const body = extractMarker(t, "background_task_done");
      if (body !== undefined) return { ...parseFields(body), body };
    }
  }
  throw new Error("no [background_task_done] notice reached the parent");
}

describe.each(WIRE_PROTOCOLS)("two children over %s", (protocol) => {
  it("each child has its own trace; the parent has pointers, a forwarded stream and the notice", async () => {
    h = await startHarness({ protocol });
    const scripts: Record<string, Turn[]> = {
      "PARENT-MAIN": [
        {
          toolCalls: [
            runSubagent({ prompt: "CHILD-A: write alpha into a.txt", description: "write a file" }),
            runSubagent({ prompt: "CHILD-B: count the things", run_in_background: true, description: "count things in the background" }),
          ],
        },
        ...Array.from({ length: 100 }, () => waitForNotice),
      ],
      "CHILD-A": [
        { toolCalls: [{ name: "exec_command", arguments: { cmd: "printf alpha > a.txt", description: "write a.txt" } }] },
        { text: "A wrote a.txt" },
      ],
      "CHILD-B": [{ text: "B counted 42 things" }],
    };
    const conv = routeConversations(h.kit, scripts);
    const approvals: string[] = [];
    const approve = async (call: { name: string }) => {
      approvals.push(call.name);
      return "allow" as const;
    };

    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const messages = await collect(session.run("PARENT-MAIN: get both things done", { approve }));
    expect(conv.errors).toEqual([]);
    expect(h.kit.violations).toEqual([]);

    // The parent's second request has both outputs: A's answer with its header, B's start.
    const parentRequests = conv.requests("PARENT-MAIN");
    const [outA = "", outB = ""] = toolResults(parentRequests[1]!);
    const [idA = "", idB = ""] = subagentIds(parentRequests[1]!);
    expect(outA).toMatch(new RegExp(`^\\[subagent_id: ${idA}; status: completed; turns: 2; tokens: \\d+\\]\\nA wrote a.txt$`));
    expect(outB).toContain(`subagent_id: ${idB}; status: running`);
    expect(outB).toContain("started in the background");
    expect(idA).not.toBe(idB);

    // Same workspace; the child's tool call was approved by the parent's approval function.
    expect(readFileSync(join(h.workspace, "a.txt"), "utf8")).toBe("alpha");
    expect(approvals.filter((n) => n === "run_subagent")).toHaveLength(2);
    expect(approvals).toContain("exec_command");

    // The notice of B reached the parent at a later turn boundary.
    const notice = noticeOf(parentRequests);
    expect(notice).toMatchObject({ kind: "subagent", id: idB, status: "completed" });
    expect(notice.body).toContain("count things in the background");
    expect(notice.body).toContain("B counted 42 things");
    const ownTexts = messages.flatMap((m) => (isModel(m, "text") && m.origin === undefined ? [m.payload.text] : []));
    expect(ownTexts.at(-1)).toBe("both children are done");

    // Parent trace: two pointers, nothing forwarded, one session_meta (its own).
    const parentTrace = traceOf(session.tracePath);
    const pointers = parentTrace.flatMap((m) => (isEvent(m, "subagent") ? [m.payload.session_id] : []));
    expect(pointers.sort()).toEqual([idA, idB].sort());
    expect(parentTrace.filter((m) => m.origin !== undefined)).toEqual([]);
    expect(parentTrace.filter(isSessionMeta).map((m) => m.payload.session_id)).toEqual([session.id]);
    // …and the pointers are not streamed.
    expect(messages.filter((m) => isEvent(m, "subagent"))).toEqual([]);

    // Parent stream: A's whole task with origin; B at least announced itself.
    const streamA = fromChild(messages, idA);
    expect(streamA[0]).toMatchObject({ type: "session_meta", payload: { session_id: idA, source: "subagent", workspace: session.workspace } });
    expect(streamA.some((m) => isModel(m, "tool_call") && m.payload.name === "exec_command")).toBe(true);
    expect(streamA.some((m) => isModel(m, "partial_text"))).toBe(true);
    expect(streamA.filter((m) => isEvent(m, "token_usage"))).toHaveLength(2);
    expect(streamA.some((m) => isModel(m, "text") && m.payload.text === "A wrote a.txt")).toBe(true);
    expect(fromChild(messages, idB)[0]).toMatchObject({ type: "session_meta", payload: { session_id: idB, source: "subagent" } });
    expect(messages.filter((m) => m.origin !== undefined).every((m) => m.origin?.length === 1)).toBe(true);

    // Child traces: own files, source subagent, their own requests and tools, no subagent tools.
    for (const [id, key] of [
      [idA, "CHILD-A"],
      [idB, "CHILD-B"],
    ] as const) {
      const files = sessionTraceFiles(h.agent.paths, id);
      expect(files).toHaveLength(1);
      const trace = traceOf(files[0]!.file);
      expect(trace[0]).toMatchObject({ type: "session_meta", payload: { session_id: id, source: "subagent", workspace: session.workspace } });
      const first = trace.find((m) => isModel(m, "text"));
      expect(first).toMatchObject({ payload: { role: "user", sender: "parent_agent" } });
      expect(JSON.stringify(first)).toContain(key);
      const listed = trace.flatMap((m) => (isEvent(m, "tool_list_ready") ? m.payload.tools.map((t) => t.name) : []));
      expect(listed).toContain("exec_command");
      for (const name of SUBAGENT_TOOLS) expect(listed).not.toContain(name);
      expect(trace.filter((m) => m.origin !== undefined)).toEqual([]);
      for (const r of conv.requests(key)) for (const name of SUBAGENT_TOOLS) expect(r.toolNames).not.toContain(name);
    }
    const traceA = traceOf(sessionTraceFiles(h.agent.paths, idA)[0]!.file);
    expect(traceA.filter((m) => isModel(m, "tool_call")).map((m) => (isModel(m, "tool_call") ? m.payload.name : ""))).toEqual(["exec_command"]);
    expect(traceA.some((m) => isModel(m, "tool_call_output"))).toBe(true);
    expect(conv.requests("CHILD-A")).toHaveLength(2);
    expect(conv.requests("CHILD-B")).toHaveLength(1);
    for (const name of SUBAGENT_TOOLS) expect(parentRequests[0]!.toolNames).toContain(name);
    await session.dispose();
  });
});

