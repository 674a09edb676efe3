// Rows 12 and 13: replay and the demo, as a user runs them (the bundled CLI as a child).
// - Row 12: `penguin replay SID --tools recorded --json` of a 1,000-request session recorded
//   by the real engine against the testkit (one task, a read_file call per request, as row
//   3's full stack). Requests replayed per second of the child's wall time.
// - Row 13: `./penguin demo --fast` on a fresh data root, after the install and build (the
//   launcher's checks run, nothing is installed or built): wall time, beside `node -e 0`.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startTestkit, type RecordedRequest, type ScriptedTurn } from "@penguin/testkit";
import { metric, msSince, type RowResult } from "../lib/stats.js";
import { makeWorld } from "../lib/world.js";
import { CLI_MAIN, cliBuilt } from "./cli.js";

const LAUNCHER = fileURLToPath(new URL("../../../penguin", import.meta.url));

function timed(command: string, args: string[], env: NodeJS.ProcessEnv): { ms: number; stdout: string } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(command, args, { env, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 28 });
  const ms = msSince(t0);
  if (r.status !== 0) throw new Error(`${[command, ...args].join(" ")} exited ${r.status}: ${r.stderr.toString().slice(0, 400)}`);
  return { ms, stdout: r.stdout.toString() };
}

export async function rowReplay(runs: number, requests = 1000): Promise<RowResult> {
  if (!cliBuilt()) return { row: 12, title: "penguin replay --tools recorded", metrics: [], note: "n/a (CLI not built: npm run build)" };
  const kit = await startTestkit();
  const world = await makeWorld(kit.baseUrl("openai-chat"));
  try {
    let n = 0;
    const step = (_r: RecordedRequest): ScriptedTurn => (++n < requests ? { toolCalls: [{ name: "read_file", arguments: { file_path: "notes.txt" } }], usage: { input: 500, output: 10 } } : { text: "done", usage: { input: 500, output: 5 } });
    kit.enqueue(...Array.from({ length: requests }, () => step));
    const session = await world.agent.createSession({ workspaceDir: world.workspace });
    for await (const _ of session.run("go", { approve: async () => "allow" })) {
      // drain: the recording is the trace
    }
    await session.dispose();
    const rates: number[] = [];
    for (let i = 0; i < runs; i++) {
      const r = timed(process.execPath, [CLI_MAIN, "replay", session.id, "--tools", "recorded", "--json"], world.env);
      const verdict = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as { summary?: string };
      if (verdict.summary !== "identical") throw new Error(`the replay was not identical: ${verdict.summary}`);
      rates.push(requests / (r.ms / 1000));
    }
    return { row: 12, title: `penguin replay --tools recorded of a ${requests}-request session (child wall time, verdict identical)`, metrics: [metric("requests replayed per second", "requests/s", "higher", rates)] };
  } finally {
    await kit.close();
    world.cleanup();
  }
}

export async function rowDemo(runs: number): Promise<RowResult> {
  if (!cliBuilt()) return { row: 13, title: "./penguin demo --fast", metrics: [], note: "n/a (CLI not built: npm run build)" };
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/_API_KEY$|_BASE_URL$|^PENGUIN_/.test(k)) env[k] = v;
  env.NO_COLOR = "1";
  const demo: number[] = [];
  const node: number[] = [];
  const roots: string[] = [];
  try {
    for (let i = 0; i <= runs; i++) {
      const root = mkdtempSync(join(tmpdir(), "penguin-bench-demo-"));
      roots.push(root);
      const ms = timed("sh", [LAUNCHER, "demo", "--fast"], { ...env, PENGUIN_HOME: root }).ms;
      // The first run may still build the web-free CLI bundle after an edit: a warm-up.
      if (i === 0) continue;
      demo.push(ms);
      node.push(timed(process.execPath, ["-e", "0"], env).ms);
    }
  } finally {
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  }
  return { row: 13, title: "./penguin demo --fast on a fresh data root, after install (the launcher's checks, the demo, its replay)", metrics: [metric("./penguin demo --fast, wall", "ms", "lower", demo, { baseline: { name: "node -e 0", samples: node } })] };
}
