// `penguin acp` driven by a second client nobody here wrote: the `acpx` CLI from the registry
// (0.1.15, the last release whose engines allow Node 20; later ones need Node 22.12+). acpx
// starts the built CLI as a custom agent (`--agent`), runs one-shot prompts (`exec`) against the
// testkit's scripted model, and answers permissions from its own flags: --approve-all grants
// the write (made through acpx's fs/write_text_file), --deny-all refuses it. Both decisions land
// in the trace as approval_decision, and the sessions are ordinary ones `penguin sessions` lists.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/build.js";
import { CLI_MAIN } from "../helpers/paths.js";
import { runCli } from "../helpers/run-cli.js";
import { traceMessages } from "../helpers/trace-files.js";
import { startWorld, type World } from "../helpers/world.js";

const ACPX = join(dirname(createRequire(import.meta.url).resolve("acpx/package.json")), "dist", "cli.js");

let world: World | undefined;
let home: string | undefined;
beforeAll(ensureBuilt, 300_000);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
  if (home !== undefined) rmSync(home, { recursive: true, force: true });
  home = undefined;
});

/** The agent's text in acpx's `--format json` output (the JSON-RPC lines it saw), chunks joined. */
function agentText(stdout: string): string {
  return stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { method?: string; params?: { update?: { sessionUpdate?: string; content?: { text?: string } } } })
    .flatMap((m) => (m.method === "session/update" && m.params?.update?.sessionUpdate === "agent_message_chunk" ? [m.params.update.content?.text ?? ""] : []))
    .join("");
}

function acpx(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [ACPX, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The ids of the sessions with a trace under the world's data root. */
function sessionIdsIn(root: string): string[] {
  const dir = join(root, "default_project", "agents", "default_agent", "traces");
  if (!existsSync(dir)) return [];
  const ids = readdirSync(dir).flatMap((d) => readdirSync(join(dir, d)).flatMap((f) => /^(session-[\w-]+)_\d+\.jsonl$/.exec(f)?.[1] ?? []));
  return [...new Set(ids)];
}

describe("penguin acp under acpx", { timeout: 90_000 }, () => {
  it("--approve-all: the write is granted and made through acpx; --deny-all: refused; both recorded in the trace", async () => {
    const write = { name: "write_file", id: "call_acpx01", arguments: { file_path: "from-acpx.txt", content: "written via acpx\n" } };
    world = await startWorld({ script: [{ toolCalls: [write] }, { text: "wrote it" }, { toolCalls: [{ ...write, id: "call_acpx02", arguments: { file_path: "denied.txt", content: "no\n" } }] }, { text: "could not" }] });
    home = mkdtempSync(join(tmpdir(), "penguin-acpx-home-"));
    const env = { ...world.env, HOME: home };
    const agent = `${process.execPath} ${CLI_MAIN} acp`;

    const granted = await acpx(["--agent", agent, "--cwd", world.workspace, "--approve-all", "--format", "json", "exec", "write a file"], env);
    expect(granted.code, granted.stderr).toBe(0);
    expect(agentText(granted.stdout)).toBe("wrote it");
    expect(readFileSync(join(world.workspace, "from-acpx.txt"), "utf8")).toBe("written via acpx\n");

    const denied = await acpx(["--agent", agent, "--cwd", world.workspace, "--deny-all", "--format", "json", "exec", "write another"], env);
    // acpx's exit code 5: permissions were requested and every one was denied.
    expect(denied.code, denied.stderr).toBe(5);
    expect(agentText(denied.stdout)).toBe("could not");
    expect(existsSync(join(world.workspace, "denied.txt"))).toBe(false);

    const decisions = sessionIdsIn(world.root).flatMap((sid) =>
      traceMessages(world!.root, sid).flatMap((m) => (m.type === "event_msg" && m.payload.type === "approval_decision" ? [`${m.payload.tool_call_id}:${m.payload.decision}`] : [])),
    );
    expect(decisions.sort()).toEqual(["call_acpx01:allow", "call_acpx02:deny"]);
    const listed = await runCli(["sessions"], { env: world.env });
    for (const sid of sessionIdsIn(world.root)) expect(listed.stdout).toContain(sid);
  });
});
