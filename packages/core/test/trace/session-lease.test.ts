// One writer per session in the SDK (src/trace/session-lease.ts, the Agent and Session): an
// open session holds its lease, so a second resumeSession of it (same process, any Agent) and
// recordSessionFact are refused with session_busy naming the holder, before anything is
// appended; dispose lets it go and the resume then works; a failed open lets it go too; readers
// (sessionState, inspect, fork of the source) need no lease; a lease of another host is never
// taken over, and the message says how to remove it.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { sessionTitle } from "@penguin/omnimessage";
import { readLease } from "@penguin/trace";
import { allow, collect, startHarness, type Harness } from "../helpers/harness.js";
import { createAgent } from "../../src/agent.js";
import { isPenguinError, type PenguinError } from "../../src/errors.js";
import { sessionLeaseFile } from "../../src/trace/session-lease.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

async function refusal(p: Promise<unknown>): Promise<PenguinError> {
  try {
    await p;
  } catch (error) {
    if (isPenguinError(error)) return error;
    throw error;
  }
  throw new Error("expected a PenguinError");
}

describe("session lease", () => {
  it("refuses a second resume of an open session and lets it go on dispose", async () => {
    h = await startHarness({ script: [{ text: "first" }, { text: "second" }] });
    const agent = await createAgent({ root: h.root, env: {}, holderCommand: "penguin chat" });
    const session = await agent.createSession({ workspaceDir: h.workspace });
    await collect(session.run("one", { approve: allow }));
    const lease = sessionLeaseFile(agent.paths, session.id);
    expect(readLease(lease)?.holder).toMatchObject({ pid: process.pid, host: hostname(), command: "penguin chat" });
    const before = readFileSync(session.tracePath);

    // Another Agent of the same process (as a second host in one process would be): refused.
    const other = await createAgent({ root: h.root, env: {}, holderCommand: "penguin run" });
    const busy = await refusal(other.resumeSession({ sessionId: session.id }));
    expect(busy.code).toBe("session_busy");
    expect(busy.message).toContain(`session ${session.id} is being run by another process: pid ${process.pid} on host ${hostname()} (penguin chat) since `);
    expect(busy.message).toContain(`penguin attach ${session.id}`);
    // The same Agent too, and a host's fact: nothing was appended by any of them.
    expect((await refusal(agent.resumeSession({ sessionId: session.id }))).code).toBe("session_busy");
    expect(() => other.recordSessionFact(session.id, sessionTitle("x"))).toThrow(/is being run by another process/);
    expect(readFileSync(session.tracePath)).toEqual(before);
    // Readers need no lease.
    expect((await other.sessionState({ sessionId: session.id })).state.turns).toBeGreaterThan(0);
    await other.inspectState({ sessionId: session.id });
    const forkId = await other.forkSession({ sessionId: session.id });
    expect(existsSync(sessionLeaseFile(agent.paths, forkId))).toBe(false);

    await session.dispose();
    expect(existsSync(lease)).toBe(false);
    const resumed = await other.resumeSession({ sessionId: session.id });
    expect(readLease(lease)?.holder?.command).toBe("penguin run");
    await collect(resumed.run("two", { approve: allow }));
    await resumed.dispose();
    expect(existsSync(lease)).toBe(false);
    other.recordSessionFact(session.id, sessionTitle("titled"));
    expect(existsSync(lease)).toBe(false);
  });

  it("never takes over a lease of another host, and says how to remove it", async () => {
    h = await startHarness({ script: [{ text: "first" }] });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(session.run("one", { approve: allow }));
    await session.dispose();
    const lease = sessionLeaseFile(h.agent.paths, session.id);
    writeFileSync(lease, `${JSON.stringify({ pid: 4242, host: "build-box-7", command: "penguin chat", since: "2026-12-03T09:00:00.000Z", token: "ab".repeat(16) })}\n`);
    const busy = await refusal(h.agent.resumeSession({ sessionId: session.id }));
    expect(busy.code).toBe("session_busy");
    expect(busy.message).toContain("held by pid 4242 on host build-box-7 (penguin chat) since 2026-12-03T09:00:00.000Z, which this process cannot check (another host");
    expect(busy.message).toContain(`If that host (or container) is gone or no longer runs the session, remove ${lease} and try again.`);
    expect(readLease(lease)?.holder?.host).toBe("build-box-7");
  });

  it("lets the lease go when opening fails after it was taken", async () => {
    h = await startHarness({ script: [{ text: "first" }] });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(session.run("one", { approve: allow }));
    await session.dispose();
    // A resume that fails after the lease was taken (its model entry is gone) leaves no lease behind.
    const agent = await createAgent({ root: h.root, env: {}, sandbox: { enabled: true }, bwrapPath: "/nonexistent/bwrap" });
    await expect(agent.resumeSession({ sessionId: session.id })).rejects.toThrow();
    expect(existsSync(sessionLeaseFile(agent.paths, session.id))).toBe(false);
  });
});
