// The sandbox of `run` (and `chat`, which shares the option set): through the built CLI, a
// scripted command that reads the project config by its absolute path, writes next to the
// workspace and opens a socket to a server this test runs (all with `--approve allow-all`:
// this file is about the sandbox, not approvals). With `--sandbox` all three fail and the API
// key reaches neither the output nor the trace; with `--no-sandbox` the same run gets all
// three (so the checks can fail); with `--sandbox --sandbox-network` only the socket opens.
// With no sandbox flag at all commands are sandboxed where bwrap can run (the data root is
// not there) and, where bwrap is missing from PATH, one stderr line says they run
// unsandboxed and they do. `--sandbox-network --no-sandbox`, and `--sandbox` where bwrap
// cannot run, are usage errors (exit 2) that say what to do. Where bwrap cannot run here,
// the sandboxed cases are skipped and their names say why.
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
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
  const r = await runCli(["run", "--verbose", "--approve", "allow-all", "-m", "try", "--workspace", world.workspace, ...flags], { env: world.env });
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

  it("with --no-sandbox, the same commands read the key, write outside and connect", async () => {
    const r = await attempt(["--no-sandbox"]);
    expect(r.code, r.all).toBe(0);
    expect(r.trace).toContain(KEY);
    expect(r.escaped).toBe("out\n");
    expect(r.connections).toBe(1);
  });

  it("--sandbox-network does not apply with --no-sandbox", async () => {
    world = await startWorld({ script: [{ text: "never" }] });
    const r = await runCli(["run", "-m", "x", "--workspace", world.workspace, "--no-sandbox", "--sandbox-network"], { env: world.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--sandbox-network gives sandboxed commands the network; it does not apply with --no-sandbox");
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

/** A folder for PATH holding the few tools the commands below need, and no bwrap. */
function pathWithoutBwrap(): string {
  const dir = mkdtempSync(join(tmpdir(), "penguin-no-bwrap-"));
  for (const tool of ["bash", "ls", "id", "cat"]) {
    const found = ["/usr/bin", "/bin"].map((d) => join(d, tool)).find((p) => existsSync(p));
    if (found !== undefined) symlinkSync(found, join(dir, tool));
  }
  return dir;
}

/** `ls` of the project folder in the data root by its absolute path (where the API key lives), run by `penguin run` with the given flags; the tool output as the model got it. */
async function listDataRoot(flags: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stderr: string; output: string }> {
  world = await startWorld();
  world.kit.enqueue({ toolCalls: [{ name: "exec_command", id: "call_ls0001", arguments: { cmd: `echo listing; ls -a ${join(world.root, "default_project")}`, description: "list" } }] }, { text: "listed" });
  const r = await runCli(["run", "--approve", "allow-all", "-m", "look", "--workspace", world.workspace, ...flags], { env: { ...world.env, ...env } });
  const output = (world.kit.requests[1]?.messages ?? []).filter((m) => m.kind === "tool_result").map((m) => m.text ?? "").join("\n");
  return { code: r.code, stderr: r.stderr, output };
}

describe("penguin run: the sandbox by default", { timeout: 120_000 }, () => {
  it.skipIf(!availability.available)(`with no sandbox flag, a command cannot see the data root; --no-sandbox can${skipReason}`, async () => {
    const byDefault = await listDataRoot([]);
    expect(byDefault.code, byDefault.stderr).toBe(0);
    expect(byDefault.output).toContain("listing");
    expect(byDefault.output).not.toContain(".project_config.toml");
    expect(byDefault.stderr).not.toContain("unsandboxed");
    await world?.cleanup();
    world = undefined;
    const opted = await listDataRoot(["--no-sandbox"]);
    expect(opted.code, opted.stderr).toBe(0);
    expect(opted.output).toContain(".project_config.toml");
    expect(opted.stderr).not.toContain("unsandboxed");
  });

  it("where bwrap is not on PATH, one line says commands run unsandboxed, and they run", async () => {
    const bin = pathWithoutBwrap();
    try {
      const r = await listDataRoot([], { PATH: bin });
      expect(r.code, r.stderr).toBe(0);
      const notes = r.stderr.split("\n").filter((l) => l.includes("unsandboxed"));
      expect(notes).toEqual(["penguin: commands run unsandboxed: bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap) (install bubblewrap to sandbox them; --no-sandbox turns the sandbox off and this line with it)"]);
      expect(r.output).toContain(".project_config.toml");
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});

describe("penguin replay: re-run commands sandboxed by default", { timeout: 120_000 }, () => {
  it.skipIf(!availability.available)(`a recording's commands re-run in the sandbox; --no-sandbox re-runs them with the user's access${skipReason}`, async () => {
    world = await startWorld();
    world.kit.enqueue({ toolCalls: [{ name: "exec_command", id: "call_0", arguments: { cmd: `cat ${world.configFile}`, description: "read the key" } }] }, { text: "tried" });
    const recorded = await runCli(["run", "--approve", "allow-all", "-m", "try", "--workspace", world.workspace], { env: world.env });
    expect(recorded.code, recorded.stderr).toBe(0);
    const sid = sessionIdFrom(recorded.stderr);
    expect(JSON.stringify(traceMessages(world.root, sid))).not.toContain(KEY);

    // Re-run in the sandbox, the command meets the same wall as when it was recorded.
    const replayed = await runCli(["replay", sid, "--json"], { env: world.env });
    expect(replayed.code, replayed.stderr).toBe(0);
    const verdict = JSON.parse(replayed.stdout.trim().split("\n")[0] ?? "{}") as { identical?: boolean; session_id?: string };
    expect(verdict.identical).toBe(true);
    expect(replayed.stdout + replayed.stderr).not.toContain(KEY);

    // Unsandboxed, the same recorded command reads the key: the replay diverges (so the check can fail).
    const open = await runCli(["replay", sid, "--json", "--no-sandbox"], { env: world.env });
    expect(open.code).toBe(1);
    expect(JSON.parse(open.stdout.trim().split("\n")[0] ?? "{}")).toMatchObject({ identical: false });
  });
});
