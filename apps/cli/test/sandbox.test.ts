// `--sandbox` on `run` (and `chat`, which shares the option set): through the built CLI, a
// scripted command that reads the project config by its absolute path, writes next to the
// workspace and opens a socket to a server this test runs. With `--sandbox` all three fail
// and the API key reaches neither the output nor the trace; without it the same run gets all
// three (so the checks can fail); with `--sandbox --sandbox-network` only the socket opens.
// `--sandbox-network` alone, and `--sandbox` where bwrap
// cannot run, are usage errors (exit 2) that say what to do. Where bwrap cannot run here,
// the sandboxed case is skipped and its name says why.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { probeSandbox } from "@penguin/core";
import { ensureBuilt } from "./helpers/build.js";
import { runCli } from "./helpers/run-cli.js";
import { sessionIdFrom, traceMessages } from "./helpers/trace-files.js";
import { KEY, startWorld, type World } from "./helpers/world.js";

const availability = probeSandbox();
const skipReason = availability.available ? "" : ` (skipped: ${availability.reason ?? "bwrap cannot run here"})`;

let world: World | undefined;
let listener: Server | undefined;
beforeAll(ensureBuilt, 300_000);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
  await new Promise<void>((resolve) => (listener === undefined ? resolve() : listener.close(() => resolve())));
  listener = undefined;
});

async function countingServer(): Promise<{ port: number; connections: () => number }> {
  let count = 0;
  const server = createServer((socket) => {
    count += 1;
    socket.destroy();
  });
  listener = server;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return { port: address.port, connections: () => count };
}

async function attempt(flags: string[]): Promise<{ code: number | null; all: string; trace: string; escaped: string; connections: number }> {
  const server = await countingServer();
  world = await startWorld();
  const escaped = join(dirname(world.workspace), `${world.workspace.split("/").pop()}-escaped.txt`);
  const cmds = [`cat ${world.configFile}`, `echo out > ${escaped}`, `echo hi > /dev/tcp/127.0.0.1/${server.port}`];
  world.kit.enqueue(
    { toolCalls: cmds.map((cmd, i) => ({ name: "exec_command", id: `call_${i}`, arguments: { cmd, description: `attempt ${i}` } })) },
    { text: "tried" },
  );
  const r = await runCli(["run", "--verbose", "-m", "try", "--workspace", world.workspace, ...flags], { env: world.env });
  const trace = JSON.stringify(traceMessages(world.root, sessionIdFrom(r.stderr)));
  const result = { code: r.code, all: r.stdout + r.stderr, trace, escaped: existsSync(escaped) ? readFileSync(escaped, "utf8") : "", connections: server.connections() };
  rmSync(escaped, { force: true });
  return result;
}

describe("penguin run --sandbox", { timeout: 120_000 }, () => {
  it.skipIf(!availability.available)(`confines the commands: no key, no write outside, no socket${skipReason}`, async () => {
    const r = await attempt(["--sandbox"]);
    expect(r.code, r.all).toBe(0);
    expect(r.all).not.toContain(KEY);
    expect(r.trace).not.toContain(KEY);
    expect(r.escaped).toBe("");
    expect(r.connections).toBe(0);
  });

  it.skipIf(!availability.available)(`with --sandbox-network: the socket opens, the key and the outside stay out of reach${skipReason}`, async () => {
    const r = await attempt(["--sandbox", "--sandbox-network"]);
    expect(r.code, r.all).toBe(0);
    expect(r.connections).toBe(1);
    expect(r.trace).not.toContain(KEY);
    expect(r.escaped).toBe("");
  });

  it("without it, the same commands read the key, write outside and connect", async () => {
    const r = await attempt([]);
    expect(r.code, r.all).toBe(0);
    expect(r.trace).toContain(KEY);
    expect(r.escaped).toBe("out\n");
    expect(r.connections).toBe(1);
  });

  it("--sandbox-network needs --sandbox", async () => {
    world = await startWorld({ script: [{ text: "never" }] });
    const r = await runCli(["run", "-m", "x", "--workspace", world.workspace, "--sandbox-network"], { env: world.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--sandbox-network only applies with --sandbox");
    expect(world.kit.requests).toHaveLength(0);
  });

  it("--sandbox where bwrap cannot be found is a usage error naming the package, not an unsandboxed run", async () => {
    world = await startWorld({ script: [{ text: "never" }] });
    const emptyPath = mkdtempSync(join(tmpdir(), "penguin-no-bwrap-"));
    try {
      const r = await runCli(["run", "-m", "x", "--workspace", world.workspace, "--sandbox"], { env: { ...world.env, PATH: emptyPath } });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("bwrap is not installed");
      expect(r.stderr).toContain("bubblewrap");
      expect(world.kit.requests).toHaveLength(0);
    } finally {
      rmSync(emptyPath, { recursive: true, force: true });
    }
  });
});
