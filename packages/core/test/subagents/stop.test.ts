// Stopping children: kill_subagent on a background child, an interrupted parent while it
// waits on a child, and disposing the parent with a background child still running. Each
// time the child's own command (found by a unique marker with `ps`) must be gone, the child's
// trace must end with its `abort`, and no `[background_task_done]` notice may follow.
import { afterEach, describe, expect, it } from "vitest";
import { isEvent, isModel, type OmniMessage } from "@penguin/omnimessage";
import { sessionTraceFiles } from "../../src/trace/reader.js";
import { INTERRUPTED_BY_USER } from "@penguin/trace";
import { allow, collect, shapeOf, startHarness, traceOf, type Harness } from "../helpers/harness.js";
import { leftovers, sleepMarker, waitUntil } from "../environment/helpers.js";
import { fromChild, lastSubagentId, routeConversations, runSubagent, toolResults, userTexts, type Turn } from "./helpers/conversations.js";

let h: Harness | undefined;
const markers: string[] = [];
afterEach(async () => {
  for (const marker of markers.splice(0)) {
    for (const line of leftovers(marker)) {
      try {
        process.kill(Number(line.trim().split(/\s+/)[0]), "SIGKILL");
      } catch {
        // already gone
      }
    }
  }
  await h?.cleanup();
  h = undefined;
});

function marked(): string {
  const marker = sleepMarker();
  markers.push(marker);
  return marker;
}

function sleeper(marker: string): Turn[] {
  return [{ toolCalls: [{ name: "exec_command", arguments: { cmd: `sleep ${marker}`, description: "sleep for a long time" } }] }, { text: "woke up" }];
}

function childTraceOf(harness: Harness, id: string): OmniMessage[] {
  const files = sessionTraceFiles(harness.agent.paths, id);
  expect(files).toHaveLength(1);
  return traceOf(files[0]!.file);
}

function childIdOf(messages: OmniMessage[]): string {
  const meta = messages.find((m) => m.type === "session_meta" && m.origin !== undefined);
  if (meta === undefined || meta.type !== "session_meta") throw new Error("no child session_meta on the parent's stream");
  return meta.payload.session_id;
}

describe("stopping subagents", () => {
  it("kill_subagent stops a background child and its command, and no notice follows", async () => {
    h = await startHarness();
    const marker = marked();
    const conv = routeConversations(h.kit, {
      "PARENT-KILL": [
        { toolCalls: [runSubagent({ prompt: "CHILD-SLEEPER: sleep", run_in_background: true, description: "sleep in the background" })] },
        { text: "started" },
        (r) => ({ toolCalls: [{ name: "kill_subagent", arguments: { subagent_id: lastSubagentId(r), description: "stop the sleeper" } }] }),
        { text: "stopped" },
        (r) => ({ text: userTexts(r).some((t) => t.includes("[background_task_done]")) ? "got a notice" : "no notice" }),
      ],
      "CHILD-SLEEPER": sleeper(marker),
    });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(session.run("PARENT-KILL: start a sleeper", { approve: allow }));
    await waitUntil(() => leftovers(marker).length > 0, "the child's command to start");

    const killing = await collect(session.run("stop it now", { approve: allow }));
    expect(leftovers(marker)).toEqual([]);
    const id = lastSubagentId(conv.requests("PARENT-KILL")[3]!);
    expect(toolResults(conv.requests("PARENT-KILL")[3]!).at(-1)).toContain(`[subagent ${id} killed while running a task]`);
    // What the child did in the background reached the stream with the kill call.
    const forwarded = fromChild(killing, id);
    expect(forwarded.some((m) => isModel(m, "tool_call") && m.payload.name === "exec_command")).toBe(true);
    expect(forwarded.some((m) => isEvent(m, "abort"))).toBe(true);
    expect(shapeOf(childTraceOf(h, id)).at(-1)).toBe("abort");

    await collect(session.run("anything new?", { approve: allow }));
    expect(conv.requests("PARENT-KILL")[4]).toBeDefined();
    expect(conv.requests("PARENT-KILL").flatMap(userTexts).some((t) => t.includes("[background_task_done]"))).toBe(false);
    expect(conv.errors).toEqual([]);
    expect(h.kit.violations).toEqual([]);
    await session.dispose();
  });

  it("aborting the parent while it waits stops the child and its command; the child is gone", async () => {
    h = await startHarness();
    const marker = marked();
    let childId = "";
    const conv = routeConversations(h.kit, {
      "PARENT-ABORT": [
        { toolCalls: [runSubagent({ prompt: "CHILD-WORKER: sleep", description: "sleep in the foreground" })] },
        () => ({ toolCalls: [{ name: "input_subagent", arguments: { subagent_id: childId, description: "is it still there?" } }] }),
        { text: "it is gone" },
      ],
      "CHILD-WORKER": sleeper(marker),
    });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const controller = new AbortController();
    const messages = await collect(session.run("PARENT-ABORT: delegate a long job", { approve: allow, signal: controller.signal }), (m) => {
      if (m.origin !== undefined && isModel(m, "partial_tool_call_output") && m.payload.event_type === "start") {
        void waitUntil(() => leftovers(marker).length > 0, "the child's command to start").then(() => controller.abort());
      }
    });
    expect(shapeOf(messages).at(-1)).toBe("abort");
    expect(leftovers(marker)).toEqual([]);
    childId = childIdOf(messages);
    expect(shapeOf(childTraceOf(h, childId)).at(-1)).toBe("abort");

    // The child was killed with the call: the model can no longer reach it.
    await collect(session.run("what happened?", { approve: allow }));
    const next = conv.requests("PARENT-ABORT")[1]!;
    expect(toolResults(next)[0]).toBe(INTERRUPTED_BY_USER);
    const probe = toolResults(conv.requests("PARENT-ABORT")[2]!).at(-1);
    expect(probe).toContain(`Subagent ${childId} is no longer available: it was killed`);
    expect(conv.errors).toEqual([]);
    expect(h.kit.violations).toEqual([]);
    await session.dispose();
  });

  it("disposing the parent stops a background child and its command", async () => {
    h = await startHarness();
    const marker = marked();
    const conv = routeConversations(h.kit, {
      "PARENT-DISPOSE": [
        { toolCalls: [runSubagent({ prompt: "CHILD-BACKGROUND: sleep", run_in_background: true, description: "sleep in the background" })] },
        { text: "started" },
      ],
      "CHILD-BACKGROUND": sleeper(marker),
    });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const messages = await collect(session.run("PARENT-DISPOSE: start and leave", { approve: allow }));
    await waitUntil(() => leftovers(marker).length > 0, "the child's command to start");
    await session.dispose();
    expect(leftovers(marker)).toEqual([]);
    const childId = childIdOf(messages);
    expect(shapeOf(childTraceOf(h, childId)).slice(-1)).toEqual(["abort"]);
    expect(conv.errors).toEqual([]);
  });
});
