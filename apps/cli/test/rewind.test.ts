// `penguin inspect --files`, `penguin diff`, `penguin rewind` and `penguin fork` with files,
// end to end: the built CLI runs a scripted session (`penguin run`, testkit model) that edits
// the workspace with write_file and with shell commands, then the commands read and restore
// the files from the session's checkpoints. Record numbers are found in the trace left behind.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { runCli } from "./helpers/run-cli.js";
import { sessionIdFrom, traceMessages } from "./helpers/trace-files.js";
import { startWorld, type World } from "./helpers/world.js";

let world: World | undefined;
beforeAll(ensureBuilt, 300_000);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

/** Record numbers (1-based across the session) of its workspace checkpoints. */
function checkpointRecords(root: string, sessionId: string): number[] {
  return traceMessages(root, sessionId).flatMap((m, i) => (m.type === "event_msg" && m.payload.type === "workspace_checkpoint" ? [i + 1] : []));
}

describe("penguin rewind, diff, inspect --files, fork with files", { timeout: 90_000 }, () => {
  it("lists, prints, diffs and rewinds the files a session changed, refuses over outside edits, and undoes a rewind", async () => {
    world = await startWorld({
      script: [
        { toolCalls: [{ name: "write_file", id: "call_w1", arguments: { file_path: "notes.md", content: "first\n" } }] },
        { toolCalls: [{ name: "exec_command", id: "call_e1", arguments: { cmd: "sed -i 's/first/second/' notes.md && mkdir -p out && printf 'x' > out/x.bin && chmod +x out/x.bin", description: "edit" } }] },
        { text: "done" },
      ],
    });
    writeFileSync(join(world.workspace, "keep.txt"), "kept\n");
    const run = await runCli(["run", "--approve", "allow-all", "-m", "edit", "--workspace", world.workspace], { env: world.env });
    expect(run.code).toBe(0);
    const sid = sessionIdFrom(run.stderr);
    const [baseline, afterWrite, afterShell] = checkpointRecords(world.root, sid);
    expect([baseline, afterWrite, afterShell].every((n) => n !== undefined)).toBe(true);

    const list = await runCli(["inspect", sid, "--at", String(afterShell), "--files"], { env: world.env });
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/0755 +1 out\/x\.bin/);
    expect(list.stdout).toMatch(/notes\.md/);
    const one = await runCli(["inspect", sid, "--at", String(afterWrite), "--files", "notes.md"], { env: world.env });
    expect(one.stdout).toBe("first\n");

    const diff = await runCli(["diff", sid, "--from", String(afterWrite), "--to", String(afterShell), "notes.md"], { env: world.env });
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain("--- a/notes.md\n+++ b/notes.md");
    expect(diff.stdout).toContain("-first\n+second");
    expect(diff.stdout).not.toContain("x.bin");

    // An edit by hand since the last checkpoint: refused, naming it.
    writeFileSync(join(world.workspace, "keep.txt"), "edited by hand\n");
    const refused = await runCli(["rewind", sid, "--to", String(afterWrite), "--files"], { env: world.env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("keep.txt");
    expect(refused.stderr).toContain("--force");
    expect(readFileSync(join(world.workspace, "notes.md"), "utf8")).toBe("second\n");

    const forced = await runCli(["rewind", sid, "--to", String(afterWrite), "--files", "--force"], { env: world.env });
    expect(forced.code).toBe(0);
    expect(readFileSync(join(world.workspace, "notes.md"), "utf8")).toBe("first\n");
    expect(readFileSync(join(world.workspace, "keep.txt"), "utf8")).toBe("kept\n");
    expect(existsSync(join(world.workspace, "out"))).toBe(false);
    const undo = /undo with: penguin rewind \S+ --to (\d+) --files/.exec(forced.stdout);
    expect(undo).not.toBeNull();
    const undone = await runCli(["rewind", sid, "--to", undo![1]!, "--files"], { env: world.env });
    expect(undone.code).toBe(0);
    expect(readFileSync(join(world.workspace, "notes.md"), "utf8")).toBe("second\n");
    expect(readFileSync(join(world.workspace, "keep.txt"), "utf8")).toBe("edited by hand\n");
    expect(readFileSync(join(world.workspace, "out", "x.bin"), "utf8")).toBe("x");

    const bad = await runCli(["rewind", sid, "--to", "1", "--files", "--conversation"], { env: world.env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("give one of --files, --conversation or --both");
  });

  it("rewinds files and conversation together: the resumed session's next request ends where record N did", async () => {
    world = await startWorld({
      script: [
        { toolCalls: [{ name: "write_file", id: "call_w1", arguments: { file_path: "a.txt", content: "A\n" } }] },
        { text: "wrote a" },
        { toolCalls: [{ name: "write_file", id: "call_w2", arguments: { file_path: "b.txt", content: "B\n" } }] },
        { text: "wrote b" },
        { text: "after the rewind" },
      ],
    });
    const first = await runCli(["run", "--approve", "allow-all", "-m", "write a", "--workspace", world.workspace], { env: world.env });
    const sid = sessionIdFrom(first.stderr);
    const second = await runCli(["run", "--approve", "allow-all", "--resume", sid, "-m", "write b"], { env: world.env });
    expect(second.code).toBe(0);
    const records = traceMessages(world.root, sid);
    // The first task's end: the token_usage after its answer.
    const answer = records.findIndex((m) => m.type === "model_msg" && m.payload.type === "text" && m.payload.text === "wrote a");
    const endOfFirst = records.findIndex((m, i) => i > answer && m.type === "event_msg" && m.payload.type === "token_usage") + 1;
    const rewound = await runCli(["rewind", sid, "--to", String(endOfFirst)], { env: world.env });
    expect(rewound.code).toBe(0);
    expect(rewound.stdout).toContain(`conversation rewound to record ${endOfFirst}`);
    expect(existsSync(join(world.workspace, "b.txt"))).toBe(false);
    expect(readFileSync(join(world.workspace, "a.txt"), "utf8")).toBe("A\n");
    const third = await runCli(["run", "--approve", "allow-all", "--resume", sid, "-m", "go on"], { env: world.env });
    expect(third.code).toBe(0);
    const sent = world.kit.requests.at(-1)!.messages.map((m) => m.text ?? "");
    expect(sent).toContain("wrote a");
    expect(sent.some((t) => t.includes("turn_aborted"))).toBe(false);
    expect(sent).not.toContain("write b");
    expect(sent).not.toContain("wrote b");
  });

  it("forks at N into a workspace of its own holding the files as of N, and says where", async () => {
    world = await startWorld({
      script: [
        { toolCalls: [{ name: "write_file", id: "call_w1", arguments: { file_path: "a.txt", content: "A\n" } }] },
        { toolCalls: [{ name: "exec_command", id: "call_e1", arguments: { cmd: "rm a.txt && echo B > b.txt", description: "swap" } }] },
        { text: "done" },
      ],
    });
    const run = await runCli(["run", "--approve", "allow-all", "-m", "go", "--workspace", world.workspace], { env: world.env });
    const sid = sessionIdFrom(run.stderr);
    const [, afterWrite] = checkpointRecords(world.root, sid);
    const fork = await runCli(["fork", sid, "--at", String(afterWrite)], { env: world.env });
    expect(fork.code).toBe(0);
    const where = /the fork works in (\S+) \(a copy holding the files of record (\d+)\)/.exec(fork.stderr);
    expect(where).not.toBeNull();
    expect(readFileSync(join(where![1]!, "a.txt"), "utf8")).toBe("A\n");
    expect(existsSync(join(where![1]!, "b.txt"))).toBe(false);
    expect(existsSync(join(world.workspace, "b.txt"))).toBe(true);
  });
});
