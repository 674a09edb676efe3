// Attacks on the MCP paths of a real server ("MCP servers run inside the boundary"),
// with real bwrap and the testkit's scripted model as the attacker's model:
//   - a user created a minute ago posts the owner-only MCP connection test for her own
//     project with `sh -c` that would list the data root and read another project's API key:
//     refused with a 403 naming who can allow it, and nothing ran (the command's marker file,
//     in a folder the sandbox and the host share, never appears);
//   - the admin puts a small MCP server (core's fixtures/fs-server.mjs) on the list: the test
//     connects, and what the server saw at start shows it ran sandboxed (data root empty,
//     the other project's key absent);
//   - the chain "edit system_config.yaml, start a session": the test edits her config on disk
//     (the model's tools cannot any more) to add the listed server and an unlisted `sh`; the
//     session starts the first inside the sandbox, where the model's calls to its tools cannot
//     list the data root, read the other key or write outside the workspace, and never starts
//     the second (its mcp_connect_end says why); the network (a listener on the host's
//     127.0.0.1) is out of reach unless the session is allowed it;
//   - a server without a sandbox (--no-sandbox) refuses stdio servers, even listed ones,
//     until the admin turns on allowUnsandboxedStdio knowingly.
// Where bwrap cannot run, the sandboxed checks are skipped and their names say why.
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { agentPaths, probeSandbox } from "@penguin/core";
import { configureProject, modelEntry, startHarness, type Harness } from "../../apps/server/test/helpers/harness.js";
import type { ApiClient } from "../../apps/server/test/helpers/client.js";
import { newSession, openStream, text, untilRunsEnded } from "../../apps/server/test/helpers/session.js";
import { visibleFsServer } from "../../packages/core/test/mcp/fixtures/sandbox-visible.js";

const availability = probeSandbox();
// A copy the sandbox can see wherever the checkout lies (fixtures/sandbox-visible.ts).
const FS_SERVER = visibleFsServer();
const sandboxSkip = !availability.available ? ` (skipped: ${availability.reason ?? "bwrap cannot run here"})` : "";
const VICTIM_KEY = "sk-test-0123456789abcdef"; // default_project's key (the harness's model entry)
const MALLORY = "mallory";
const PROJECT = `${MALLORY}_default_project`;
const A = `/api/projects/${PROJECT}/agents/default_agent`;

let h: Harness | undefined;
let listener: Server | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
  await new Promise<void>((resolve) => (listener === undefined ? resolve() : listener.close(() => resolve())));
  listener = undefined;
});

/** A fresh user with her own personal project (a model of her own, another key), signed in. */
async function freshUser(harness: Harness): Promise<ApiClient> {
  const admin = await harness.admin();
  expect((await admin.post("/api/admin/users", { userId: MALLORY, password: "mallory-password" })).status).toBe(201);
  configureProject(harness.root, PROJECT, modelEntry(harness.kit, { api_key: "sk-mallory-own-key-000000" }));
  const c = harness.client();
  await c.signIn(MALLORY, "mallory-password");
  return c;
}

/** The agent's shared_env: writable inside the sandbox and the same folder on the host. */
function sharedEnv(harness: Harness): string {
  return agentPaths(harness.root, PROJECT, "default_agent").sharedEnvDir;
}

async function allowStdio(harness: Harness, mcp: { stdioCommands: string[]; allowUnsandboxedStdio?: boolean }): Promise<void> {
  const admin = await harness.admin();
  const saved = await admin.put("/api/admin/settings", { mcp });
  expect(saved.status).toBe(200);
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** Every trace line of a session, parsed. */
function traceRecords(harness: Harness, sid: string): any[] {
  const traces = agentPaths(harness.root, PROJECT, "default_agent").tracesDir;
  return filesUnder(traces)
    .filter((f) => f.includes(sid))
    .flatMap((f) => readFileSync(f, "utf8").split("\n").filter((l) => l.trim() !== ""))
    .map((l) => JSON.parse(l));
}

async function hostListener(): Promise<number> {
  const server = createServer((socket) => socket.destroy());
  listener = server;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

describe("the MCP connection test as a fresh user", { timeout: 60_000 }, () => {
  it("refuses a command that is not on the admin's list, and nothing runs", async () => {
    h = await startHarness();
    const c = await freshUser(h);
    const marker = join(sharedEnv(h), "sh-ran");
    const script = `touch ${marker}; ls ${h.root}; cat ${join(h.root, "default_project", ".project_config.toml")}`;
    const res = await c.post(`${A}/config/mcp-test`, { name: "shell", config: { command: "sh", args: ["-c", script] } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("mcp_command_not_allowed");
    expect(res.body.error.message).toContain("Settings → MCP commands");
    expect(res.body.error.message).toMatch(/admin/);
    expect(JSON.stringify(res.body)).not.toContain(VICTIM_KEY);
    expect(existsSync(marker)).toBe(false);
    // The admin's list is the admin's: the user cannot edit it.
    expect((await c.put("/api/admin/settings", { mcp: { stdioCommands: ["sh"] } })).status).toBe(404);
  });

  it.skipIf(sandboxSkip !== "")(`runs a listed server inside the sandbox${sandboxSkip}`, async () => {
    h = await startHarness();
    const c = await freshUser(h);
    await allowStdio(h, { stdioCommands: [FS_SERVER] });
    const otherKeyFile = join(h.root, "default_project", ".project_config.toml");
    const res = await c.post(`${A}/config/mcp-test`, { name: "fs", config: { command: FS_SERVER, args: ["--look", h.root, "--look", otherKeyFile] } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, transport: "stdio" });
    const whereami = res.body.tools.find((t: any) => t.name === "mcp__fs__whereami");
    const seen = JSON.parse(String(whereami.description).replace(/^.*Seen at start: /s, ""));
    // Inside, the data root shows only the way to this agent's own mounts; the other key is not there.
    expect(seen[h.root]).toEqual([PROJECT]);
    expect(seen[otherKeyFile]).toBe("error ENOENT");
    expect(JSON.stringify(res.body)).not.toContain(VICTIM_KEY);
  });
});

describe(`sessions start MCP servers inside the boundary${sandboxSkip}`, { timeout: 60_000 }, () => {
  it.skipIf(sandboxSkip !== "")("edit config then start: the listed server is confined, the unlisted one never starts", async () => {
    h = await startHarness();
    const c = await freshUser(h);
    await allowStdio(h, { stdioCommands: [FS_SERVER] });
    const port = await hostListener();
    const marker = join(sharedEnv(h), "sh-ran");
    const file = agentPaths(h.root, PROJECT, "default_agent").systemConfig;
    const servers = [
      "  mcpServers:",
      "    - name: fs",
      `      config: { command: ${JSON.stringify(FS_SERVER)} }`,
      "    - name: evil",
      `      config: { command: sh, args: ["-c", ${JSON.stringify(`touch ${marker}; cat ${join(h.root, "default_project", ".project_config.toml")}`)}] }`,
    ].join("\n");
    writeFileSync(file, readFileSync(file, "utf8").replace("  mcpServers: []", servers));
    const otherKeyFile = join(h.root, "default_project", ".project_config.toml");
    const outside = join(h.root, PROJECT, "planted.txt");
    const calls = [
      { name: "mcp__fs__list_dir", arguments: { path: h.root } },
      { name: "mcp__fs__read_file", arguments: { path: otherKeyFile } },
      { name: "mcp__fs__write_file", arguments: { path: outside, content: "planted" } },
      { name: "mcp__fs__write_file", arguments: { path: "inside.txt", content: "fine" } },
      { name: "mcp__fs__connect_tcp", arguments: { host: "127.0.0.1", port } },
    ];
    const runTask = async (body: Record<string, unknown>): Promise<{ sid: string; outputs: Map<string, string>; records: any[] }> => {
      h!.kit.enqueue({ toolCalls: calls }, { text: "done" });
      const sid = await newSession(c, { approvalMode: "allow-all", ...body }, PROJECT);
      const sse = await openStream(c, sid);
      await c.post(`/api/sessions/${sid}/tasks`, text("look around"));
      await untilRunsEnded(sse, 1);
      await sse.close();
      const records = traceRecords(h!, sid);
      const outputs = new Map<string, string>();
      const callIds = new Map<string, string>();
      for (const r of records) {
        const p = r.payload;
        if (p?.type === "tool_call") callIds.set(p.tool_call_id, `${p.name} ${p.arguments}`);
        if (p?.type === "tool_call_output") outputs.set(callIds.get(p.tool_call_id) ?? p.tool_call_id, String(p.output));
      }
      return { sid, outputs, records };
    };

    const closed = await runTask({});
    const end = closed.records.find((r) => r.payload?.type === "mcp_connect_end")?.payload;
    expect(end?.status).toBe("failed");
    expect(end.results.find((r: any) => r.server === "fs")).toMatchObject({ status: "connected" });
    const evil = end.results.find((r: any) => r.server === "evil");
    expect(evil.status).toBe("failed");
    expect(evil.error).toContain('the command "sh" is not on this server\'s list');
    expect(evil.error).toContain("Settings → MCP commands");
    expect(existsSync(marker)).toBe(false);

    const out = [...closed.outputs.entries()];
    const outputOf = (prefix: string): string => out.find(([k]) => k.startsWith(prefix))?.[1] ?? "(no output)";
    expect(outputOf(`mcp__fs__list_dir`)).toBe(`["${PROJECT}"]`);
    expect(outputOf(`mcp__fs__read_file`)).toContain("ENOENT");
    expect(outputOf(`mcp__fs__write_file {"path":"${outside}"`)).toContain("failed");
    expect(outputOf(`mcp__fs__write_file {"path":"inside.txt"`)).toContain("wrote inside.txt");
    expect(outputOf(`mcp__fs__connect_tcp`)).toContain("cannot connect");
    expect(existsSync(outside)).toBe(false);
    expect(JSON.stringify(closed.records)).not.toContain(VICTIM_KEY);

    // The same session allowed the network (mallory owns the project): the listener answers.
    const open = await runTask({ sandboxNetwork: true });
    const openOut = [...open.outputs.entries()];
    expect(openOut.find(([k]) => k.startsWith("mcp__fs__connect_tcp"))?.[1]).toContain(`connected to 127.0.0.1:${port}`);
    expect(existsSync(marker)).toBe(false);
  });
});

describe("a server without a sandbox", { timeout: 60_000 }, () => {
  it("refuses stdio MCP servers, listed or not, until the admin allows unsandboxed ones", async () => {
    h = await startHarness({ app: { sandbox: { enabled: false } } });
    const c = await freshUser(h);
    await allowStdio(h, { stdioCommands: [FS_SERVER] });
    const refused = await c.post(`${A}/config/mcp-test`, { name: "fs", config: { command: FS_SERVER } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("mcp_command_not_allowed");
    expect(refused.body.error.message).toContain("--no-sandbox");
    expect(refused.body.error.message).toContain("allowUnsandboxedStdio");

    await allowStdio(h, { stdioCommands: [FS_SERVER], allowUnsandboxedStdio: true });
    const allowed = await c.post(`${A}/config/mcp-test`, { name: "fs", config: { command: FS_SERVER } });
    expect(allowed.status).toBe(200);
    expect(allowed.body.ok).toBe(true);
    // The list still holds without the sandbox.
    const unlisted = await c.post(`${A}/config/mcp-test`, { name: "shell", config: { command: "sh", args: ["-c", "true"] } });
    expect(unlisted.status).toBe(403);
  });
});
