// Workspace checkpoints end to end (issue 29): a scripted session edits a git workspace with
// the file tools and with shell commands (sed -i, mv, chmod, rm, git checkout --, a binary
// file, a symlink, an empty folder, an ignored file, a file above the size limit). The model
// is the testkit; each of its requests snapshots the workspace as it is live at that moment,
// with a walk of its own. Then, for every record N of the session, rewinding the files to N
// must give that live state back path by path and byte by byte; a rewind of a rewind returns
// the later state; outside changes are refused unless forced; the user's repository (refs,
// stash, index bytes, status) is the same after session, rewinds and a fork, and the fork's
// git worktree is listed and holds the files as of N.
import { execFileSync } from "node:child_process";
import { lstatSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ScriptStep, ScriptedTurn } from "@penguin/testkit";
import { allow, collect, startHarness, type Harness } from "../helpers/harness.js";
import { loadRecording } from "../../src/replay/recording.js";
import { isCheckpoint } from "../../src/trace/workspace-files.js";
import { diffFilesBetween, fileAt, filesAt, OutsideChangesError } from "../../src/trace/workspace-rewind.js";

type Snapshot = Map<string, string>;

/** The workspace as an independent walk sees it: kind, mode and bytes (or link target) of each path. */
function snapshot(root: string, skip: ReadonlySet<string>): Snapshot {
  const out: Snapshot = new Map();
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = rel === "" ? name : `${rel}/${name}`;
      if (skip.has(path)) continue;
      const full = join(dir, name);
      const st = lstatSync(full);
      const mode = (st.mode & 0o7777).toString(8);
      if (st.isSymbolicLink()) out.set(path, `link -> ${readlinkSync(full)}`);
      else if (st.isDirectory()) {
        out.set(path, `folder ${mode}`);
        walk(full, path);
      } else out.set(path, `file ${mode} ${readFileSync(full).toString("base64")}`);
    }
  };
  walk(root, "");
  return out;
}

const git = (cwd: string, ...args: string[]): string =>
  execFileSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, GIT_OPTIONAL_LOCKS: "0", GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } });

/** What must not change in the user's repository. */
function repoFacts(workspace: string): Record<string, string> {
  return {
    refs: git(workspace, "for-each-ref", "--format=%(refname) %(objectname)"),
    head: readFileSync(join(workspace, ".git", "HEAD"), "utf8"),
    stash: git(workspace, "stash", "list"),
    index: readFileSync(join(workspace, ".git", "index")).toString("base64"),
  };
}

function initRepo(workspace: string): void {
  git(workspace, "init", "-q", "-b", "main");
  writeFileSync(join(workspace, "tracked.txt"), "v1\n");
  writeFileSync(join(workspace, ".gitignore"), "ignored.log\n");
  git(workspace, "add", ".");
  git(workspace, "commit", "-q", "-m", "start");
}

const SKIP = new Set([".git", "ignored.log"]);
const LIMIT = 64 * 1024;

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const exec = (cmd: string): ScriptedTurn => ({ toolCalls: [{ name: "exec_command", arguments: { cmd, description: cmd.slice(0, 40) } }] });

/** A script whose every step first snapshots the workspace (the live state as the request arrives). */
function livingScript(turns: ScriptedTurn[], workspace: () => string, live: Snapshot[]): ScriptStep[] {
  return turns.map((turn) => () => {
    live.push(snapshot(workspace(), SKIP));
    return turn;
  });
}

async function runSession(turns: ScriptedTurn[], setup: (workspace: string) => void) {
  const live: Snapshot[] = [];
  let workspace = "";
  h = await startHarness({ script: livingScript(turns, () => workspace, live), agentOptions: { checkpoints: { maxFileBytes: LIMIT } } });
  workspace = h.workspace;
  setup(workspace);
  const session = await h.agent.createSession({ workspaceDir: workspace });
  await collect(session.run("edit the workspace", { approve: allow }));
  await session.dispose();
  expect(h.kit.violations).toEqual([]);
  return { sessionId: session.id, workspace, live, agent: h.agent };
}

/** The live snapshot that holds at record `n`: the baseline's is the first request's, a later checkpoint's the next request's. */
function expectedAt(events: ReturnType<typeof loadRecording>["events"], n: number, live: Snapshot[]): Snapshot {
  const checkpoints = events.filter((e) => isCheckpoint(e.message));
  const inForce = checkpoints.filter((e) => e.n <= n).at(-1) ?? checkpoints[0]!;
  const reason = isCheckpoint(inForce.message) ? inForce.message.payload.reason : undefined;
  if (reason === "baseline") return live[0]!;
  const requestsBefore = events.filter((e) => e.n < inForce.n && e.message.type === "event_msg" && e.message.payload.type === "request_begin").length;
  return live[requestsBefore]!;
}

const without = (s: Snapshot, ...paths: string[]): Snapshot => new Map([...s].filter(([p]) => !paths.includes(p)));

describe("workspace checkpoints", { timeout: 120_000 }, () => {
  it("rewinds the files to every record of a session that edits with tools and shell alike", async () => {
    const turns: ScriptedTurn[] = [
      { toolCalls: [{ name: "write_file", arguments: { file_path: "a.txt", content: "hello\n" } }] },
      { toolCalls: [{ name: "edit_file", arguments: { file_path: "a.txt", old_string: "hello", new_string: "hi there" } }] },
      exec("printf 'line1\\nline2\\n' > b.txt && sed -i 's/line1/LINE1/' b.txt"),
      exec("mv b.txt c.txt && chmod +x c.txt"),
      exec("echo v2 > tracked.txt"),
      exec("git checkout -- tracked.txt"),
      exec("printf '\\000\\001\\377binary' > bin.dat && ln -s c.txt link && mkdir -p empty/inner"),
      exec("rm a.txt && echo noise > ignored.log"),
      exec(`head -c ${LIMIT * 2} /dev/zero | tr '\\0' 'x' > big.txt`),
      exec("rm -r empty && printf 'changed\\n' > c.txt"),
      { text: "done" },
    ];
    const { sessionId, workspace, live, agent } = await runSession(turns, initRepo);
    const events = loadRecording({ paths: agent.paths }, sessionId).events;
    const checkpoints = events.filter((e) => isCheckpoint(e.message));
    // The baseline, then one per tool call that changed something (git checkout -- puts v1 back: a change too).
    expect(checkpoints.map((e) => (isCheckpoint(e.message) ? e.message.payload.reason ?? "tool" : ""))).toEqual(["baseline", ...turns.slice(0, -1).map(() => "tool")]);
    expect(isCheckpoint(checkpoints[3]!.message) ? checkpoints[3]!.message.payload.changed : []).toEqual(["b.txt"]);

    const final = snapshot(workspace, SKIP);
    expect(final.get("big.txt")).toBeDefined();
    const count = events.length;
    for (let n = 1; n <= count; n++) {
      const result = agent.rewindSession({ sessionId, to: n, what: "files" });
      const want = expectedAt(events, n, live);
      // big.txt is above the limit: kept as it is, and said so, wherever it differs.
      expect(without(snapshot(workspace, SKIP), "big.txt"), `files at record ${n}`).toEqual(without(want, "big.txt"));
      if (!want.has("big.txt")) expect(result.files?.notRestored.map((x) => x.path)).toContain("big.txt");
    }
    // The ignored file was never touched by any rewind.
    expect(readFileSync(join(workspace, "ignored.log"), "utf8")).toBe("noise\n");

    // A rewind of a rewind: back to the end, then to the early record, then undo it.
    agent.rewindSession({ sessionId, to: count, what: "files" });
    expect(without(snapshot(workspace, SKIP), "big.txt")).toEqual(without(final, "big.txt"));
    const early = agent.rewindSession({ sessionId, to: 3, what: "files" });
    expect(without(snapshot(workspace, SKIP), "big.txt")).toEqual(without(live[0]!, "big.txt"));
    expect(early.undoRecord).toBeDefined();
    agent.rewindSession({ sessionId, to: early.undoRecord!, what: "files" });
    expect(without(snapshot(workspace, SKIP), "big.txt")).toEqual(without(final, "big.txt"));

    // What inspect --files and diff read.
    const at = filesAt(agent.paths, sessionId, checkpoints[4]!.n);
    expect(at.tree.get("c.txt")).toMatchObject({ kind: "file", mode: 0o755 });
    expect(fileAt(agent.paths, sessionId, checkpoints[3]!.n, "b.txt").bytes?.toString()).toBe("LINE1\nline2\n");
    const diff = diffFilesBetween(agent.paths, sessionId, checkpoints[2]!.n, checkpoints[3]!.n);
    expect(diff).toContain("+++ b/b.txt");
    expect(diff).toContain("+LINE1");
    expect(diffFilesBetween(agent.paths, sessionId, checkpoints[6]!.n, checkpoints[7]!.n)).toContain("Binary files /dev/null and b/bin.dat differ");
  });

  it("refuses to rewind over changes made outside the session, naming them, unless forced (and the forced one is undoable)", async () => {
    const { sessionId, workspace, agent } = await runSession(
      [{ toolCalls: [{ name: "write_file", arguments: { file_path: "notes.md", content: "one\n" } }] }, { text: "ok" }],
      () => writeFileSync(join(h!.workspace, "keep.txt"), "mine\n"),
    );
    writeFileSync(join(workspace, "keep.txt"), "edited by hand\n");
    expect(() => agent.rewindSession({ sessionId, to: 1, what: "files" })).toThrow(OutsideChangesError);
    expect(() => agent.rewindSession({ sessionId, to: 1, what: "files" })).toThrow(/keep\.txt.*--force/);
    const forced = agent.rewindSession({ sessionId, to: 1, what: "files", force: true });
    expect(readFileSync(join(workspace, "keep.txt"), "utf8")).toBe("mine\n");
    agent.rewindSession({ sessionId, to: forced.undoRecord!, what: "files" });
    expect(readFileSync(join(workspace, "keep.txt"), "utf8")).toBe("edited by hand\n");
    expect(readFileSync(join(workspace, "notes.md"), "utf8")).toBe("one\n");
  });

  it("leaves the user's repository as it was after a session, rewinds and a fork; the fork is a listed worktree with the files as of N", async () => {
    let before: Record<string, string> | undefined;
    let status = "";
    const { sessionId, workspace, live, agent } = await runSession(
      [
        { toolCalls: [{ name: "write_file", arguments: { file_path: "src/new.ts", content: "export const x = 1;\n" } }] },
        exec("sed -i 's/v1/v1-edited/' tracked.txt && rm .gitignore"),
        { text: "done" },
      ],
      (ws) => {
        initRepo(ws);
        git(ws, "stash", "list");
        before = repoFacts(ws);
        status = git(ws, "status", "--porcelain");
      },
    );
    expect(repoFacts(workspace)).toEqual(before);
    const events = loadRecording({ paths: agent.paths }, sessionId).events;
    const afterWrite = events.filter((e) => isCheckpoint(e.message))[1]!.n;

    const fork = await agent.forkSession({ sessionId, at: afterWrite });
    const made = agent.forkWorkspace({ sourceId: sessionId, forkId: fork, at: afterWrite });
    expect(made?.kind).toBe("git-worktree");
    expect(git(workspace, "worktree", "list")).toContain(made!.workspace);
    expect(snapshot(made!.workspace, SKIP)).toEqual(live[1]);
    const forkMeta = loadRecording({ paths: agent.paths }, fork).events[0]!.message;
    expect(forkMeta.type === "session_meta" ? forkMeta.payload.workspace : "").toBe(made!.workspace);

    agent.rewindSession({ sessionId, to: 1, what: "files" });
    expect(snapshot(workspace, SKIP)).toEqual(live[0]);
    const { head, refs, stash, index } = repoFacts(workspace);
    expect({ head, refs, stash, index }).toEqual(before);
    expect(git(workspace, "status", "--porcelain")).toBe(status);
  });

  it("copies the files as of N into a plain folder when the workspace is no git repository", async () => {
    const { sessionId, live, agent } = await runSession(
      [{ toolCalls: [{ name: "write_file", arguments: { file_path: "a/b.txt", content: "B\n" } }] }, exec("rm -r a && touch z"), { text: "done" }],
      () => undefined,
    );
    const events = loadRecording({ paths: agent.paths }, sessionId).events;
    const afterWrite = events.filter((e) => isCheckpoint(e.message))[1]!.n;
    const fork = await agent.forkSession({ sessionId, at: afterWrite });
    const made = agent.forkWorkspace({ sourceId: sessionId, forkId: fork, at: afterWrite });
    expect(made?.kind).toBe("copy");
    expect(snapshot(made!.workspace, SKIP)).toEqual(live[1]);
  });
});

