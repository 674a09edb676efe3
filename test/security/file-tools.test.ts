// The file tools keep to the session's boundary (core's mount table), in the server and in the
// CLI's sandboxed sessions. A scripted model in one project plays the attacker with
// read_file / write_file / edit_file / read_image against another project's trace, vault,
// project config, AGENTS.md and image, the host's home, its own agent_state (AGENTS.md,
// system_config.yaml: the edit-config-then-restart chain starts there), symlinks planted in its
// workspace, `../` paths and /proc/self/root (helpers/file-attacks.ts). Every attack must fail
// with the refusal a command would get, leave its target unchanged (or never created) and put
// no secret into the trace. The server is checked with its command sandbox on (where bwrap
// runs) and off (`--no-sandbox`): the file tools need no bwrap, so the boundary holds either way.
// A CLI session without the sandbox has no boundary, but its agent_state stays read-only to the
// model's tools all the same (people change it through the CLI and the API).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { probeSandbox } from "@penguin/core";
import { startHarness, type Harness } from "../../apps/server/test/helpers/harness.js";
import { newSession, openStream, text, untilRunsEnded } from "../../apps/server/test/helpers/session.js";
import { ensureBuilt } from "../../apps/cli/test/helpers/build.js";
import { runCli } from "../../apps/cli/test/helpers/run-cli.js";
import { sessionIdFrom, traceMessages } from "../../apps/cli/test/helpers/trace-files.js";
import { startWorld, type World } from "../../apps/cli/test/helpers/world.js";
import { fileAttacks, outputsOf, type FileAttackPlan } from "./helpers/file-attacks.js";

const availability = probeSandbox();
const skipReason = availability.available ? "" : ` (SKIPPED: ${availability.reason ?? "bwrap cannot run here"})`;

let h: Harness | undefined;
let world: World | undefined;
let plan: FileAttackPlan | undefined;
afterEach(async () => {
  plan?.cleanup();
  plan = undefined;
  await h?.cleanup();
  h = undefined;
  await world?.cleanup();
  world = undefined;
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

async function serverAttack(sandboxed: boolean): Promise<void> {
  h = await startHarness({ entry: { vision: true }, app: { sandbox: { enabled: sandboxed } } });
  const c = await h.admin();
  expect((await c.get("/api/me")).body.sandbox.enabled).toBe(sandboxed);
  const sid = await newSession(c, { workspace: h.workspace, approvalMode: "allow-all" });
  plan = fileAttacks({ root: h.root, attacker: "default_project", workspace: h.workspace, vision: true });
  h.kit.enqueue({ toolCalls: plan.calls }, { text: "tried everything" });
  const sse = await openStream(c, sid);
  await c.post(`/api/sessions/${sid}/tasks`, text("try the way out"));
  await untilRunsEnded(sse, 1);
  await sse.close();
  const traceFiles = filesUnder(join(h.root, "default_project", "agents", "default_agent", "traces")).filter((f) => f.includes(sid));
  const lines = traceFiles.flatMap((f) => readFileSync(f, "utf8").split("\n").filter((l) => l.trim() !== ""));
  plan.check(outputsOf(lines.map((l) => JSON.parse(l) as unknown)), lines.join("\n"));
}

describe("file tools in a server session", { timeout: 120_000 }, () => {
  it.skipIf(!availability.available)(`with the command sandbox on: every attack on another project, the home and agent_state fails${skipReason}`, async () => {
    await serverAttack(true);
  });

  it("with the command sandbox off (--no-sandbox): the file tools keep to the same boundary", async () => {
    await serverAttack(false);
  });
});

describe("file tools in a CLI sandboxed session", { timeout: 180_000 }, () => {
  beforeAll(ensureBuilt, 300_000);

  it.skipIf(!availability.available)(`penguin run --sandbox --approve allow-all: every attack fails${skipReason}`, async () => {
    world = await startWorld({ entry: { vision: true } });
    plan = fileAttacks({ root: world.root, attacker: "default_project", workspace: world.workspace, vision: true });
    world.kit.enqueue({ toolCalls: plan.calls }, { text: "tried everything" });
    const r = await runCli(["run", "--sandbox", "--approve", "allow-all", "-m", "try the way out", "--workspace", world.workspace], { env: world.env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const messages = traceMessages(world.root, sessionIdFrom(r.stderr));
    plan.check(outputsOf(messages), JSON.stringify(messages) + r.stdout + r.stderr);
  });

  it("penguin run --approve allow-all without --sandbox: the model still cannot change its agent_state", async () => {
    world = await startWorld({ entry: { vision: true } });
    plan = fileAttacks({ root: world.root, attacker: "default_project", workspace: world.workspace, vision: true, only: "own-agent-state" });
    world.kit.enqueue({ toolCalls: plan.calls }, { text: "tried" });
    const r = await runCli(["run", "--approve", "allow-all", "-m", "change your own config", "--workspace", world.workspace], { env: world.env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const messages = traceMessages(world.root, sessionIdFrom(r.stderr));
    plan.check(outputsOf(messages), JSON.stringify(messages));
  });
});
