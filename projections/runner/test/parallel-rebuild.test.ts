// The rebuild on two threads (parallel-rebuild.ts) against real files, SQLite and a real
// worker thread: it writes what a rebuild on one thread writes, the worker really takes a
// share, a worker that cannot load its projections leaves the work to the calling thread,
// and the runs and claims it shares the work by.
import Database from "better-sqlite3";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_OR_AGENT_ID } from "@penguin/core";
import { userText } from "@penguin/omnimessage";
import { listTraceFiles, projectionsFile, rebuildProjections } from "../src/index.js";
import { claimRun, newClaims, runsLeftToWorker, runsOfSessions, spareCoreForRebuild } from "../src/parallel-rebuild.js";
import { aTurn, appendMessages, at, failsInWorker, sourcedCounter, tempRoot, threadProjection, tracePath, unloadableCounter } from "./helpers.js";

const session = (n: number) => `session-2026-01-02-10-00-${String(n).padStart(2, "0")}-${n.toString(16).padStart(8, "0")}`;

/** Eight sessions, every other one with a second file, in two agents. */
function aRoot(): string {
  const root = tempRoot();
  for (let n = 0; n < 8; n++) {
    const id = session(n);
    const agent = n < 4 ? "agent_one" : "agent_two";
    appendMessages(tracePath(root, id, 1, "default_project", agent), aTurn(id, n));
    if (n % 2 === 1) appendMessages(tracePath(root, id, 2, "default_project", agent), [userText(`more ${n}`, { at: at(n + 30) })]);
  }
  return root;
}

function rows(file: string, sql: string): unknown[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
}

describe("rebuild on two threads", () => {
  it("writes the rows and checkpoints of a rebuild on one thread, with the worker building a share of the sessions", async () => {
    const root = aRoot();
    const one = `${projectionsFile(root)}.one`;
    const two = projectionsFile(root);
    const projections = [sourcedCounter, threadProjection];
    const serial = await rebuildProjections({ root, file: one, projections, parallel: false });
    const parallel = await rebuildProjections({ root, file: two, projections, parallel: true });
    // The same summary but for the time and the threads that built it.
    expect([serial.threads, parallel.threads]).toEqual([1, 2]);
    expect({ ...parallel, durationMs: 0, threads: 0 }).toEqual({ ...serial, durationMs: 0, threads: 0 });
    expect(parallel).toMatchObject({ files: 12, events: 36, skipped: 0 });
    for (const sql of ["select * from counter order by session_id", "select * from projection_checkpoints order by projection, file", "select * from projection_meta order by name"]) {
      expect(rows(two, sql)).toEqual(rows(one, sql));
    }
    const threads = rows(two, "select thread, count(*) as sessions from thread group by thread order by thread") as { thread: number; sessions: number }[];
    expect(threads).toHaveLength(2);
    expect(threads[0]!.thread).toBe(0);
    expect(threads.reduce((n, t) => n + t.sessions, 0)).toBe(8);
    // Only the swapped-in file is left: no worker file, no rebuild file.
    expect(readdirSync(dirname(two)).filter((f) => f.includes(".rebuild-") || f.includes(".worker"))).toEqual([]);
  });

  it("starts the caller's own worker entry when it is given and there, the runner's own when it is not", async () => {
    const root = aRoot();
    const projections = [sourcedCounter, threadProjection];
    const serial = await rebuildProjections({ root, file: `${projectionsFile(root)}.one`, projections, parallel: false });
    const mark = join(root, "own-worker-entry-ran");
    const own = await rebuildProjections({ root, file: projectionsFile(root), projections, parallel: true, workerEntry: new URL("./fixtures/own-worker.mjs", import.meta.url) });
    expect(existsSync(mark)).toBe(true);
    expect(own.threads).toBe(2);
    expect(rows(projectionsFile(root), "select * from counter order by session_id")).toEqual(rows(`${projectionsFile(root)}.one`, "select * from counter order by session_id"));
    expect(own.events).toBe(serial.events);
    rmSync(mark);
    const fallback = await rebuildProjections({ root, file: projectionsFile(root), projections, parallel: true, workerEntry: new URL("./fixtures/no-such-worker.mjs", import.meta.url) });
    expect(existsSync(mark)).toBe(false);
    expect(fallback.threads).toBe(2);
    expect(rows(projectionsFile(root), "select thread, count(*) as sessions from thread group by thread").length).toBe(2);
  });

  it("builds everything on the calling thread when the worker cannot load the projections", async () => {
    const root = aRoot();
    const file = projectionsFile(root);
    const summary = await rebuildProjections({ root, file, projections: [unloadableCounter, threadProjection], parallel: true });
    expect(summary).toMatchObject({ files: 12, events: 36, skipped: 0 });
    expect(rows(file, "select thread, count(*) as sessions from thread group by thread")).toEqual([{ thread: 0, sessions: 8 }]);
    expect(rows(file, "select sum(events) as events from unloadable")).toEqual([{ events: 36 }]);
    expect(existsSync(`${file}.rebuild-${process.pid}.worker`)).toBe(false);
  });

  it("fails as a whole when the worker fails holding runs, leaving the live file as it was and no other file", async () => {
    const root = aRoot();
    const file = projectionsFile(root);
    await rebuildProjections({ root, file, projections: [sourcedCounter], parallel: false });
    const before = rows(file, "select * from counter order by session_id");
    await expect(rebuildProjections({ root, file, projections: [sourcedCounter, failsInWorker], parallel: true })).rejects.toThrow(/worker thread failed: .*this projection fails in a worker thread/s);
    expect(rows(file, "select * from counter order by session_id")).toEqual(before);
    expect(readdirSync(dirname(file)).filter((f) => f.startsWith("projections.db"))).toEqual(["projections.db"]);
  });

  it("cuts runs at session ends only, and the two ends of the claims never hand out one run twice", () => {
    const root = aRoot();
    const files = listTraceFiles(root);
    const runs = runsOfSessions(files, () => 1, 3);
    expect(runs.flat()).toEqual(files);
    for (let i = 0; i + 1 < runs.length; i++) expect(runs[i]!.at(-1)!.sessionId).not.toBe(runs[i + 1]![0]!.sessionId);
    expect(runs.slice(0, -1).every((r) => r.length >= 3)).toBe(true);
    const claims = newClaims(5);
    // Five runs: the front takes 0, 1, 2 (always leaving one), the back 4 and 3; then nothing is left for either.
    const got = [claimRun(claims, "front"), claimRun(claims, "back"), claimRun(claims, "front", 1), claimRun(claims, "front", 1), claimRun(claims, "front", 1), claimRun(claims, "back"), claimRun(claims, "back"), claimRun(claims, "front")];
    expect(got).toEqual([0, 4, 1, 2, undefined, 3, undefined, undefined]);
  });

  it("leaves the last run to the worker only until the worker has claimed one", () => {
    const claims = newClaims(3);
    expect(runsLeftToWorker(claims, 3)).toBe(1);
    expect(claimRun(claims, "front", runsLeftToWorker(claims, 3))).toBe(0);
    expect(claimRun(claims, "front", runsLeftToWorker(claims, 3))).toBe(1);
    // Only the last run is left and the worker has none yet: the calling thread leaves it.
    expect(claimRun(claims, "front", runsLeftToWorker(claims, 3))).toBeUndefined();
    const fresh = newClaims(4);
    expect(claimRun(fresh, "back")).toBe(3);
    expect(runsLeftToWorker(fresh, 4)).toBe(0);
    // The worker holds a run: the calling thread takes every run left, the last one too.
    expect([0, 1, 2].map(() => claimRun(fresh, "front", runsLeftToWorker(fresh, 4)))).toEqual([0, 1, 2]);
  });

  it("left to choose, takes a second thread only with a core to spare", () => {
    expect(spareCoreForRebuild(1, 0)).toBe(false);
    expect(spareCoreForRebuild(2, 0.4)).toBe(true);
    expect(spareCoreForRebuild(2, 1)).toBe(true);
    expect(spareCoreForRebuild(2, 2.7)).toBe(false);
    expect(spareCoreForRebuild(8, 6.5)).toBe(true);
  });

  it("reads project and agent folders by the same rule as core", () => {
    // The runner takes core's rule from the trace package; here, through a real listing, a
    // folder core would refuse to create is passed over and one it accepts is read.
    const root = tempRoot();
    const names = ["agent_ok", "Agent-Upper", "a"];
    names.forEach((agent, n) => appendMessages(tracePath(root, session(n), 1, "default_project", agent), aTurn(session(n), n)));
    const listed = new Set(listTraceFiles(root).map((f) => f.agentId));
    for (const agent of names) expect(listed.has(agent)).toBe(PROJECT_OR_AGENT_ID.test(agent));
    expect([...listed]).toEqual(["agent_ok"]);
  });
});
