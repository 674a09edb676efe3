// The workspace at a record over HTTP (issue 29): the files and one file at a record come from
// the session's checkpoints (not the disk), a diff between two records, paths confined like
// every file route ('..', absolute paths and secret names refused), and a restore that puts
// the files back in place, undoable with the record it names. Who may restore (creator, owner,
// admin; not another member) is played by session-permissions.test.ts's matrix. The changes
// route answers the paths changed at a record with their diffs in one request (a secret file's
// contents never served), and hides the session from a user outside its project.
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

  it("answer the paths changed at a record with their diffs in one request, never a secret file's contents, and hide the session from a non-member", async () => {
    h = await startHarness({
      script: [
        // One call a turn: each checkpoint then holds one call's change (calls of one batch run side by side).
        { toolCalls: [{ name: "write_file", id: "call_ch0001", arguments: { file_path: "a.txt", content: "one\n" } }] },
        { toolCalls: [{ name: "write_file", id: "call_ch0002", arguments: { file_path: "a.txt", content: "two\n" } }] },
        { toolCalls: [{ name: "write_file", id: "call_ch0003", arguments: { file_path: "dir/b.txt", content: "bee\n" } }] },
        { toolCalls: [{ name: "exec_command", id: "call_ch0004", arguments: { cmd: "echo changed-secret >> .vault.toml", description: "change the secret file" } }] },
        { text: "done" },
      ],
      app: { sandbox: { enabled: false } },
    });
    writeFileSync(join(h.workspace, ".vault.toml"), 'TOKEN = "secret-in-workspace"\n');
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace, approvalMode: "allow-all" });
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("write twice, then change the secret"));
    await untilRunsEnded(sse, 1);
    expect(readFileSync(join(h.workspace, ".vault.toml"), "utf8")).toContain("changed-secret");
    const S = `/api/sessions/${sid}`;

    // The checkpoints in force at each record, in order, with their files.
    const end = await c.get(`${S}/checkpoints/files`);
    const seen: { n: number; files: { path: string; hash?: string }[] }[] = [];
    for (let n = 1; n <= end.body.at; n++) {
      const at = await c.get(`${S}/checkpoints/files?at=${n}`);
      if (at.status === 200 && seen.at(-1)?.n !== at.body.checkpoint.n) seen.push({ n: at.body.checkpoint.n, files: at.body.files });
    }
    const hashOf = (i: number, path: string) => seen[i]!.files.find((f) => f.path === path)?.hash;
    const twoAt = seen.findIndex((c, i) => i > 0 && hashOf(i, "a.txt") !== undefined && hashOf(i - 1, "a.txt") !== undefined && hashOf(i, "a.txt") !== hashOf(i - 1, "a.txt"));
    const beeAt = seen.findIndex((c) => c.files.some((f) => f.path === "dir/b.txt"));
    expect(twoAt).toBeGreaterThan(0);
    const second = seen[twoAt]!.n;
    const changes = await c.get(`${S}/checkpoints/changes?at=${second}`);
    expect(changes.status).toBe(200);
    expect(changes.body).toMatchObject({ at: second, from: second - 1, more: 0 });
    const diffOf = (body: { changes: { path: string; diff: string }[] }, path: string) => body.changes.find((x) => x.path === path)?.diff ?? "";
    expect(changes.body.changes.map((x: { path: string }) => x.path)).toEqual(["a.txt"]);
    expect(diffOf(changes.body, "a.txt")).toContain("-one\n+two");
    expect(changes.body.total).toBe(seen[twoAt]!.files.length);
    const bee = await c.get(`${S}/checkpoints/changes?at=${seen[beeAt]!.n}`);
    expect(bee.body.changes.map((x: { path: string }) => x.path)).toEqual(["dir", "dir/b.txt"]);
    expect(diffOf(bee.body, "dir/b.txt")).toContain("+bee");
    // A folder's diff is its own line: its files are not repeated under it.
    expect(diffOf(bee.body, "dir")).not.toContain("bee");

    // A record whose checkpoint is the one before: nothing changed.
    const same = await c.get(`${S}/checkpoints/changes?at=${second}&from=${second}`);
    expect(same.body).toMatchObject({ changes: [], more: 0 });
    // Between the start and the end, with one diff asked: the rest are counted.
    const whole = await c.get(`${S}/checkpoints/changes?at=${end.body.at}&from=1&diffs=1`);
    expect(whole.status).toBe(200);
    expect(whole.body.changes).toHaveLength(1);
    expect(whole.body.more).toBeGreaterThanOrEqual(3);

    // The secret file changed: named, its contents never served.
    const last = await c.get(`${S}/checkpoints/changes?at=${end.body.checkpoint.n}`);
    expect(last.body.changes.map((x: { path: string }) => x.path)).toContain(".vault.toml");
    expect(diffOf(last.body, ".vault.toml")).toMatch(/holds secrets/);
    for (const body of [changes.body, bee.body, whole.body, last.body]) {
      expect(JSON.stringify(body)).not.toContain("secret-in-workspace");
      expect(JSON.stringify(body)).not.toContain("changed-secret");
    }

    // The whole-workspace diff leaves the secret file out too.
    const wholeDiff = await c.get(`${S}/checkpoints/diff?from=1&to=${end.body.at}`);
    expect(wholeDiff.body.diff).toContain("+bee");
    expect(wholeDiff.body.diff).not.toContain("changed-secret");
    expect((await c.get(`${S}/checkpoints/changes?at=nope`)).status).toBe(400);
    const tooMany = await c.get(`${S}/checkpoints/changes?diffs=500`);
    expect(tooMany.status).toBe(400);
    expect(JSON.stringify(tooMany.body)).toMatch(/at most 100 diffs/);

    // A user outside the session's project sees no session there.
    expect((await c.post("/api/admin/users", { userId: "stranger", password: "stranger-password" })).status).toBe(201);
    const stranger = h.client();
    await stranger.login("stranger", "stranger-password");
    const hidden = await stranger.get(`${S}/checkpoints/changes?at=${second}`);
    expect([403, 404]).toContain(hidden.status);
    expect(JSON.stringify(hidden.body)).not.toContain("a.txt");
  });
});
