// `penguin trash purge [--older-than DAYS]` and `penguin trash list` on a real data root: the
// trash entries are made the way the server makes them (core's moveSessionToTrash moving real
// trace files and a scratchpad), and the built CLI purges only those deleted long enough ago.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { agentPaths, moveSessionToTrash, sessionScratchpad, traceFilePath, trashRoot } from "@penguin/core";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { runCli } from "./helpers/run-cli.js";
import { cleanEnv } from "./helpers/world.js";

beforeAll(ensureBuilt, 300_000);
const DAY = 24 * 60 * 60 * 1000;
let root: string | undefined;
afterEach(() => {
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** A session with a one-line trace and a scratchpad file, moved to the trash as deleted `daysAgo` days ago. */
function trashed(dataRoot: string, sessionId: string, daysAgo: number): string {
  const agent = agentPaths(dataRoot, "default_project", "default_agent");
  mkdirSync(agent.agentState, { recursive: true });
  const trace = traceFilePath(agent, sessionId.slice(8, 18), sessionId, 1);
  mkdirSync(dirname(trace), { recursive: true });
  writeFileSync(trace, `${JSON.stringify({ type: "event", payload: { type: "session_meta", session_id: sessionId } })}\n`);
  mkdirSync(sessionScratchpad(agent, sessionId), { recursive: true });
  writeFileSync(join(sessionScratchpad(agent, sessionId), "note.txt"), "kept\n");
  return moveSessionToTrash(agent, sessionId, { deletedAt: Date.now() - daysAgo * DAY, deletedBy: "creator" }).id;
}

describe("penguin trash", { timeout: 60_000 }, () => {
  it("purges only the sessions deleted more than --older-than days ago, then everything without it", async () => {
    root = mkdtempSync(join(tmpdir(), "penguin-trash-"));
    const env = cleanEnv({ PENGUIN_HOME: root });
    const old = trashed(root, "session-2026-01-02-03-04-05-0a0b0c0d", 40);
    const recent = trashed(root, "session-2026-02-02-03-04-05-1a1b1c1d", 2);
    const agentTrash = join(trashRoot(root), "default_project", "default_agent");
    expect(readdirSync(agentTrash).sort()).toEqual([old, recent]);

    const listed = await runCli(["trash", "list"], { env });
    expect(listed.code).toBe(0);
    expect(listed.stdout.split("\n").filter((l) => l !== "").map((l) => l.includes(recent) ? "recent" : l.includes(old) ? "old" : l)).toEqual(["recent", "old"]);

    const purged = await runCli(["trash", "purge", "--older-than", "30"], { env });
    expect(purged.code).toBe(0);
    expect(purged.stdout).toContain(`purged default_project/default_agent/${old}`);
    expect(purged.stdout).toContain("purged 1 deleted session, kept 1");
    expect(readdirSync(agentTrash)).toEqual([recent]);
    expect(existsSync(join(agentTrash, recent, "traces"))).toBe(true);

    const all = await runCli(["trash", "purge", "--json"], { env });
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout).purged.map((p: { id: string }) => p.id)).toEqual([recent]);
    expect(existsSync(trashRoot(root)) ? readdirSync(trashRoot(root)) : []).toEqual([]);
  });

  it("refuses an --older-than that is not a number of days, naming the flag, and purges nothing", async () => {
    root = mkdtempSync(join(tmpdir(), "penguin-trash-"));
    const kept = trashed(root, "session-2026-01-02-03-04-05-2a2b2c2d", 40);
    const r = await runCli(["trash", "purge", "--older-than", "a month"], { env: cleanEnv({ PENGUIN_HOME: root }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--older-than "a month": give a whole number of days');
    expect(readdirSync(join(trashRoot(root), "default_project", "default_agent"))).toEqual([kept]);
  });
});
