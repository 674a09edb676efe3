// The command sandbox, end to end through a session: a scripted model (testkit) runs commands
// from a temporary workspace under the data root, as server sessions do, that try to
//   - read the project's credentials via `../../../../.project_config.toml`,
//   - read and plant files in another workspace of the same agent,
//   - write outside the workspace (into the project folder),
//   - reach the project config through the harness process's `/proc/<pid>/root`,
//   - open a TCP connection to a server this test runs on 127.0.0.1.
// Inside the sandbox every attempt fails and the API key never reaches the trace; the same
// script without the sandbox succeeds at each, which proves the checks can fail. With the
// network allowed, only the connection goes through. Writing inside the workspace works in
// every case. Also: what stays visible (the session's scratchpad and the agent's shared_env
// writable, agent_state read-only with its vault file masked, vault values still in the
// environment), and a subagent's commands confined like its parent's. Where bwrap cannot run,
// the tests are skipped and their names say why.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isModel, type OmniMessage } from "@penguin/omnimessage";
import { allow, collect, startHarness, TEST_KEY, type Harness } from "../helpers/harness.js";
import { probeSandbox, type SandboxOptions } from "../../src/environment/commands/sandbox.js";
import { isPenguinError } from "../../src/errors.js";
import { createAgent } from "../../src/agent.js";
import { setVaultValue } from "../../src/state/vault.js";
import { routeConversations, runSubagent, toolResults, type Turn } from "../subagents/helpers/conversations.js";

const availability = probeSandbox();
const skipReason = availability.available ? "" : ` (skipped: ${availability.reason ?? "bwrap cannot run here"})`;
const PROCESS_TESTS = { timeout: 60_000 };

let h: Harness | undefined;
let listener: Server | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
  await new Promise<void>((resolve) => (listener === undefined ? resolve() : listener.close(() => resolve())));
  listener = undefined;
});

/** A TCP server on 127.0.0.1 that counts the connections it accepts. */
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

interface Attempt {
  name: string;
  cmd: string;
}

interface Outcome {
  /** Command → its tool output. */
  outputs: Map<string, string>;
  trace: string;
  projectDir: string;
  otherWorkspace: string;
  connections: number;
}

async function runAttempts(sandbox: SandboxOptions | undefined): Promise<Outcome & { attempts: Record<string, Attempt> }> {
  const server = await countingServer();
  const attempts = (projectConfig: string): Record<string, Attempt> => ({
    readConfig: { name: "read the project config", cmd: "cat ../../../../.project_config.toml" },
    readOther: { name: "read another workspace", cmd: "cat ../other-ws/notes.txt" },
    plantOther: { name: "write into another workspace", cmd: "echo planted > ../other-ws/planted.txt" },
    writeOutside: { name: "write outside the workspace", cmd: "echo escaped > ../../../../escaped.txt" },
    procRoot: { name: "read through /proc/<pid>/root", cmd: `cat /proc/${process.pid}/root${projectConfig}` },
    connect: { name: "open a socket", cmd: `bash -c 'echo hello > /dev/tcp/127.0.0.1/${server.port}'` },
    inside: { name: "write inside the workspace and in /tmp", cmd: "echo kept > inside.txt && t=$(mktemp) && echo ok > $t && rm $t && cat inside.txt" },
  });
  // The /proc attempt names the project config's absolute path, known once the harness made
  // the data root, so the script is queued after.
  h = await startHarness({ script: [] });
  const list = attempts(h.agent.paths.projectConfig);
  h.kit.enqueue(...[
    { toolCalls: Object.values(list).map((a) => ({ name: "exec_command", arguments: { cmd: a.cmd, description: a.name } })) },
    { text: "done" },
  ]);
  const otherWorkspace = join(h.agent.paths.workspacesDir, "other-ws");
  mkdirSync(otherWorkspace, { recursive: true });
  writeFileSync(join(otherWorkspace, "notes.txt"), "another team's notes\n");
  const session = await h.agent.createSession(sandbox === undefined ? {} : { sandbox });
  const messages = await collect(session.run("try everything", { approve: allow }));
  await session.dispose();
  const outputs = outputsByCommand(messages);
  return {
    attempts: list,
    outputs,
    trace: readFileSync(session.tracePath, "utf8"),
    projectDir: h.agent.paths.projectDir,
    otherWorkspace,
    connections: server.connections(),
  };
}

function outputsByCommand(messages: OmniMessage[]): Map<string, string> {
  const commandOf = new Map<string, string>();
  const outputs = new Map<string, string>();
  for (const m of messages) {
    if (isModel(m, "tool_call")) commandOf.set(m.payload.tool_call_id, (JSON.parse(m.payload.arguments) as { cmd: string }).cmd);
    if (isModel(m, "tool_call_output")) outputs.set(commandOf.get(m.payload.tool_call_id) ?? "?", m.payload.output);
  }
  return outputs;
}

function exitCodeOf(output: string | undefined): number | undefined {
  const match = /\[exit code: (\d+)\]$/.exec(output ?? "");
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

describe(`the command sandbox${skipReason}`, PROCESS_TESTS, () => {
  it.skipIf(!availability.available)("inside it, every escape fails and the API key stays out of the trace", async () => {
    const r = await runAttempts({ enabled: true });
    const a = r.attempts;
    for (const attempt of [a.readConfig, a.readOther, a.plantOther, a.writeOutside, a.procRoot, a.connect]) {
      const output = r.outputs.get(attempt!.cmd);
      expect(exitCodeOf(output), `${attempt!.name}: ${output}`).not.toBe(0);
    }
    expect(r.trace).not.toContain(TEST_KEY);
    expect(r.trace).not.toContain("another team's notes");
    expect(existsSync(join(r.projectDir, "escaped.txt"))).toBe(false);
    expect(existsSync(join(r.otherWorkspace, "planted.txt"))).toBe(false);
    expect(r.connections).toBe(0);
    // (ends with: a host login profile may complain first that it cannot write under HOME)
    expect(r.outputs.get(a.inside!.cmd)).toMatch(/(^|\n)kept\n\[exit code: 0\]$/);
  });

  it("without it, the same script gets the key, the other workspace, the project folder and the network", async () => {
    const r = await runAttempts(undefined);
    const a = r.attempts;
    for (const attempt of Object.values(a)) expect(exitCodeOf(r.outputs.get(attempt.cmd)), attempt.name).toBe(0);
    expect(r.outputs.get(a.readConfig!.cmd)).toContain(TEST_KEY);
    expect(r.outputs.get(a.procRoot!.cmd)).toContain(TEST_KEY);
    expect(r.trace).toContain(TEST_KEY);
    expect(r.outputs.get(a.readOther!.cmd)).toContain("another team's notes");
    expect(readFileSync(join(r.projectDir, "escaped.txt"), "utf8")).toBe("escaped\n");
    expect(readFileSync(join(r.otherWorkspace, "planted.txt"), "utf8")).toBe("planted\n");
    expect(r.connections).toBe(1);
    // (ends with: a host login profile may complain first that it cannot write under HOME)
    expect(r.outputs.get(a.inside!.cmd)).toMatch(/(^|\n)kept\n\[exit code: 0\]$/);
  });

  it.skipIf(!availability.available)("with the network allowed, the socket opens and the files stay hidden", async () => {
    const r = await runAttempts({ enabled: true, network: true });
    const a = r.attempts;
    expect(exitCodeOf(r.outputs.get(a.connect!.cmd))).toBe(0);
    expect(r.connections).toBe(1);
    expect(exitCodeOf(r.outputs.get(a.readConfig!.cmd))).not.toBe(0);
    expect(r.trace).not.toContain(TEST_KEY);
    expect(existsSync(join(r.projectDir, "escaped.txt"))).toBe(false);
  });

  it("asking for the sandbox where bwrap cannot run fails with sandbox_unavailable, naming what to install", async () => {
    h = await startHarness({ script: [] });
    const agent = await createAgent({ root: h.root, env: {}, bwrapPath: join(h.root, "no-such-bwrap") });
    const error = await agent.createSession({ sandbox: { enabled: true } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isPenguinError(error) && error.code).toBe("sandbox_unavailable");
    expect(String(error)).toContain("not installed");
    expect(String(error)).toContain("bubblewrap");
  });
});

describe(`what the sandbox leaves visible${skipReason}`, PROCESS_TESTS, () => {
  it.skipIf(!availability.available)("the scratchpad and shared_env are writable, agent_state (skills) is read-only and its vault file unreadable", async () => {
    h = await startHarness({ script: [] });
    const paths = h.agent.paths;
    await setVaultValue(paths.vault, "DEPLOY_TOKEN", "vault-value-7d2e");
    const session = await h.agent.createSession({ sandbox: { enabled: true } });
    const cmds = {
      scratchpad: `echo plan > ${session.scratchpadDir}/PLAN.md && cat ${session.scratchpadDir}/PLAN.md`,
      sharedEnv: `echo cached > ${paths.sharedEnvDir}/cache.txt && cat ${paths.sharedEnvDir}/cache.txt`,
      skill: `cat ${paths.skillsDir}/*/SKILL.md > /dev/null && echo skills-readable`,
      agentStateWrite: `echo x > ${paths.agentState}/planted.txt`,
      vaultFile: `cat ${paths.vault}`,
      vaultEnv: `test "$DEPLOY_TOKEN" = vault-value-7d2e && echo vault-env-ok`,
    };
    h.kit.enqueue({ toolCalls: Object.entries(cmds).map(([name, cmd]) => ({ name: "exec_command", arguments: { cmd, description: name } })) }, { text: "looked" });
    const outputs = outputsByCommand(await collect(session.run("look around", { approve: allow })));
    await session.dispose();
    expect(outputs.get(cmds.scratchpad)).toMatch(/(^|\n)plan\n\[exit code: 0\]$/);
    expect(readFileSync(join(session.scratchpadDir, "PLAN.md"), "utf8")).toBe("plan\n");
    expect(outputs.get(cmds.sharedEnv)).toMatch(/(^|\n)cached\n\[exit code: 0\]$/);
    expect(readFileSync(join(paths.sharedEnvDir, "cache.txt"), "utf8")).toBe("cached\n");
    expect(outputs.get(cmds.skill)).toMatch(/(^|\n)skills-readable\n\[exit code: 0\]$/);
    expect(exitCodeOf(outputs.get(cmds.agentStateWrite))).not.toBe(0);
    expect(existsSync(join(paths.agentState, "planted.txt"))).toBe(false);
    expect(exitCodeOf(outputs.get(cmds.vaultFile))).not.toBe(0);
    expect(outputs.get(cmds.vaultFile)).not.toContain("vault-value-7d2e");
    expect(outputs.get(cmds.vaultEnv)).toMatch(/(^|\n)vault-env-ok\n\[exit code: 0\]$/);
  });
});

describe(`folders a host hides${skipReason}`, PROCESS_TESTS, () => {
  it.skipIf(!availability.available)("a folder named in `hide` (another team's workspace root) is not there", async () => {
    h = await startHarness({ script: [] });
    // Outside /tmp: the sandbox's own fresh /tmp would hide a folder there anyway.
    const otherRoot = mkdtempSync("/var/tmp/penguin-other-root-");
    const otherWorkspace = join(otherRoot, "team-b", "app");
    mkdirSync(otherWorkspace, { recursive: true });
    writeFileSync(join(otherWorkspace, "secret-plan.md"), "team b's plan\n");
    try {
      const cmd = `cat ${join(otherWorkspace, "secret-plan.md")}`;
      h.kit.enqueue({ toolCalls: [{ name: "exec_command", arguments: { cmd, description: "peek" } }] }, { text: "peeked" }, { toolCalls: [{ name: "exec_command", arguments: { cmd, description: "peek" } }] }, { text: "peeked" });
      const hidden = await h.agent.createSession({ workspaceDir: h.workspace, sandbox: { enabled: true, hide: [otherRoot] } });
      const inside = outputsByCommand(await collect(hidden.run("peek", { approve: allow }))).get(cmd);
      await hidden.dispose();
      const plain = await h.agent.createSession({ workspaceDir: h.workspace, sandbox: { enabled: true } });
      const visible = outputsByCommand(await collect(plain.run("peek", { approve: allow }))).get(cmd);
      await plain.dispose();
      expect(inside).toContain("No such file or directory");
      expect(inside).not.toContain("team b's plan");
      expect(visible).toContain("team b's plan");
    } finally {
      rmSync(otherRoot, { recursive: true, force: true });
    }
  });
});

describe(`subagents and the sandbox${skipReason}`, PROCESS_TESTS, () => {
  const childReads = (configFile: string): Record<string, Turn[]> => ({
    "PARENT-SBX": [{ toolCalls: [runSubagent({ prompt: "CHILD-SBX: read the config" })] }, { text: "done" }],
    "CHILD-SBX": [
      { toolCalls: [{ name: "exec_command", arguments: { cmd: `cat ${configFile}`, description: "read" } }] },
      (r) => ({ text: toolResults(r).at(-1) ?? "" }),
    ],
  });

  it.skipIf(!availability.available)("a child session's commands are confined like its parent's", async () => {
    h = await startHarness();
    const conv = routeConversations(h.kit, childReads(h.agent.paths.projectConfig));
    const session = await h.agent.createSession({ workspaceDir: h.workspace, sandbox: { enabled: true } });
    await collect(session.run("PARENT-SBX: delegate", { approve: allow }));
    await session.dispose();
    const childResult = toolResults(conv.requests("CHILD-SBX")[1]!).at(-1) ?? "";
    expect(childResult).toContain("No such file or directory");
    expect(childResult).not.toContain(TEST_KEY);
    expect(conv.errors).toEqual([]);
  });

  it("without the sandbox, the same child reads the key (the check above can fail)", async () => {
    h = await startHarness();
    const conv = routeConversations(h.kit, childReads(h.agent.paths.projectConfig));
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(session.run("PARENT-SBX: delegate", { approve: allow }));
    await session.dispose();
    expect(toolResults(conv.requests("CHILD-SBX")[1]!).at(-1)).toContain(TEST_KEY);
    expect(conv.errors).toEqual([]);
  });
});

describe(`the host's private files${skipReason}`, PROCESS_TESTS, () => {
  /** A home folder outside /tmp (the sandbox's own /tmp would hide one there anyway). */
  function fakeHome(): string {
    const home = mkdtempSync("/var/tmp/penguin-home-");
    mkdirSync(join(home, ".ssh"), { recursive: true });
    writeFileSync(join(home, ".ssh", "id_ed25519"), "PRIVATE-KEY-5c1e\n");
    mkdirSync(join(home, ".local", "bin"), { recursive: true });
    mkdirSync(join(home, ".local", "lib"), { recursive: true });
    writeFileSync(join(home, ".local", "lib", "tool-data.txt"), "tool-data-ok\n");
    writeFileSync(join(home, ".local", "bin", "penguin-home-tool"), `#!/bin/sh\ncat ${join(home, ".local", "lib", "tool-data.txt")}\n`, { mode: 0o755 });
    return home;
  }

  async function look(home: string, privateHomes: string[]): Promise<{ outputs: Map<string, string>; cmds: Record<string, string> }> {
    const cmds = {
      key: `cat ${join(home, ".ssh", "id_ed25519")}`,
      // By its path: a login shell's profile may reset PATH, but the folder is bound back
      // because it is on the PATH the command starts with.
      tool: join(home, ".local", "bin", "penguin-home-tool"),
      cache: `echo cached > ${join(home, "cache.txt")} && cat ${join(home, "cache.txt")}`,
      shadow: "cat /etc/shadow",
      environ: `grep -a -c PATH= /proc/${process.pid}/environ`,
    };
    h!.kit.enqueue({ toolCalls: Object.entries(cmds).map(([name, cmd]) => ({ name: "exec_command", arguments: { cmd, description: name } })) }, { text: "looked" });
    const session = await h!.agent.createSession({ workspaceDir: h!.workspace, sandbox: { enabled: true, privateHomes } });
    const outputs = outputsByCommand(await collect(session.run("look at the home", { approve: allow })));
    await session.dispose();
    return { outputs, cmds };
  }

  it.skipIf(!availability.available)("a private home is empty, writable and throwaway inside, its PATH tools still run; not listed as private, its key is readable", async () => {
    h = await startHarness({ script: [] });
    const home = fakeHome();
    try {
      await setVaultValue(h.agent.paths.vault, "PATH", `${join(home, ".local", "bin")}:${process.env.PATH ?? "/usr/bin:/bin"}`);
      const hidden = await look(home, [home]);
      expect(exitCodeOf(hidden.outputs.get(hidden.cmds.key))).not.toBe(0);
      expect(hidden.outputs.get(hidden.cmds.key)).not.toContain("PRIVATE-KEY-5c1e");
      expect(hidden.outputs.get(hidden.cmds.tool)).toMatch(/(^|\n)tool-data-ok\n\[exit code: 0\]$/);
      expect(hidden.outputs.get(hidden.cmds.cache)).toMatch(/(^|\n)cached\n\[exit code: 0\]$/);
      expect(existsSync(join(home, "cache.txt"))).toBe(false);

      const visible = await look(home, []);
      expect(visible.outputs.get(visible.cmds.key)).toContain("PRIVATE-KEY-5c1e");
      // …and, like the rest of the system, it is read-only there.
      expect(exitCodeOf(visible.outputs.get(visible.cmds.cache))).not.toBe(0);
      expect(existsSync(join(home, "cache.txt"))).toBe(false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it.skipIf(!availability.available)("the host's password hashes and the harness's /proc environment are out of reach; outside the sandbox they are not", async () => {
    h = await startHarness({ script: [] });
    const home = fakeHome();
    try {
      const inside = await look(home, [home]);
      // The sandbox has a pid namespace of its own: the harness is not even listed there.
      expect(inside.outputs.get(inside.cmds.environ)).toContain("No such file or directory");
      expect(exitCodeOf(inside.outputs.get(inside.cmds.environ))).not.toBe(0);
      if (existsSync("/etc/shadow")) {
        expect(readFileSync("/etc/shadow", "utf8")).toContain("root:");
        expect(inside.outputs.get(inside.cmds.shadow)).not.toContain("root:");
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
    // The same reads without the sandbox: the environment is there (the check above can fail).
    const plainCmd = `grep -a -c PATH= /proc/${process.pid}/environ`;
    h.kit.enqueue({ toolCalls: [{ name: "exec_command", arguments: { cmd: plainCmd, description: "environ" } }] }, { text: "looked" });
    const plain = await h.agent.createSession({ workspaceDir: h.workspace });
    const out = outputsByCommand(await collect(plain.run("look", { approve: allow }))).get(plainCmd);
    await plain.dispose();
    expect(out).toMatch(/(^|\n)1\n\[exit code: 0\]$/);
  });
});
