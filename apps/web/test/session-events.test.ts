// The session's server events applied to a Solid store (lib/stream/session-events.ts):
// pending lists, approvals spliced in and out, the title, the task error, and the effects
// handed back for what only the controller can do; stale events never move the task.
import { describe, expect, it } from "vitest";
import { createStore } from "solid-js/store";
import { applySessionEvent } from "../src/lib/stream/session-events";
import { initialSessionViewState, type SessionViewState } from "../src/lib/stream/session-view";

const call = (id: string) => ({ type: "tool_call" as const, role: "assistant" as const, name: "exec_command", arguments: "{}", tool_call_id: id });

function store() {
  const [view, setView] = createStore<SessionViewState>(initialSessionViewState());
  return { view, apply: (e: Parameters<typeof applySessionEvent>[0], stale = false) => applySessionEvent(e, stale, view, setView) };
}

describe("applySessionEvent", () => {
  it("adds each approval once, keeps the others' objects when one is resolved, and clears them when the task ends", () => {
    const { view, apply } = store();
    apply({ type: "task_state", state: "running", queued: 0, pendingFollowUps: [], pendingSteering: [] });
    apply({ type: "approval_request", toolCallId: "a", toolCall: call("a") });
    apply({ type: "approval_request", toolCallId: "b", toolCall: call("b") });
    apply({ type: "approval_request", toolCallId: "a", toolCall: call("a") });
    expect(view.approvals.map((a) => a.toolCallId)).toEqual(["a", "b"]);
    const b = view.approvals[1];
    apply({ type: "approval_resolved", toolCallId: "a", decision: "allow" });
    expect(view.approvals).toHaveLength(1);
    expect(view.approvals[0]).toBe(b);
    expect(apply({ type: "task_state", state: "idle", queued: 0, pendingFollowUps: [], pendingSteering: [] })).toBe("end_task");
    expect(view.approvals).toEqual([]);
    expect(view.taskState).toBe("idle");
  });

  it("takes the pending lists from a stale task_state without moving the task", () => {
    const { view, apply } = store();
    expect(apply({ type: "task_state", state: "idle", queued: 0, pendingFollowUps: [], pendingSteering: [{ id: "s1", text: "faster" }] }, true)).toBeUndefined();
    expect(view.steering).toEqual([{ id: "s1", text: "faster" }]);
    expect(view.taskState).toBe("idle");
    apply({ type: "task_state", state: "running", queued: 0, pendingFollowUps: [], pendingSteering: [] });
    apply({ type: "task_state", state: "idle", queued: 0, pendingFollowUps: [], pendingSteering: [] }, true);
    expect(view.taskState).toBe("running");
  });

  it("sets the title and the task error, clears the error when a task runs, and hands back resync and unlock", () => {
    const { view, apply } = store();
    apply({ type: "session_title", sessionId: "s", title: "Hello file" });
    apply({ type: "task_error", message: "the model endpoint is down" });
    expect(view).toMatchObject({ title: "Hello file", taskError: "the model endpoint is down" });
    apply({ type: "task_state", state: "running", queued: 0, pendingFollowUps: [], pendingSteering: [] });
    expect(view.taskError).toBeUndefined();
    expect(apply({ type: "resync_required" })).toBe("resync");
    expect(apply({ type: "credentials_updated" })).toBe("unlock_auth");
  });
});
