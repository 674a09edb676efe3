// A session's workspace checkpoints follow the workspace with a file watch (trace's
// workspace-watch.ts): commands run inside bwrap, the workspace bind-mounted, and their edits
// are in the checkpoint after the call; the watch is held while the session lives and no
// inotify watch on the workspace is left once the session is disposed.
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedTurn } from "@penguin/testkit";
import { allow, collect, startHarness, type Harness } from "../helpers/harness.js";
import { sandboxAvailability } from "../helpers/sandbox-mode.js";
import { loadRecording } from "../../src/replay/recording.js";
import { isCheckpoint } from "../../src/trace/workspace-files.js";

/** Inodes this process's inotify descriptors watch (/proc/self/fdinfo prints wd and ino in hex). */
function inotifyWatchedInodes(): Set<number> {
  const out = new Set<number>();
  for (const fd of readdirSync("/proc/self/fd")) {
    let target = "";
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    if (target !== "anon_inode:inotify") continue;
    for (const match of readFileSync(`/proc/self/fdinfo/${fd}`, "utf8").matchAll(/inotify wd:[0-9a-f]+ ino:([0-9a-f]+) /g)) out.add(Number.parseInt(match[1]!, 16));
  }
  return out;
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const exec = (cmd: string): ScriptedTurn => ({ toolCalls: [{ name: "exec_command", arguments: { cmd, description: cmd.slice(0, 40) } }] });
const available = process.platform === "linux" && sandboxAvailability().available;

describe.runIf(available)("workspace checkpoints of a sandboxed session", { timeout: 120_000 }, () => {
  it("records edits made inside bwrap and leaves no watch behind after dispose", async () => {
    let workspace = "";
    const watchedDuring: boolean[] = [];
    const watching = () => watchedDuring.push(inotifyWatchedInodes().has(lstatSync(workspace).ino));
    const turns: ScriptedTurn[] = [exec("mkdir -p src && echo one > src/a.txt"), exec("sed -i s/one/two/ src/a.txt && echo b > src/b.txt"), { text: "done" }];
    h = await startHarness({
      script: turns.map((turn) => () => {
        if (workspace !== "") watching();
        return turn;
      }),
      agentOptions: { sandbox: { enabled: true } },
    });
    workspace = h.workspace;
    const session = await h.agent.createSession({ workspaceDir: workspace });
    await collect(session.run("edit in the sandbox", { approve: allow }));
    await session.dispose();
    expect(h.kit.violations).toEqual([]);
    // Before the first call nothing is watched yet; from the baseline on, the workspace is.
    expect(watchedDuring).toEqual([false, true, true]);
    expect(inotifyWatchedInodes().has(lstatSync(workspace).ino)).toBe(false);
    expect(inotifyWatchedInodes().has(lstatSync(join(workspace, "src")).ino)).toBe(false);
    const changed = loadRecording({ paths: h.agent.paths }, session.id)
      .events.map((e) => e.message)
      .filter(isCheckpoint)
      .map((m) => [m.payload.reason ?? "tool", m.payload.changed]);
    expect(changed).toEqual([
      ["baseline", []],
      ["tool", ["src", "src/a.txt"]],
      ["tool", ["src/a.txt", "src/b.txt"]],
    ]);
  });
});
