// The time-travel files panel (features/traces/FilesPanel.tsx) against a stubbed server: it
// names the files the cursor's event changed since the previous event with a diff of each,
// from one request per cursor move (the changes route); "Restore files to here" shows only to a reader with control of the
// session, asks before it posts, and then says which record undoes the restore, whose button
// restores to it; a refusal over outside edits offers "Restore anyway" (force).
import { afterEach, describe, expect, it } from "vitest";
import { render, screen, waitFor, within } from "@solidjs/testing-library";
import userEvent from "@testing-library/user-event";
import { setFetch } from "../src/api/http";
import { changedPaths, type CheckpointEntry } from "../src/api/checkpoints";
import { FilesPanel } from "../src/features/traces/FilesPanel";

afterEach(() => setFetch((i, init) => fetch(i, init)));

const SID = "session-2026-01-02-03-04-05-abcdef01";
const file = (path: string, hash: string, mode = 0o644): CheckpointEntry => ({ path, kind: "file", size: 3, mode, hash, target: undefined, over: false });
const BEFORE = [file("keep.txt", "k1"), file("notes.txt", "n1"), file("gone.txt", "g1")];
const HERE = [file("keep.txt", "k1"), file("notes.txt", "n2"), file("new.txt", "w1")];

interface Call {
  method: string;
  url: string;
  body: unknown;
}

function stub(calls: Call[], options: { control: boolean; refuseFirstRestore?: boolean }) {
  let restores = 0;
  setFetch(async (input, init) => {
    const url = new URL(String(input), "http://x");
    const method = init?.method ?? "GET";
    const body = typeof init?.body === "string" ? JSON.parse(init.body) : undefined;
    calls.push({ method, url: `${url.pathname}${url.search}`, body });
    const reply = (v: unknown, status = 200) => new Response(JSON.stringify(v), { status, headers: { "content-type": "application/json" } });
    if (url.pathname.endsWith("/checkpoints/files")) {
      const here = url.searchParams.get("at") === "001:000009";
      return reply({ at: here ? 9 : 8, checkpoint: { n: here ? 9 : 5, position: "001:000005", tree: "t", changed: [] }, files: here ? HERE : BEFORE });
    }
    if (url.pathname.endsWith("/checkpoints/changes")) {
      const paths = changedPaths(BEFORE, HERE);
      const diff = (path: string) => `--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-old ${path}\n+new ${path}\n`;
      return reply({ at: 9, from: 8, checkpoint: { n: 9, position: "001:000009", tree: "t", changed: paths }, total: HERE.length, changes: paths.map((path) => ({ path, diff: diff(path) })), more: 0 });
    }
    if (url.pathname.endsWith("/checkpoints/restore")) {
      restores += 1;
      if (options.refuseFirstRestore === true && restores === 1) {
        return reply({ error: { code: "session_busy", message: "the workspace holds changes made outside the session since its last checkpoint: stray.txt. Rewinding would lose them" } }, 409);
      }
      return reply({ checkpointRecord: 9, undoRecord: 14, written: ["notes.txt"], removed: ["new.txt"], notRestored: [] });
    }
    if (url.pathname === `/api/sessions/${SID}`) return reply({ id: SID, projectId: "p", agentId: "a", sandbox: { available: true, enabled: true, serverNetwork: false }, permissions: { control: options.control, allowNetwork: false } });
    return reply({}, 404);
  });
}

describe("FilesPanel", () => {
  it("compares two file lists by kind, content and mode", () => {
    expect(changedPaths(BEFORE, HERE)).toEqual(["gone.txt", "new.txt", "notes.txt"]);
    expect(changedPaths([file("a", "h", 0o644)], [file("a", "h", 0o755)])).toEqual(["a"]);
    expect(changedPaths(BEFORE, BEFORE)).toEqual([]);
  });

  it("names the files the event changed, with a diff of each, and restores after asking (undoably)", async () => {
    const user = userEvent.setup();
    const calls: Call[] = [];
    stub(calls, { control: true });
    render(() => <FilesPanel sessionId={SID} position="001:000009" previous="001:000008" eventNumber={9} />);
    const changed = await screen.findByLabelText("Files changed at this event");
    expect(changed).toHaveTextContent("3 files changed at this event: gone.txt, new.txt, notes.txt");
    const diff = await screen.findByRole("figure", { name: "Diff of notes.txt" });
    expect(diff).toHaveTextContent("-old notes.txt");
    expect(diff).toHaveTextContent("+new notes.txt");
    // One request for the cursor's position: the changes since the previous event, with their diffs.
    const fileCalls = calls.filter((c) => c.url.includes("/checkpoints/"));
    expect(fileCalls).toHaveLength(1);
    const asked = new URL(fileCalls[0]!.url, "http://x");
    expect(asked.pathname).toBe(`/api/sessions/${SID}/checkpoints/changes`);
    expect(asked.searchParams.get("at")).toBe("001:000009");
    expect(asked.searchParams.get("from")).toBe("001:000008");

    await user.click(await screen.findByRole("button", { name: "Restore files to here" }));
    const dialog = screen.getByRole("dialog", { name: "Restore the files?" });
    expect(calls.some((c) => c.method === "POST")).toBe(false);
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(calls.some((c) => c.method === "POST")).toBe(false);

    await user.click(screen.getByRole("button", { name: "Restore files to here" }));
    await user.click(within(screen.getByRole("dialog", { name: "Restore the files?" })).getByRole("button", { name: "Restore files" }));
    await screen.findByText(/Files restored: 1 written, 1 removed\. Record 14 holds the files from before: restoring to it undoes this\./);
    expect(calls.filter((c) => c.method === "POST")).toEqual([{ method: "POST", url: `/api/sessions/${SID}/checkpoints/restore`, body: { at: "001:000009" } }]);
    await user.click(screen.getByRole("button", { name: "Undo this restore" }));
    await waitFor(() => expect(calls.filter((c) => c.method === "POST").at(-1)?.body).toEqual({ at: 14 }));
  });

  it("hides Restore from a reader without control of the session", async () => {
    const calls: Call[] = [];
    stub(calls, { control: false });
    render(() => <FilesPanel sessionId={SID} position="001:000009" previous="001:000008" eventNumber={9} />);
    await screen.findByRole("figure", { name: "Diff of notes.txt" });
    await waitFor(() => expect(calls.some((c) => c.url === `/api/sessions/${SID}`)).toBe(true));
    expect(screen.queryByRole("button", { name: "Restore files to here" })).toBeNull();
  });

  it("names the outside edits a restore was refused over and offers Restore anyway", async () => {
    const user = userEvent.setup();
    const calls: Call[] = [];
    stub(calls, { control: true, refuseFirstRestore: true });
    render(() => <FilesPanel sessionId={SID} position="001:000009" previous="001:000008" eventNumber={9} />);
    await user.click(await screen.findByRole("button", { name: "Restore files to here" }));
    await user.click(within(screen.getByRole("dialog", { name: "Restore the files?" })).getByRole("button", { name: "Restore files" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Could not restore the files: the workspace holds changes made outside the session since its last checkpoint: stray.txt");
    await user.click(screen.getByRole("button", { name: "Restore anyway" }));
    await screen.findByText(/Files restored: 1 written, 1 removed/);
    expect(calls.filter((c) => c.method === "POST").map((c) => c.body)).toEqual([{ at: "001:000009" }, { at: "001:000009", force: true }]);
  });
});
