// One writer per session, across real processes: a session is run by at most one
// process at a time, whoever runs it. A `penguin chat` child holds a session; `penguin run
// --resume` of it is refused with exit 2 naming the holder, and the trace is byte-identical;
// once the chat ends the resume works. A lease left by a SIGKILLed chat is taken over (the lease
// then names the new process); a chat stopped with SIGTERM lets its lease go. The server: a
// task posted for a session a CLI process holds answers 409 naming it (trace unchanged, the
// model never asked), and a session the server has loaded refuses the CLI until the server
// unloads it. Everything is real (the built CLI as child processes, the server over HTTP on
// 127.0.0.1, files in temp dirs); only the model is scripted, and every wait is for an output
// line, an exit or a stream event.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { agentPaths, readLease, sessionLeaseFile } from "@penguin/core";
import { ensureBuilt } from "../../apps/cli/test/helpers/build.js";
import { CLI_MAIN } from "../../apps/cli/test/helpers/paths.js";
import { collectOutput, exited, runCli, waitForOutput } from "../../apps/cli/test/helpers/run-cli.js";
import { sessionIdFrom, traceFilesOf } from "../../apps/cli/test/helpers/trace-files.js";
import { cleanEnv, startWorld, type World } from "../../apps/cli/test/helpers/world.js";
import { startHarness, type Harness } from "../../apps/server/test/helpers/harness.js";
import { newSession, openStream, text, untilRunsEnded } from "../../apps/server/test/helpers/session.js";

let world: World | undefined;
let h: Harness | undefined;
const children: ChildProcess[] = [];
beforeAll(ensureBuilt, 300_000);
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await h?.cleanup();
  h = undefined;
  await world?.cleanup();
  world = undefined;
});

/** Every byte of a session's trace files, to compare before and after a refused writer. */
function traceBytes(root: string, sid: string): Buffer {
  const files = traceFilesOf(root, sid);
  expect(files.length).toBeGreaterThan(0);
  return Buffer.concat(files.map((f) => readFileSync(f)));
}

function leaseOf(root: string, sid: string) {
  return readLease(sessionLeaseFile(agentPaths(root, "default_project", "default_agent"), sid))?.holder;
}

/** `penguin chat --resume SID` with stdin kept open, once its banner says the session is open (and so held). */
async function holdingChat(env: NodeJS.ProcessEnv, sid: string): Promise<{ child: ChildProcess; out: ReturnType<typeof collectOutput> }> {
  const child = spawn(process.execPath, [CLI_MAIN, "chat", "--resume", sid], { env, stdio: ["pipe", "pipe", "pipe"] });
  children.push(child);
  const out = collectOutput(child);
  await waitForOutput(child.stdout, (t) => t.includes(`session ${sid} (resumed)`));
  return { child, out };
}

async function firstSession(w: World, prompt: string): Promise<string> {
  const r = await runCli(["run", "-m", prompt, "--workspace", w.workspace], { env: w.env });
  expect(r.code).toBe(0);
  return sessionIdFrom(r.stderr);
}

describe("one writer per session (CLI)", { timeout: 120_000 }, () => {
  it("refuses run --resume while a chat holds the session, naming it, with the trace unchanged; resumes once the chat ends", async () => {
    world = await startWorld({ script: [{ text: "first answer" }, { text: "after the chat" }] });
    const sid = await firstSession(world, "first task");
    const chat = await holdingChat(world.env, sid);
    const holder = leaseOf(world.root, sid);
    expect(holder).toMatchObject({ pid: chat.child.pid, host: hostname(), command: "penguin chat" });
    const before = traceBytes(world.root, sid);

    const refused = await runCli(["run", "--resume", sid, "-m", "second writer"], { env: world.env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`error: session ${sid} is being run by another process: pid ${chat.child.pid} on host ${hostname()} (penguin chat) since ${holder!.since}`);
    expect(refused.stderr).toContain(`penguin attach ${sid}`);
    expect(traceBytes(world.root, sid)).toEqual(before);
    expect(world.kit.requests).toHaveLength(1);

    // The chat leaves (EOF): its lease goes with it, and the resume runs.
    chat.child.stdin!.end();
    expect((await exited(chat.child)).code).toBe(0);
    expect(leaseOf(world.root, sid)).toBeUndefined();
    const resumed = await runCli(["run", "--resume", sid, "-m", "second writer"], { env: world.env });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("after the chat");
    expect(world.kit.requests[1]!.messages.map((m) => m.text)).toEqual(expect.arrayContaining(["first task", "first answer", "second writer"]));
    expect(existsSync(sessionLeaseFile(agentPaths(world.root, "default_project", "default_agent"), sid))).toBe(false);
  });

  it("takes over the lease a SIGKILLed chat left behind", async () => {
    world = await startWorld({ script: [{ text: "first answer" }, { text: "after the kill" }] });
    const sid = await firstSession(world, "first task");
    const killed = await holdingChat(world.env, sid);
    killed.child.kill("SIGKILL");
    await exited(killed.child);
    // The kill left the lease on disk, naming the dead process.
    expect(leaseOf(world.root, sid)?.pid).toBe(killed.child.pid);

    const next = await holdingChat(world.env, sid);
    expect(leaseOf(world.root, sid)).toMatchObject({ pid: next.child.pid, command: "penguin chat" });
    // And the new holder is a holder like any other.
    const refused = await runCli(["run", "--resume", sid, "-m", "x"], { env: world.env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`pid ${next.child.pid} on host ${hostname()} (penguin chat)`);
    next.child.stdin!.end();
    await exited(next.child);

    // `run` takes over a dead holder's lease as well.
    const dying = await holdingChat(world.env, sid);
    dying.child.kill("SIGKILL");
    await exited(dying.child);
    const resumed = await runCli(["run", "--resume", sid, "-m", "after a kill"], { env: world.env });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("after the kill");
    expect(leaseOf(world.root, sid)).toBeUndefined();
  });
});

describe("one writer per session (signals)", { timeout: 120_000 }, () => {
  it("lets the lease go when a chat is stopped with SIGTERM", async () => {
    world = await startWorld({ script: [{ text: "first answer" }, { text: "after the stop" }] });
    const sid = await firstSession(world, "first task");
    const chat = await holdingChat(world.env, sid);
    expect(leaseOf(world.root, sid)?.pid).toBe(chat.child.pid);
    chat.child.kill("SIGTERM");
    // It still dies of the signal, as it would without the handler, but leaves no lease behind.
    expect((await exited(chat.child)).signal).toBe("SIGTERM");
    expect(leaseOf(world.root, sid)).toBeUndefined();
    expect((await runCli(["run", "--resume", sid, "-m", "next"], { env: world.env })).code).toBe(0);
  });
});

describe("one writer per session (server)", { timeout: 120_000 }, () => {
  it("answers 409 naming the CLI process that holds the session, with the trace unchanged", async () => {
    world = await startWorld({ script: [{ text: "from the cli" }] });
    const sid = await firstSession(world, "cli task");
    // The server on the same data root; it indexes the CLI's session at start.
    h = await startHarness({ root: world.root, script: [{ text: "from the server" }] });
    const c = await h.admin();
    const chat = await holdingChat(world.env, sid);
    const before = traceBytes(world.root, sid);

    const busy = await c.post(`/api/sessions/${sid}/tasks`, text("server task"));
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe("session_busy");
    expect(busy.body.error.message).toContain(`pid ${chat.child.pid} on host ${hostname()} (penguin chat)`);
    expect(traceBytes(world.root, sid)).toEqual(before);
    expect(h.kit.requests).toHaveLength(0);
    // Renaming appends a fact: refused the same way; deleting too.
    expect((await c.patch(`/api/sessions/${sid}`, { title: "renamed" })).status).toBe(409);
    expect((await c.del(`/api/sessions/${sid}`)).status).toBe(409);
    expect(traceBytes(world.root, sid)).toEqual(before);

    chat.child.stdin!.end();
    await exited(chat.child);
    const sse = await openStream(c, sid);
    expect((await c.post(`/api/sessions/${sid}/tasks`, text("server task"))).status).toBe(202);
    await untilRunsEnded(sse, 1);
    await sse.close();
    expect(h.kit.requests[0]!.messages.map((m) => m.text)).toEqual(expect.arrayContaining(["cli task", "from the cli", "server task"]));
  });

  it("holds a session it has loaded: the CLI is refused until the server unloads it", async () => {
    h = await startHarness({ script: [{ text: "from the server" }, { text: "from the cli" }] });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace });
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("server task"));
    await untilRunsEnded(sse, 1);
    await sse.close();
    const env = cleanEnv({ PENGUIN_HOME: h.root });
    const before = traceBytes(h.root, sid);

    const refused = await runCli(["run", "--resume", sid, "-m", "cli task"], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`pid ${process.pid} on host ${hostname()} (penguin server)`);
    expect(refused.stderr).toContain("A server holds a session while it has it open");
    expect(traceBytes(h.root, sid)).toEqual(before);

    // Idle eviction unloads it (and lets the lease go): the CLI resumes it.
    h.clock.advance(31 * 60 * 1000);
    expect(await h.server.context.sessions.evictIdle()).toBe(1);
    const resumed = await runCli(["run", "--resume", sid, "-m", "cli task"], { env });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("from the cli");
  });
});
