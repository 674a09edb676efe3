// "Fork from here" carries the files (issue 29): POST S/fork {at} at a record after a tool
// changed the workspace starts the fork in a workspace of its own (under the agent's
// workspaces/) holding the files as of that record, while the source's workspace keeps its
// later files; the fork's session row names the new workspace.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAgent } from "@penguin/core";
import { startHarness, type Harness } from "./helpers/harness.js";
import { newSession, openStream, text, untilRunsEnded } from "./helpers/session.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

describe("fork from an event over HTTP", () => {
  it("starts the fork in a workspace holding the files as of that event", async () => {
    h = await startHarness({
      script: [
        { toolCalls: [{ name: "write_file", id: "call_ff0001", arguments: { file_path: "a.txt", content: "early\n" } }] },
        { toolCalls: [{ name: "write_file", id: "call_ff0002", arguments: { file_path: "a.txt", content: "late\n" } }] },
        { text: "done" },
      ],
      app: { sandbox: { enabled: false } },
    });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace, approvalMode: "allow-all" });
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("write a twice"));
    await untilRunsEnded(sse, 1);

    const agent = await createAgent({ root: h.root, env: {} });
    const { loadRecording } = await import("@penguin/core");
    const events = loadRecording({ paths: agent.paths }, sid).events;
    const afterFirst = events.find((e) => e.message.type === "event_msg" && e.message.payload.type === "workspace_checkpoint" && e.message.payload.tool_call_id === "call_ff0001");
    expect(afterFirst).toBeDefined();

    const forked = await c.post(`/api/sessions/${sid}/fork`, { at: afterFirst!.n });
    expect(forked.status).toBe(201);
    const workspace: string = forked.body.workspace;
    expect(workspace).not.toBe(h.workspace);
    expect(workspace.startsWith(join(agent.paths.workspacesDir, "fork-"))).toBe(true);
    expect(readFileSync(join(workspace, "a.txt"), "utf8")).toBe("early\n");
    expect(readFileSync(join(h.workspace, "a.txt"), "utf8")).toBe("late\n");
    expect(existsSync(join(workspace, ".git"))).toBe(false);
  });
});
