// Security at the CLI's edge, through the built `penguin` binary as a user runs it:
// - a vault canary never reaches stdout or stderr (human mode with --verbose, --json with
//   --partials, `trace show`, `sessions`) nor any file under the data root but the vault,
//   even when the model runs a command that prints it and reads a file that holds it;
// - under `--approve allow-all` the command policy still vetoes its factory rules.
// (core/test/security/vault-canary.test.ts covers the SDK stream and files.)
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseEnvelope } from "@penguin/omnimessage";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { runCli } from "./helpers/run-cli.js";
import { startWorld, type World } from "./helpers/world.js";

let world: World | undefined;
beforeAll(ensureBuilt, 300_000);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

const CANARY = "canary-cli-5e0c9b7a1d3f";

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

const printIt = { name: "exec_command", arguments: { cmd: "echo token=$DEPLOY_TOKEN; printenv | grep DEPLOY_", description: "print the secret" } };
const readIt = { name: "read_file", arguments: { file_path: "leak.txt" } };

describe("penguin: secrets and policy at the CLI edge", { timeout: 120_000 }, () => {
  it("a vault canary reaches no output stream and no file under the data root", async () => {
    world = await startWorld({ script: [{ toolCalls: [printIt, readIt] }, { text: "checked" }, { toolCalls: [printIt, readIt] }, { text: "checked again" }] });
    const env = world.env;
    expect((await runCli(["config", "vault", "set", "--key", "DEPLOY_TOKEN", "--value", "-"], { env, input: `${CANARY}\n` })).code).toBe(0);
    writeFileSync(join(world.workspace, "leak.txt"), `the token is ${CANARY}\n`);

    const human = await runCli(["run", "--verbose", "--approve", "allow-all", "-m", "show me the token", "--workspace", world.workspace], { env });
    const json = await runCli(["run", "--json", "--partials", "--approve", "allow-all", "-m", "again", "--workspace", world.workspace], { env });
    expect(human.code, human.stderr).toBe(0);
    expect(json.code, json.stderr).toBe(0);
    const sessionId = parseEnvelope(JSON.parse(json.stdout.split("\n")[0]!))?.payload;
    const sid = sessionId !== undefined && "session_id" in sessionId ? sessionId.session_id : "";
    const show = await runCli(["trace", "show", sid], { env });
    const sessions = await runCli(["sessions"], { env });
    expect(show.code, show.stderr).toBe(0);

    // The redaction happened (the model saw the placeholder), and nothing printed the value.
    expect(json.stdout).toContain("[vault:DEPLOY_TOKEN]");
    for (const r of [human, json, show, sessions]) {
      expect(r.stdout).not.toContain(CANARY);
      expect(r.stderr).not.toContain(CANARY);
    }
    expect(world.kit.requests.map((r) => r.rawBody).join("\n")).not.toContain(CANARY);
    const files = filesUnder(world.root).filter((f) => !f.endsWith(".vault.toml"));
    expect(files.some((f) => f.endsWith(".jsonl"))).toBe(true);
    for (const f of files) expect(readFileSync(f, "utf8"), f).not.toContain(CANARY);
  });

  it("--approve allow-all still forbids a factory-rule command", async () => {
    world = await startWorld({ script: [{ toolCalls: [{ name: "exec_command", arguments: { cmd: "sudo -- rm -rf ~", description: "clean up" } }] }, { text: "ok" }] });
    const r = await runCli(["run", "--json", "--approve", "allow-all", "-m", "clean", "--workspace", world.workspace], { env: world.env });
    const decisions = r.stdout
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => parseEnvelope(JSON.parse(l)))
      .filter((m) => m?.type === "event_msg" && m.payload.type === "approval_decision")
      .map((m) => m?.payload);
    expect(decisions).toEqual([expect.objectContaining({ decision: "forbidden", policy_rule: expect.any(String) })]);
    const result = world.kit.requests[1]?.messages.find((m) => m.kind === "tool_result");
    expect(result?.text).toMatch(/denied by policy/i);
  });
});
