// The network allowance of one server session. Commands run sandboxed with the network off; a
// project owner or the admin may allow it for a session (`sandboxNetwork` on create, or a
// PATCH), a member may not. The check is real: the test listens on 127.0.0.1 and a scripted
// command opens a socket to it with bash's /dev/tcp. With the network off the connect fails
// and the listener sees nothing (the sandbox's own loopback has no listener); allowed, it
// connects, the listener counts it, and the trace records `settings_changed
// {sandbox_network: true}`. Where bwrap cannot run here, the socket cases are skipped and
// their names say why; the authorization cases run everywhere. The one-session read says how
// the commands run (sandbox available, enabled, network allowed server-wide) and what the
// reader may change (permissions), and the PATCH agrees with it for owner, creator and member.
import { createServer, type Server } from "node:net";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { probeSandbox } from "@penguin/core";
import type { ApiClient } from "./helpers/client.js";
import { startHarness, type Harness } from "./helpers/harness.js";
import { newSession, openStream, text, untilRunsEnded } from "./helpers/session.js";

const availability = probeSandbox();
const skipReason = availability.available ? "" : ` (socket cases skipped: ${availability.reason ?? "bwrap cannot run here"})`;

let h: Harness | undefined;
let listener: Server | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
  await new Promise<void>((resolve) => (listener === undefined ? resolve() : listener.close(() => resolve())));
  listener = undefined;
}, 30_000);

/** A TCP listener on 127.0.0.1 that counts the connections it accepts. */
async function countingListener(): Promise<{ port: number; accepted: () => number }> {
  let accepted = 0;
  const server = createServer((socket) => {
    accepted += 1;
    socket.destroy();
  });
  listener = server;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the listener has no port");
  return { port: address.port, accepted: () => accepted };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

function traceOf(harness: Harness, sid: string): string {
  const traces = join(harness.root, "default_project", "agents", "default_agent", "traces");
  return filesUnder(traces)
    .filter((f) => f.includes(sid))
    .map((f) => readFileSync(f, "utf8"))
    .join("\n");
}

/** The outputs of the session's commands, in trace order. */
function commandOutputs(harness: Harness, sid: string): string[] {
  return traceOf(harness, sid)
    .split("\n")
    .filter((l) => l.includes('"tool_call_output"'))
    .map((l) => String(JSON.parse(l).payload.output));
}

/** One task whose command opens a socket to `port`; returns that command's output. */
async function connectTask(harness: Harness, c: ApiClient, sid: string, port: number): Promise<string> {
  const cmd = `if (echo hello > /dev/tcp/127.0.0.1/${port}) 2>/dev/null; then echo SOCKET-OPENED; else echo SOCKET-REFUSED; fi`;
  harness.kit.enqueue({ toolCalls: [{ name: "exec_command", arguments: { cmd, description: "open a socket" } }] }, { text: "tried" });
  const before = commandOutputs(harness, sid).length;
  const sse = await openStream(c, sid);
  await c.post(`/api/sessions/${sid}/tasks`, text("open a socket"));
  await untilRunsEnded(sse, 1);
  await sse.close();
  const outputs = commandOutputs(harness, sid);
  expect(outputs.length).toBe(before + 1);
  return outputs.at(-1) ?? "";
}

/** The `settings_changed` payloads in the session's trace. */
function settingsEvents(harness: Harness, sid: string): Record<string, unknown>[] {
  return traceOf(harness, sid)
    .split("\n")
    .filter((l) => l.includes('"settings_changed"'))
    .map((l) => JSON.parse(l).payload);
}

async function member(harness: Harness, admin: ApiClient): Promise<ApiClient> {
  expect((await admin.post("/api/admin/users", { userId: "mia", password: "mia-password-123" })).status).toBe(201);
  expect((await admin.post("/api/projects/default_project/members", { userId: "mia" })).status).toBeLessThan(300);
  const c = harness.client();
  await c.signIn("mia", "mia-password-123");
  return c;
}

describe(`a session's network allowance${skipReason}`, { timeout: 60_000 }, () => {
  it.skipIf(!availability.available)("network off by default: the socket to a 127.0.0.1 listener fails and the listener sees nothing", async () => {
    h = await startHarness();
    const { port, accepted } = await countingListener();
    const c = await h.admin();
    // Not about approvals: the command runs without asking (web sessions start read-only).
    const sid = await newSession(c, { workspace: h.workspace, approvalMode: "allow-all" });
    expect((await c.get(`/api/sessions/${sid}`)).body.sandboxNetwork).toBe(false);
    const output = await connectTask(h, c, sid, port);
    expect(output).toContain("SOCKET-REFUSED");
    expect(output).not.toContain("SOCKET-OPENED");
    expect(accepted()).toBe(0);
    expect(settingsEvents(h, sid).filter((p) => "sandbox_network" in p)).toEqual([]);
  });

  it.skipIf(!availability.available)("allowed at creation by the project owner: the socket opens, and the trace records the setting", async () => {
    h = await startHarness();
    const { port, accepted } = await countingListener();
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace, sandboxNetwork: true, approvalMode: "allow-all" });
    expect((await c.get(`/api/sessions/${sid}`)).body.sandboxNetwork).toBe(true);
    const output = await connectTask(h, c, sid, port);
    expect(output).toContain("SOCKET-OPENED");
    expect(accepted()).toBe(1);
    expect(settingsEvents(h, sid)).toContainEqual({ type: "settings_changed", sandbox_network: true });
  });

  it.skipIf(!availability.available)("changed on an existing session: allowed, the next task connects; taken back, it fails again", async () => {
    h = await startHarness();
    const { port, accepted } = await countingListener();
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace, approvalMode: "allow-all" });
    expect(await connectTask(h, c, sid, port)).toContain("SOCKET-REFUSED");
    expect((await c.patch(`/api/sessions/${sid}`, { sandboxNetwork: true })).body.sandboxNetwork).toBe(true);
    expect(await connectTask(h, c, sid, port)).toContain("SOCKET-OPENED");
    expect(accepted()).toBe(1);
    expect((await c.patch(`/api/sessions/${sid}`, { sandboxNetwork: false })).body.sandboxNetwork).toBe(false);
    expect(await connectTask(h, c, sid, port)).toContain("SOCKET-REFUSED");
    expect(accepted()).toBe(1);
    expect(settingsEvents(h, sid).filter((p) => "sandbox_network" in p).map((p) => p.sandbox_network)).toEqual([true, false]);
  });

  it("only a project owner or the admin may allow it: a member gets 403 on create and on change, and may take it back", async () => {
    h = await startHarness();
    const admin = await h.admin();
    const mia = await member(h, admin);
    const refused = await mia.post("/api/projects/default_project/agents/default_agent/sessions", { workspace: h.workspace, sandboxNetwork: true });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain("sandboxNetwork");
    const own = await newSession(mia, { workspace: h.workspace });
    expect((await mia.patch(`/api/sessions/${own}`, { sandboxNetwork: true })).status).toBe(403);
    expect((await mia.get(`/api/sessions/${own}`)).body.sandboxNetwork).toBe(false);
    // The owner allows it on Mia's session; Mia, its creator, may take it back.
    expect((await admin.patch(`/api/sessions/${own}`, { sandboxNetwork: true })).body.sandboxNetwork).toBe(true);
    expect((await mia.patch(`/api/sessions/${own}`, { sandboxNetwork: false })).body.sandboxNetwork).toBe(false);
    // A session Mia did not create: she may not change its allowance at all.
    const admins = await newSession(admin, { workspace: h.workspace, sandboxNetwork: true });
    expect((await mia.patch(`/api/sessions/${admins}`, { sandboxNetwork: false })).status).toBe(403);
    expect((await admin.get(`/api/sessions/${admins}`)).body.sandboxNetwork).toBe(true);
    // A bad value names the field.
    const bad = await admin.post("/api/projects/default_project/agents/default_agent/sessions", { workspace: h.workspace, sandboxNetwork: "yes" });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("sandboxNetwork");
  });
});

describe("what the session read says about its commands and who may change them", { timeout: 60_000 }, () => {
  it("permissions follow the PATCH's rules: owner all, member-creator take back only, other member nothing", async () => {
    h = await startHarness();
    const admin = await h.admin();
    const mia = await member(h, admin);
    const own = await newSession(mia, { workspace: h.workspace });
    const admins = await newSession(admin, { workspace: h.workspace });
    expect((await admin.get(`/api/sessions/${own}`)).body.permissions).toEqual({ control: true, allowNetwork: true });
    expect((await mia.get(`/api/sessions/${own}`)).body.permissions).toEqual({ control: true, allowNetwork: false });
    expect((await mia.get(`/api/sessions/${admins}`)).body.permissions).toEqual({ control: false, allowNetwork: false });
    // …and the PATCH agrees with each answer.
    expect((await mia.patch(`/api/sessions/${own}`, { sandboxNetwork: true })).status).toBe(403);
    expect((await mia.patch(`/api/sessions/${own}`, { sandboxNetwork: false })).status).toBe(200);
    expect((await mia.patch(`/api/sessions/${admins}`, { sandboxNetwork: false })).status).toBe(403);
    expect((await admin.patch(`/api/sessions/${own}`, { sandboxNetwork: true })).status).toBe(200);
    // The sandbox status is the server's, the same for every reader.
    const status = { available: availability.available, enabled: availability.available, serverNetwork: false };
    expect((await admin.get(`/api/sessions/${own}`)).body.sandbox).toEqual(status);
    expect((await mia.get(`/api/sessions/${admins}`)).body.sandbox).toEqual(status);
  });

  it("says when commands run unsandboxed (bwrap missing), and when the server allows every session the network", async () => {
    h = await startHarness({ app: { sandbox: { bwrapPath: "/nonexistent/penguin-test/bwrap" } } });
    let c = await h.admin();
    let sid = await newSession(c, { workspace: h.workspace });
    expect((await c.get(`/api/sessions/${sid}`)).body.sandbox).toEqual({ available: false, enabled: false, serverNetwork: false });
    await h.cleanup();
    h = await startHarness({ app: { sandbox: { network: true } } });
    c = await h.admin();
    sid = await newSession(c, { workspace: h.workspace });
    expect((await c.get(`/api/sessions/${sid}`)).body.sandbox).toEqual({ available: availability.available, enabled: availability.available, serverNetwork: availability.available });
  });
});
