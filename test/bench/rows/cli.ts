// Rows 1 and 2: the built CLI as a user starts it. Row 1 times `penguin --help` against bare
// `node -e 0`, alternating the two so machine load hits both alike. Row 2 runs `penguin run`
// for one turn with one tool call against an in-process testkit, under /usr/bin/time for the
// child's peak RSS (VmHWM polling where time(1) is missing); its overhead is the wall time
// minus the model's own time, measured by sending the same recorded requests to the same
// testkit with a plain fetch. Both need the bundled CLI, apps/cli/bundle/main.js (`npm run build`).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startTestkit, type ScriptStep } from "@penguin/testkit";
import { metric, msSince, type RowResult } from "../lib/stats.js";
import { makeWorld } from "../lib/world.js";

export const CLI_MAIN = fileURLToPath(new URL("../../../apps/cli/bundle/main.js", import.meta.url));
const TIME = "/usr/bin/time";

export function cliBuilt(): boolean {
  return existsSync(CLI_MAIN);
}

function timedSpawn(args: string[]): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: "ignore" });
  if (r.status !== 0) throw new Error(`node ${args.join(" ")} exited ${r.status}`);
  return msSince(start);
}

export async function rowColdStart(runs: number): Promise<RowResult> {
  const title = "CLI cold start: `penguin --help`";
  if (!cliBuilt()) return { row: 1, title, metrics: [], note: "n/a (CLI not built: run `npx tsc -b`)" };
  const cli: number[] = [];
  const bare: number[] = [];
  timedSpawn([CLI_MAIN, "--help"]);
  timedSpawn(["-e", "0"]);
  for (let i = 0; i < runs; i++) {
    bare.push(timedSpawn(["-e", "0"]));
    cli.push(timedSpawn([CLI_MAIN, "--help"]));
  }
  return {
    row: 1,
    title,
    metrics: [metric("penguin --help", "ms", "lower", cli, { baseline: { name: "node -e 0", samples: bare }, goal: "≤ 1.6× node -e 0" })],
  };
}

/** Peak RSS in MB of a child, from /proc while it runs (the fallback when time(1) is absent). */
function pollPeak(pid: number, onPeak: (kb: number) => void): () => void {
  const timer = setInterval(() => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      if (m) onPeak(Number(m[1]));
    } catch {
      // exited
    }
  }, 5);
  return () => clearInterval(timer);
}

export async function rowCliRun(runs: number): Promise<RowResult> {
  const title = "`penguin run`, one turn with one tool call (testkit model)";
  if (!cliBuilt()) return { row: 2, title, metrics: [], note: "n/a (CLI not built: run `npx tsc -b`)" };
  const kit = await startTestkit();
  const world = await makeWorld(kit.baseUrl("openai-chat"));
  const steps = (): ScriptStep[] => [{ toolCalls: [{ name: "exec_command", arguments: { cmd: "true", description: "nothing" } }], usage: { input: 500, output: 10 } }, { text: "done", usage: { input: 600, output: 5 } }];
  const useTime = existsSync(TIME);
  const timeFile = join(mkdtempSync(join(tmpdir(), "penguin-bench-time-")), "rss");
  const wall: number[] = [];
  const overhead: number[] = [];
  const rss: number[] = [];
  const model: number[] = [];
  try {
    for (let i = 0; i <= runs; i++) {
      kit.enqueue(...steps());
      const before = kit.requests.length;
      const args = [CLI_MAIN, "run", "-m", "run true once", "--approve", "allow-all", "--workspace", world.workspace];
      const start = process.hrtime.bigint();
      const child = useTime ? spawn(TIME, ["-f", "%M", "-o", timeFile, process.execPath, ...args], { env: world.env, stdio: "ignore" }) : spawn(process.execPath, args, { env: world.env, stdio: "ignore" });
      let peakKb = 0;
      const stop = useTime ? () => undefined : pollPeak(child.pid ?? 0, (kb) => (peakKb = Math.max(peakKb, kb)));
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      const ms = msSince(start);
      stop();
      if (code !== 0) throw new Error(`penguin run exited ${code}`);
      if (useTime) peakKb = Number(readFileSync(timeFile, "utf8").trim().split("\n").at(-1));
      // The model's own time: the same requests, answered by the same testkit, with nothing around them.
      let modelMs = 0;
      kit.enqueue(...steps());
      for (const r of kit.requests.slice(before, before + 2)) {
        const t = process.hrtime.bigint();
        const res = await fetch(`${kit.url}${r.path}`, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer sk-bench-0000" }, body: r.rawBody });
        await res.arrayBuffer();
        modelMs += msSince(t);
      }
      if (i === 0) continue; // warm-up
      wall.push(ms);
      model.push(modelMs);
      overhead.push(ms - modelMs);
      rss.push(peakKb / 1024);
    }
  } finally {
    await kit.close();
    world.cleanup();
    rmSync(join(timeFile, ".."), { recursive: true, force: true });
  }
  return {
    row: 2,
    title,
    metrics: [
      metric("overhead (wall − model)", "ms", "lower", overhead, { goal: "≤ 250 ms" }),
      metric("wall", "ms", "lower", wall),
      metric("model's own time", "ms", "lower", model),
      metric("peak RSS", "MB", "lower", rss, { goal: "≤ 90 MB" }),
    ],
    note: useTime ? undefined : "peak RSS from /proc VmHWM polling (no /usr/bin/time)",
  };
}
