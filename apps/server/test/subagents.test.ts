// A subagent started by a web session gets its own page: the child is indexed as soon as its
// first message streams by (GET /api/sessions/<child> answers, in the `subagent` category),
// its history reads from its own trace, and someone following the child's stream sees its
// messages live, without the `origin` hop the parent's stream carries.
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "./helpers/harness.js";
import { newSession, openStream, text, untilRunsEnded, untilServerEvent } from "./helpers/session.js";
import { dataOf, messagesOf } from "./helpers/sse.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

describe("subagent sessions", () => {
  it("indexes the child, serves its history and mirrors its live messages onto its own stream", async () => {
    h = await startHarness({
      script: [
        { toolCalls: [{ name: "run_subagent", arguments: { prompt: "write child.txt", description: "Delegate" } }] },
        { toolCalls: [{ name: "write_file", arguments: { file_path: "child.txt", content: "from the child" } }] },
        { text: "child done" },
        { text: "parent done" },
      ],
    });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace, approvalMode: "always-ask" });
    const parent = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("delegate it"));
    const delegate = dataOf(await untilServerEvent(parent, "approval_request"));
    await c.post(`/api/sessions/${sid}/approvals/${delegate.toolCallId}`, { decision: "allow" });
    // The child's own tool call waits for approval on the parent: the child is indexed by then.
    const childCall = dataOf(await untilServerEvent(parent, "approval_request", 1));
    const meta = messagesOf(parent.events).find((m) => m.type === "session_meta" && m.origin?.length === 1);
    const childId: string = meta.payload.session_id;
    expect(meta.origin).toEqual([childId]);
    const child = await c.get(`/api/sessions/${childId}`);
    expect(child.status).toBe(200);
    expect(child.body).toMatchObject({ id: childId, source: "subagent", workspace: h.workspace });
    const listed = (await c.get("/api/projects/default_project/agents/default_agent/sessions?category=subagent")).body.sessions;
    expect(listed.map((s: any) => s.id)).toEqual([childId]);

    const childStream = await openStream(c, childId);
    await c.post(`/api/sessions/${sid}/approvals/${childCall.toolCallId}`, { decision: "allow" });
    await untilRunsEnded(parent, 1);
    await childStream.until((_e, all) => messagesOf(all).some((m) => m.payload?.text === "child done"));
    const mirrored = messagesOf(childStream.events);
    expect(mirrored.every((m) => m.origin === undefined)).toBe(true);
    expect(mirrored.some((m) => m.payload?.type === "tool_call_output")).toBe(true);
    const history = await c.get(`/api/sessions/${childId}/messages`);
    expect(history.body.messages.map((m: any) => m.payload?.text).filter(Boolean)).toEqual(expect.arrayContaining(["write child.txt", "child done"]));
    await childStream.close();
    await parent.close();
  });
});
