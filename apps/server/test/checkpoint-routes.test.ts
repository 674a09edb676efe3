// The workspace at a record over HTTP (issue 29): the files and one file at a record come from
// the session's checkpoints (not the disk), a diff between two records, paths confined like
// every file route ('..', absolute paths and secret names refused), and a restore that puts
// the files back in place, undoable with the record it names. Who may restore (creator, owner,
// admin; not another member) is played by session-permissions.test.ts's matrix.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "./helpers/harness.js";
import { newSession, openStream, text, untilRunsEnded } from "./helpers/session.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

describe("checkpoint routes", () => {
  it("serve the files at a record, a diff, refuse paths that lead out, and restore in place", async () => {
    h = await startHarness({
      script: [
        { toolCalls: [{ name: "write_file", id: "call_cr0001", arguments: { file_path: "a.txt", content: "one\n" } }] },
        { toolCalls: [{ name: "write_file", id: "call_cr0002", arguments: { file_path: "a.txt", content: "two\n" } }] },
        { text: "done" },
      ],
      app: { sandbox: { enabled: false } },
    });
    // A secret file in the workspace: checkpointed with the rest, never served by these routes.
    writeFileSync(join(h.workspace, ".vault.toml"), 'TOKEN = "secret-in-workspace"\n');
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace, approvalMode: "allow-all" });
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("write a twice"));
    await untilRunsEnded(sse, 1);
    const S = `/api/sessions/${sid}`;

    const end = await c.get(`${S}/checkpoints/files`);
    expect(end.status).toBe(200);
    expect(end.body.files).toContainEqual(expect.objectContaining({ path: "a.txt", kind: "file", size: 4 }));
    const first = end.body.checkpoint.n - 1;
    const early = await c.get(`${S}/checkpoints/file?at=${first}&path=a.txt`);
    expect(early.body).toMatchObject({ path: "a.txt", encoding: "utf8", content: "one\n" });
    const diff = await c.get(`${S}/checkpoints/diff?from=${first}&to=${end.body.at}&path=a.txt`);
    expect(diff.body.diff).toContain("-one\n+two");
    expect(diff.body).toMatchObject({ from: first, to: end.body.at });
    // A position is answered as asked, not cut to its file number.
    const byPosition = await c.get(`${S}/checkpoints/diff?from=${first}&to=${end.body.checkpoint.position}&path=a.txt`);
    expect(byPosition.body).toMatchObject({ from: first, to: end.body.checkpoint.position });
    expect(byPosition.body.diff).toContain("-one\n+two");

    expect(end.body.files.map((f: { path: string }) => f.path)).toContain(".vault.toml");
    for (const path of ["../outside.txt", "/etc/passwd", "a/../../x", ".vault.toml", "./.vault.toml"]) {
      const refused = await c.get(`${S}/checkpoints/file?path=${encodeURIComponent(path)}`);
      expect(refused.status, path).toBe(400);
      expect(JSON.stringify(refused.body)).not.toContain("secret-in-workspace");
    }
    expect((await c.get(`${S}/checkpoints/diff?from=1&to=2&path=${encodeURIComponent("../x")}`)).status).toBe(400);
    expect((await c.get(`${S}/checkpoints/files?at=nope`)).status).toBe(400);

    const restored = await c.post(`${S}/checkpoints/restore`, { at: first });
    expect(restored.status).toBe(200);
    expect(readFileSync(join(h.workspace, "a.txt"), "utf8")).toBe("one\n");
    const undo = await c.post(`${S}/checkpoints/restore`, { at: restored.body.undoRecord });
    expect(undo.status).toBe(200);
    expect(readFileSync(join(h.workspace, "a.txt"), "utf8")).toBe("two\n");
    expect(existsSync(join(h.workspace, "outside.txt"))).toBe(false);
  });
});
