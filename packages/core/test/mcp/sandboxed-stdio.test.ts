// Stdio MCP servers inside the session's bwrap sandbox (stdio-launch.ts): a real server (the
// dependency-free fixtures/fs-server.mjs) started through McpHub with a CommandSandbox built
// by sessionCommandSandbox, exactly as a session builds it. It lists its tools and answers;
// from inside it finds its workspace writable and the data root empty and read-only, runs in
// a pid namespace of its own, and reaches a listener on the host's 127.0.0.1 only when the
// sandbox has the network. Closing the hub leaves no process behind (also for a server that
// ignores stdin's end and SIGTERM). A missing command and a host policy's refusal fail with
// their reason and spawn nothing; a command the host has but the sandbox does not show (in
// /tmp) fails saying so; the policy sees the file that would really run (an
// `env.PATH` pointing into the workspace cannot pass a planted script off as an allowed one).
// Where bwrap cannot run, the tests are skipped and their names say why.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isEvent, type OmniMessage } from "@penguin/omnimessage";
import { McpHub, type McpServerEntry, type McpStdioLaunchRequest } from "../../src/environment/mcp/index.js";
import { probeSandbox, type CommandSandbox } from "../../src/environment/commands/sandbox.js";
import { sessionCommandSandbox } from "../../src/environment/commands/session-sandbox.js";
import { agentPaths } from "../../src/state/paths.js";
import { newMarker, processesWith, STUBBORN_SERVER } from "./fixtures/processes.js";
import { checkoutHiddenBy, visibleFsServer } from "./fixtures/sandbox-visible.js";

const availability = probeSandbox();
const skipReason = availability.available ? "" : ` (skipped: ${availability.reason ?? "bwrap cannot run here"})`;
const FS_SERVER = visibleFsServer();
// The stubborn server needs the checkout's node_modules: where the sandbox hides the checkout, it is skipped.
const hiddenCheckout = checkoutHiddenBy();
const stubbornSkip = hiddenCheckout === undefined ? "" : ` (skipped: the checkout lies under ${hiddenCheckout}, which the sandbox hides)`;

let root = "";
let workspace = "";
const hubs: McpHub[] = [];
let listener: Server | undefined;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "penguin-mcp-root-")));
  workspace = realpathSync(mkdtempSync(join(tmpdir(), "penguin-mcp-ws-")));
  mkdirSync(join(root, "other_project"), { recursive: true });
  writeFileSync(join(root, "other_project", ".project_config.toml"), 'api_key = "sk-other-project-secret"\n');
});
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((hub) => hub.close()));
  await new Promise<void>((resolve) => (listener === undefined ? resolve() : listener.close(() => resolve())));
  listener = undefined;
  rmSync(root, { recursive: true, force: true });
  rmSync(workspace, { recursive: true, force: true });
});

/** The sandbox a session of my_project/my_agent in the test workspace gets (home folders left visible: the fixture may live in one). */
function sandboxOf(network = false): CommandSandbox {
  const sandbox = sessionCommandSandbox(agentPaths(root, "my_project", "my_agent"), { enabled: true, network, privateHomes: [] }, { workspace });
  if (sandbox === undefined) throw new Error("no sandbox");
  return sandbox;
}

function hubOf(entries: McpServerEntry[], options: ConstructorParameters<typeof McpHub>[1]): McpHub {
  const hub = new McpHub(entries, { closeGraceMs: 200, cwd: workspace, ...options });
  hubs.push(hub);
  return hub;
}

async function connectEnd(hub: McpHub): Promise<{ status: string; results: { status: string; error?: string; tools?: string[] }[] }> {
  const events: OmniMessage[] = [];
  for await (const m of hub.connect()) events.push(m);
  const end = events.at(-1);
  if (end === undefined || !isEvent(end, "mcp_connect_end")) throw new Error("no mcp_connect_end");
  return end.payload;
}

async function callText(hub: McpHub, tool: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const result = await hub.call(`mcp__fs__${tool}`, JSON.stringify(args));
  return { text: result.output, isError: result.isError };
}

async function hostListener(): Promise<number> {
  const server = createServer((socket) => socket.destroy());
  listener = server;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

describe(`a stdio MCP server in the sandbox${skipReason}`, () => {
  it.skipIf(!availability.available)("lists its tools and answers, confined to the session's mounts", async () => {
    const marker = newMarker();
    const hub = hubOf([{ name: "fs", config: { command: FS_SERVER, args: [marker] } }], { sandbox: sandboxOf() });
    const end = await connectEnd(hub);
    expect(end.status).toBe("completed");
    expect(end.results[0]?.tools).toEqual(expect.arrayContaining(["mcp__fs__list_dir", "mcp__fs__read_file"]));

    const where = JSON.parse((await callText(hub, "whereami", {})).text) as { cwd: string; pid: number };
    expect(where.cwd).toBe(workspace);
    expect(where.pid).toBeLessThan(10); // its own pid namespace: bwrap's init is 1, the server next

    expect(await callText(hub, "write_file", { path: join(workspace, "made-inside.txt"), content: "hi" })).toMatchObject({ isError: false });
    expect(readFileSync(join(workspace, "made-inside.txt"), "utf8")).toBe("hi");

    // The data root is an empty mount; only the way to the agent's own shared_env is there.
    expect((await callText(hub, "list_dir", { path: root })).text).toBe('["my_project"]');
    const secret = await callText(hub, "read_file", { path: join(root, "other_project", ".project_config.toml") });
    expect(secret.isError).toBe(true);
    expect(secret.text).not.toContain("sk-other-project-secret");
    expect((await callText(hub, "write_file", { path: join(root, "planted.txt"), content: "x" })).isError).toBe(true);
    expect(existsSync(join(root, "planted.txt"))).toBe(false);
  });

  it.skipIf(!availability.available)("reaches the host's 127.0.0.1 only when the sandbox has the network", async () => {
    const port = await hostListener();
    const closed = hubOf([{ name: "fs", config: { command: FS_SERVER } }], { sandbox: sandboxOf(false) });
    expect((await connectEnd(closed)).status).toBe("completed");
    expect(await callText(closed, "connect_tcp", { host: "127.0.0.1", port })).toMatchObject({ isError: true });

    const open = hubOf([{ name: "fs", config: { command: FS_SERVER } }], { sandbox: sandboxOf(true) });
    expect((await connectEnd(open)).status).toBe("completed");
    expect(await callText(open, "connect_tcp", { host: "127.0.0.1", port })).toMatchObject({ isError: false });
  });

  it.skipIf(!availability.available)("gets the sandbox's allowlisted environment and its own env, not the host's secrets", async () => {
    process.env.PENGUIN_MCP_HOST_SECRET = "sk-host-secret-must-stay-out";
    process.env.OPENAI_API_KEY = "sk-host-openai-key-must-stay-out";
    try {
      const hub = hubOf([{ name: "fs", config: { command: FS_SERVER, env: { MCP_OWN_SETTING: "owner-wrote-this" } } }], { sandbox: sandboxOf() });
      expect((await connectEnd(hub)).status).toBe("completed");
      // The sandbox's /proc is its own: the server reads its own environment there.
      const environ = await callText(hub, "read_file", { path: "/proc/self/environ" });
      expect(environ.isError).toBe(false);
      const names = environ.text.split("\0").map((entry) => entry.split("=")[0]);
      expect(environ.text).toContain("MCP_OWN_SETTING=owner-wrote-this");
      expect(names).toContain("PATH");
      expect(environ.text).not.toContain("sk-host-secret-must-stay-out");
      expect(environ.text).not.toContain("sk-host-openai-key-must-stay-out");
      expect(names).not.toContain("PENGUIN_MCP_HOST_SECRET");
    } finally {
      delete process.env.PENGUIN_MCP_HOST_SECRET;
      delete process.env.OPENAI_API_KEY;
    }
  });

  it.skipIf(!availability.available || hiddenCheckout !== undefined)(`ends, sandbox and all, when the hub closes; also a server that ignores SIGTERM${stubbornSkip}`, async () => {
    const polite = newMarker();
    const stubborn = newMarker();
    const hub = hubOf(
      [
        { name: "fs", config: { command: FS_SERVER, args: [polite] } },
        { name: "stubborn", config: { command: process.execPath, args: [STUBBORN_SERVER, stubborn] } },
      ],
      { sandbox: sandboxOf() },
    );
    expect((await connectEnd(hub)).status).toBe("completed");
    // bwrap, its init and the server itself each carry the marker on their command line.
    expect(processesWith(polite).some((p) => p.args.includes("bwrap"))).toBe(true);
    expect(processesWith(polite).some((p) => p.args.includes(FS_SERVER) && !p.args.includes("bwrap"))).toBe(true);
    expect(processesWith(stubborn).length).toBeGreaterThan(0);
    await hub.close();
    expect(processesWith(polite)).toEqual([]);
    expect(processesWith(stubborn)).toEqual([]);
  });

  it.skipIf(!availability.available)("fails with a clear error for a command that does not exist, spawning nothing", async () => {
    const hub = hubOf([{ name: "ghost", config: { command: "penguin-no-such-mcp-server" } }], { sandbox: sandboxOf() });
    const end = await connectEnd(hub);
    expect(end.status).toBe("failed");
    expect(end.results[0]?.error).toMatch(/cannot start "penguin-no-such-mcp-server": command not found/);
  });

  it.skipIf(!availability.available)("says so when the command exists on the host but not inside the sandbox", async () => {
    // A copy of the server in the host's /tmp: the sandbox's /tmp is a fresh, empty one.
    const home = realpathSync(mkdtempSync(join(tmpdir(), "penguin-mcp-hidden-")));
    try {
      const hiddenServer = join(home, "fs-server.mjs");
      writeFileSync(hiddenServer, readFileSync(FS_SERVER), { mode: 0o755 });
      const hub = hubOf([{ name: "fs", config: { command: hiddenServer } }], { sandbox: sandboxOf() });
      const end = await connectEnd(hub);
      expect(end.results[0]?.status).toBe("failed");
      expect(end.results[0]?.error).toContain("bwrap: execvp");
      expect(end.results[0]?.error).toContain("not visible inside the session's sandbox");
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe("a host's stdio policy", () => {
  it("refuses a server before it runs, with the policy's reason, and sees the file that would run", async () => {
    const marker = join(workspace, "ran.txt");
    const seen: McpStdioLaunchRequest[] = [];
    const policy = (request: McpStdioLaunchRequest): string | undefined => {
      seen.push(request);
      return request.resolvedPath === realpathSync(FS_SERVER) ? undefined : `"${request.command}" is not on the list`;
    };
    const hub = hubOf(
      [
        { name: "sh", config: { command: "sh", args: ["-c", `touch ${marker}`] } },
        { name: "fs", config: { command: FS_SERVER } },
      ],
      { stdioPolicy: policy },
    );
    const end = await connectEnd(hub);
    expect(end.results[0]).toMatchObject({ status: "failed", error: '"sh" is not on the list' });
    expect(end.results[1]).toMatchObject({ status: "connected" });
    expect(existsSync(marker)).toBe(false);
    expect(seen.map((r) => [r.server, r.sandboxed])).toEqual([["sh", false], ["fs", false]]);
    expect(seen[0]?.resolvedPath).toBe(realpathSync((await import("node:child_process")).execFileSync("sh", ["-c", "command -v sh"], { encoding: "utf8" }).trim()));
  });

  it("resolves a bare name through the server's own env.PATH, so a planted script is what the policy judges", async () => {
    const planted = join(workspace, "bin", "node");
    mkdirSync(join(workspace, "bin"));
    writeFileSync(planted, `#!/bin/sh\ntouch ${join(workspace, "planted-ran")}\n`, { mode: 0o755 });
    const seen: (string | undefined)[] = [];
    const hub = hubOf([{ name: "fs", config: { command: "node", args: [FS_SERVER], env: { PATH: join(workspace, "bin") } } }], {
      stdioPolicy: (request) => {
        seen.push(request.resolvedPath);
        return request.resolvedPath === realpathSync(process.execPath) ? undefined : `not allowed: ${request.resolvedPath}`;
      },
    });
    const end = await connectEnd(hub);
    expect(seen).toEqual([planted]);
    expect(end.results[0]).toMatchObject({ status: "failed", error: `not allowed: ${planted}` });
    expect(existsSync(join(workspace, "planted-ran"))).toBe(false);
  });
});
