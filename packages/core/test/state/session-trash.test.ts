// The trash of deleted sessions on a real data root: a deletion moves exactly the session's
// files (trace files and any companion beside them, such as the resume snapshot or a lease,
// plus its scratchpad) and nothing of another session; a restore puts the same bytes back and
// removes the entry; a restore onto a session that exists again moves nothing.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ensureAgentState } from "../../src/state/agent-state.js";
import { listTrash, moveSessionToTrash, restoreFromTrash, TrashError, trashRoot } from "../../src/state/session-trash.js";
import { sessionScratchpad, traceFilePath } from "../../src/state/paths.js";
import { tempAgent } from "./helpers.js";

const SID = "session-2026-03-04-05-06-07-0a1b2c3d";
const OTHER = "session-2026-03-04-05-06-08-ffffeeee";

function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).sort().map((n) => [n, readFileSync(join(dir, n), "utf8")]));
}

describe("session trash", () => {
  it("moves the session's trace files, companions and scratchpad only, and restores the same bytes", async () => {
    const agent = await tempAgent();
    await ensureAgentState(agent);
    const traceDir = join(agent.tracesDir, "2026-03-04");
    mkdirSync(traceDir, { recursive: true });
    writeFileSync(traceFilePath(agent, "2026-03-04", SID, 1), '{"first":1}\n');
    writeFileSync(traceFilePath(agent, "2026-03-04", SID, 2), '{"second":2}\n');
    writeFileSync(join(traceDir, `${SID}_001.resume.json`), "{}");
    writeFileSync(join(traceDir, `${SID}.lease`), "pid 1");
    writeFileSync(traceFilePath(agent, "2026-03-04", OTHER, 1), '{"other":1}\n');
    mkdirSync(join(sessionScratchpad(agent, SID), "uploads"), { recursive: true });
    writeFileSync(join(sessionScratchpad(agent, SID), "uploads", "a.txt"), "upload");
    const before = snapshot(traceDir);

    const entry = moveSessionToTrash(agent, SID, { deletedAt: Date.UTC(2026, 2, 5, 1, 2, 3, 456), deletedBy: "ana", record: { title: "kept" } });
    expect(entry.id).toBe(`${SID}-20260305T010203456Z`);
    expect(entry.dir).toBe(join(trashRoot(agent.root), agent.projectId, agent.agentId, entry.id));
    expect(readdirSync(traceDir)).toEqual([`${OTHER}_001.jsonl`]);
    expect(existsSync(sessionScratchpad(agent, SID))).toBe(false);
    expect(readdirSync(join(entry.dir, "traces")).sort()).toEqual([`${SID}.lease`, `${SID}_001.jsonl`, `${SID}_001.resume.json`, `${SID}_002.jsonl`]);
    expect(listTrash(agent.root, agent.projectId).map((e) => [e.id, e.manifest.deletedBy, e.manifest.record])).toEqual([[entry.id, "ana", { title: "kept" }]]);

    restoreFromTrash(agent.root, entry);
    expect(snapshot(traceDir)).toEqual(before);
    expect(readFileSync(join(sessionScratchpad(agent, SID), "uploads", "a.txt"), "utf8")).toBe("upload");
    expect(existsSync(trashRoot(agent.root)) ? readdirSync(trashRoot(agent.root)) : []).toEqual([]);
  });

  it("refuses to restore onto a session that exists again, moving nothing", async () => {
    const agent = await tempAgent();
    await ensureAgentState(agent);
    mkdirSync(join(agent.tracesDir, "2026-03-04"), { recursive: true });
    writeFileSync(traceFilePath(agent, "2026-03-04", SID, 1), '{"old":1}\n');
    const entry = moveSessionToTrash(agent, SID, { deletedAt: Date.UTC(2026, 2, 5) });
    writeFileSync(traceFilePath(agent, "2026-03-04", SID, 1), '{"new":1}\n');
    const refused = (() => {
      try {
        restoreFromTrash(agent.root, entry);
        return undefined;
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(TrashError);
    expect((refused as TrashError).code).toBe("session_exists");
    expect((refused as TrashError).message).toContain(`session ${SID} exists again`);
    expect(readFileSync(traceFilePath(agent, "2026-03-04", SID, 1), "utf8")).toBe('{"new":1}\n');
    expect(readFileSync(join(entry.dir, "traces", `${SID}_001.jsonl`), "utf8")).toBe('{"old":1}\n');
  });
});
