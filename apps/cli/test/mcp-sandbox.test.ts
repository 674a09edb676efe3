// Stdio MCP servers in the CLI: `penguin run --sandbox` starts the agent's stdio MCP
// server inside the same bwrap sandbox as its commands, so the scripted model's call of the
// server's read_file on the project config by its absolute path fails and the API key reaches
// neither the output nor the trace, and its write next to the workspace fails too. With
// `--no-sandbox` the CLI starts the server on the host as before (no admin list in the CLI): the
// same calls read the key and write outside, which shows the sandboxed checks can fail. The
// server is core's dependency-free fixture (packages/core/test/mcp/fixtures/fs-server.mjs).
// Where bwrap cannot run here, the sandboxed case is skipped and its name says why.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { agentPaths, ensureAgentState, probeSandbox } from "@penguin/core";
import { ensureBuilt } from "./helpers/build.js";
import { runCli } from "./helpers/run-cli.js";
import { sessionIdFrom, traceMessages } from "./helpers/trace-files.js";
import { KEY, startWorld, type World } from "./helpers/world.js";
import { visibleFsServer } from "../../../packages/core/test/mcp/fixtures/sandbox-visible.js";

const availability = probeSandbox();
const skipReason = availability.available ? "" : ` (skipped: ${availability.reason ?? "bwrap cannot run here"})`;
// A copy the sandbox can see wherever the checkout lies (fixtures/sandbox-visible.ts).
const FS_SERVER = visibleFsServer();

let world: World | undefined;
beforeAll(ensureBuilt, 300_000);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

async function attempt(flags: string[]): Promise<{ code: number | null; all: string; trace: string; escaped: string }> {
  world = await startWorld();
  const paths = agentPaths(world.root, "default_project", "default_agent");
  await ensureAgentState(paths);
  const servers = `  mcpServers:\n    - name: fs\n      config: { command: ${JSON.stringify(FS_SERVER)} }`;
  writeFileSync(paths.systemConfig, readFileSync(paths.systemConfig, "utf8").replace("  mcpServers: []", servers));
  const escaped = join(dirname(world.workspace), `${world.workspace.split("/").pop()}-mcp-escaped.txt`);
  world.kit.enqueue(
    {
      toolCalls: [
        { name: "mcp__fs__read_file", id: "call_0", arguments: { path: world.configFile } },
        { name: "mcp__fs__write_file", id: "call_1", arguments: { path: escaped, content: "out" } },
      ],
    },
    { text: "tried" },
  );
  const r = await runCli(["run", "--verbose", "--approve", "allow-all", "-m", "try", "--workspace", world.workspace, ...flags], { env: world.env });
  const trace = JSON.stringify(traceMessages(world.root, sessionIdFrom(r.stderr)));
  const result = { code: r.code, all: r.stdout + r.stderr, trace, escaped: existsSync(escaped) ? readFileSync(escaped, "utf8") : "" };
  rmSync(escaped, { force: true });
  return result;
}

describe("stdio MCP servers of a CLI session", { timeout: 120_000 }, () => {
  it.skipIf(!availability.available)(`run inside the sandbox with --sandbox: no key, no write outside${skipReason}`, async () => {
    const r = await attempt(["--sandbox"]);
    expect(r.code, r.all).toBe(0);
    expect(r.trace).toContain("mcp__fs__read_file");
    expect(r.trace).toContain("read_file failed");
    expect(r.all).not.toContain(KEY);
    expect(r.trace).not.toContain(KEY);
    expect(r.escaped).toBe("");
  });

  it("with --no-sandbox, run on the host: the same calls read the key and write outside", async () => {
    const r = await attempt(["--no-sandbox"]);
    expect(r.code, r.all).toBe(0);
    expect(r.trace).toContain(KEY);
    expect(r.escaped).toBe("out");
  });
});
