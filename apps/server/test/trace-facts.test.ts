// Session facts the server decides reach the trace: given a session run through the HTTP API,
// when it is titled (automatically, then by the user), it is archived and unarchived, and its approval mode changes between
// tasks, then session_title, session_archived and settings_changed are lines of its trace
// (appended through the open core session, or to the file when none is open). Given a session
// created with an approval mode, its trace opens with the starting settings before any task.
import { afterEach, describe, expect, it } from "vitest";
import { agentPaths, readTraceFile, sessionTraceFiles } from "@penguin/core";
import type { OmniMessage } from "@penguin/omnimessage";
import { startHarness, type Harness } from "./helpers/harness.js";
import { newSession, openStream, text, untilRunsEnded } from "./helpers/session.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

function traceEvents(root: string, sid: string): OmniMessage[] {
  return sessionTraceFiles(agentPaths(root, "default_project", "default_agent"), sid).flatMap((f) => readTraceFile(f.file).messages.filter((m) => m.type === "event_msg"));
}

const facts = (ms: OmniMessage[]) =>
  ms.flatMap((m) => (m.type === "event_msg" && ["session_title", "session_archived", "settings_changed"].includes(m.payload.type) ? [m.payload] : []));

describe("session facts from the server", () => {
  it("title, archive and approval-mode changes are appended to the session's trace", async () => {
    h = await startHarness({ script: [{ toolCalls: [{ name: "exec_command", arguments: { cmd: "echo a", description: "a" } }] }, { text: "one" }, { toolCalls: [{ name: "exec_command", arguments: { cmd: "echo b", description: "b" } }] }, { text: "two" }] });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace, approvalMode: "allow-all" });
    const sse = await openStream(c, sid);
    await c.patch(`/api/sessions/${sid}`, { approvalMode: "allow-all" });
    await c.post(`/api/sessions/${sid}/tasks`, text("first"));
    await untilRunsEnded(sse, 1);
    await c.patch(`/api/sessions/${sid}`, { title: "Two echoes", archived: true });
    await c.patch(`/api/sessions/${sid}`, { archived: true });
    await c.patch(`/api/sessions/${sid}`, { archived: false, approvalMode: "deny-all" });
    await c.post(`/api/sessions/${sid}/tasks`, text("second"));
    await untilRunsEnded(sse, 2);
    expect(facts(traceEvents(h.root, sid))).toEqual([
      // The starting settings (the first task ran with that mode: nothing more), then the
      // title the server chose after it (no title model here: the prompt).
      { type: "settings_changed", approval_mode: "allow-all", thinking_level: "medium" },
      { type: "session_title", title: "first" },
      { type: "session_title", title: "Two echoes" },
      { type: "session_archived", archived: true },
      { type: "session_archived", archived: false },
      { type: "settings_changed", approval_mode: "deny-all" },
    ]);
  });

  it("a new session's trace opens with its starting approval mode and thinking level, before any task", async () => {
    h = await startHarness({ script: [{ text: "hi" }] });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace, approvalMode: "read-only" });
    const opening = { type: "settings_changed", approval_mode: "read-only", thinking_level: "medium" };
    expect(facts(traceEvents(h.root, sid))).toEqual([opening]);
    const at2 = await c.get(`/api/sessions/${sid}/state?at=2`);
    expect(at2.status).toBe(200);
    expect(at2.body.settings).toMatchObject({ approvalMode: "read-only", thinkingLevel: "medium" });
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("hello"));
    await untilRunsEnded(sse, 1);
    expect(facts(traceEvents(h.root, sid)).filter((f) => f.type === "settings_changed")).toEqual([opening]);
  });
});
