// The approval mode of new web sessions: without one in the request, a session gets the
// project's default_chat.approval_mode, and when the project sets none, `read-only` (reading
// tools run, a write asks). An owner changes the default for sessions created after it; a
// member may not change it.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "./helpers/harness.js";
import { newSession, openStream, text, untilRunsEnded, untilServerEvent } from "./helpers/session.js";
import { dataOf, messagesOf } from "./helpers/sse.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const readCall = { name: "read_file", id: "call_read01", arguments: { file_path: "notes.txt" } };
const writeCall = (file: string) => ({ name: "write_file", id: `call_${file.replace(/\W/g, "")}`, arguments: { file_path: file, content: "written" } });

describe("the approval mode of new web sessions", { timeout: 60_000 }, () => {
  it("is read-only when neither the request nor the project names one: the read runs, the write asks", async () => {
    h = await startHarness({ script: [{ toolCalls: [readCall, writeCall("asked.txt")] }, { text: "stopped" }] });
    writeFileSync(join(h.workspace, "notes.txt"), "tide at six\n");
    const c = await h.admin();
    expect((await c.get("/api/projects/default_project/chat-defaults")).body.approvalMode).toBe("read-only");
    const sid = await newSession(c, { workspace: h.workspace });
    expect((await c.get(`/api/sessions/${sid}`)).body.approvalMode).toBe("read-only");
    const sse = await openStream(c, sid);
    expect((await c.post(`/api/sessions/${sid}/tasks`, text("read the notes, then write"))).status).toBe(202);
    const asked = dataOf(await untilServerEvent(sse, "approval_request"));
    expect(asked.toolCall.name).toBe("write_file");
    expect(existsSync(join(h.workspace, "asked.txt"))).toBe(false);
    expect((await c.post(`/api/sessions/${sid}/approvals/${asked.toolCallId}`, { decision: "deny" })).status).toBe(204);
    await untilRunsEnded(sse, 1);
    await sse.close();
    // Only the write asked; the read ran and gave the file's text; the denied write wrote nothing.
    expect(sse.events.filter((e) => e.event === "server_event" && dataOf(e).type === "approval_request").map((e) => dataOf(e).toolCall.name)).toEqual(["write_file"]);
    const outputs = messagesOf(sse.events).filter((m) => m.payload?.type === "tool_call_output");
    expect(outputs.find((m) => m.payload.tool_call_id === "call_read01")?.payload.output).toContain("tide at six");
    expect(existsSync(join(h.workspace, "asked.txt"))).toBe(false);
  });

  it("an owner-set project default applies to sessions created after it, not to earlier ones; a member may not set it", async () => {
    h = await startHarness({ script: [{ toolCalls: [writeCall("free.txt")] }, { text: "written" }] });
    const admin = await h.admin();
    expect((await admin.post("/api/admin/users", { userId: "mia", password: "mia-password-123" })).status).toBe(201);
    expect((await admin.post("/api/projects/default_project/members", { userId: "mia" })).status).toBe(204);
    const mia = h.client();
    await mia.login("mia", "mia-password-123");
    const earlier = await newSession(admin, { workspace: h.workspace });

    expect((await mia.put("/api/projects/default_project/chat-defaults", { approvalMode: "allow-all" })).status).toBe(404);
    expect((await admin.put("/api/projects/default_project/chat-defaults", { approvalMode: "allow-all" })).status).toBe(200);
    expect((await mia.get("/api/projects/default_project/chat-defaults")).body.approvalMode).toBe("allow-all");

    const later = await newSession(mia, { workspace: h.workspace });
    expect((await mia.get(`/api/sessions/${later}`)).body.approvalMode).toBe("allow-all");
    expect((await admin.get(`/api/sessions/${earlier}`)).body.approvalMode).toBe("read-only");
    // An explicit mode in the request still wins over the project's default.
    const explicit = await newSession(mia, { workspace: h.workspace, approvalMode: "always-ask" });
    expect((await mia.get(`/api/sessions/${explicit}`)).body.approvalMode).toBe("always-ask");
    // The later session's write runs without asking, as its mode says.
    const sse = await openStream(mia, later);
    expect((await mia.post(`/api/sessions/${later}/tasks`, text("write it"))).status).toBe(202);
    await untilRunsEnded(sse, 1);
    await sse.close();
    expect(existsSync(join(h.workspace, "free.txt"))).toBe(true);
    expect(sse.events.some((e) => e.event === "server_event" && dataOf(e).type === "approval_request")).toBe(false);
  });
});
