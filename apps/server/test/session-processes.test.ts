// Background commands of a session through the API: a real `run_in_background` command that
// prints a local URL is listed with `serviceUrl`; it cannot be removed while it runs (409);
// kill stops its process group; then it can be removed. Unknown ids are 404.
import { afterEach, describe, expect, it } from "vitest";
import { eventually, startHarness, type Harness } from "./helpers/harness.js";
import { newSession, openStream, text, untilRunsEnded } from "./helpers/session.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

describe("session processes", () => {
  it("lists a background server with its URL, refuses to remove it running, kills it, then removes it", async () => {
    const cmd = "echo 'ready on http://0.0.0.0:4173/'; exec sleep 600";
    h = await startHarness({ script: [{ toolCalls: [{ name: "exec_command", arguments: { cmd, run_in_background: true, description: "Start the dev server" } }] }, { text: "the server runs" }] });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace, approvalMode: "allow-all" });
    expect((await c.get(`/api/sessions/${sid}/processes`)).body).toEqual({ processes: [] });
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("start the dev server"));
    await untilRunsEnded(sse, 1);
    await sse.close();

    let listed: any[] = [];
    await eventually(async () => {
      listed = (await c.get(`/api/sessions/${sid}/processes`)).body.processes;
      return listed[0]?.serviceUrl !== undefined;
    }, "the command to print its URL");
    expect(listed).toEqual([expect.objectContaining({ id: "p1", command: cmd, status: "running", serviceUrl: "http://localhost:4173/" })]);

    const busy = await c.del(`/api/sessions/${sid}/processes/p1`);
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe("process_running");
    const killed = await c.post(`/api/sessions/${sid}/processes/p1/kill`);
    expect(killed.body).toEqual({ id: "p1", status: "killed" });
    expect((await c.get(`/api/sessions/${sid}/processes`)).body.processes[0]).toMatchObject({ id: "p1", status: "killed" });
    expect((await c.get(`/api/sessions/${sid}/processes`)).body.processes[0].serviceUrl).toBeUndefined();
    expect((await c.post(`/api/sessions/${sid}/processes/p1/kill`)).body.status).toBe("exited");
    expect((await c.del(`/api/sessions/${sid}/processes/p1`)).status).toBe(204);
    expect((await c.get(`/api/sessions/${sid}/processes`)).body.processes).toEqual([]);
    expect((await c.post(`/api/sessions/${sid}/processes/p9/kill`)).status).toBe(404);
    expect((await c.del(`/api/sessions/${sid}/processes/p9`)).status).toBe(404);
  });
});
