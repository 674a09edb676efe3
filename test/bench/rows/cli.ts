// Rows 1 and 2: the built CLI as a user starts it. Row 1 times `penguin --help` against bare
// `node -e 0`, alternating the two so machine load hits both alike. Row 2 runs `penguin run`
// for one text-only turn and for one turn with a tool call against an in-process testkit,
// beside `node -e 0`, under /usr/bin/time for the child's peak RSS (VmHWM polling where
// time(1) is missing); see rowCliRun. Both need the bundled CLI, apps/cli/bundle/main.js
// (`npm run build`).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startTestkit, type ScriptStep } from "@penguin/testkit";
import { metric, msSince, type RowResult } from "../lib/stats.js";
import { makeWorld } from "../lib/world.js";

/** The built CLI; PENGUIN_BENCH_CLI points rows 1 and 2 at another build (another checkout's bundle) to compare two builds in one run's conditions. */
export const CLI_MAIN = process.env.PENGUIN_BENCH_CLI ?? fileURLToPath(new URL("../../../apps/cli/bundle/main.js", import.meta.url));
const TIME = "/usr/bin/time";

export function cliBuilt(): boolean {
  return existsSync(CLI_MAIN);
}

/** Wall time of `bash <flag> true` in `env`: the cost of one login shell (`-lc`) or one plain shell (`-c`). */
function timedShell(flag: "-lc" | "-c", env: NodeJS.ProcessEnv): number {
  const start = process.hrtime.bigint();
  const r = spawnSync("bash", [flag, "true"], { stdio: "ignore", env });
  if (r.status !== 0) throw new Error(`bash ${flag} true exited ${r.status}`);
  return msSince(start);
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
    metrics: [metric("penguin --help", "ms", "lower", cli, { baseline: { name: "node -e 0", samples: bare }, goal: "≤ 1.5× node -e 0" })],
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

/** One `penguin run` child: wall ms, peak RSS in MiB, and the wall clock at its start and end (epoch ms, for the trace's timestamps). */
async function timedRun(args: string[], env: NodeJS.ProcessEnv, timeFile: string): Promise<{ ms: number; rssMiB: number; startedAt: number; endedAt: number }> {
  const useTime = existsSync(TIME);
  const startedAt = Date.now();
  const start = process.hrtime.bigint();
  const child = useTime ? spawn(TIME, ["-f", "%M", "-o", timeFile, process.execPath, ...args], { env, stdio: "ignore" }) : spawn(process.execPath, args, { env, stdio: "ignore" });
  let peakKb = 0;
  const stop = useTime ? () => undefined : pollPeak(child.pid ?? 0, (kb) => (peakKb = Math.max(peakKb, kb)));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  const ms = msSince(start);
  const endedAt = Date.now();
  stop();
  if (code !== 0) throw new Error(`penguin ${args.slice(1).join(" ")} exited ${code}`);
  if (useTime) peakKb = Number(readFileSync(timeFile, "utf8").trim().split("\n").at(-1));
  return { ms, rssMiB: peakKb / 1024, startedAt, endedAt };
}

/** The phases of one tool turn, in ms, read off its trace's timestamps (ms resolution) and the child's start and end. */
const PHASES = [
  ["start → session opened (CLI start, config, sandbox probe)", "start"],
  ["session opened → first request sent (tool list, prompt)", "open"],
  ["first request (the answer streamed; the call's approval, checkpoint and shell capture may start before its end is recorded)", "request1"],
  ["the tool: first request's end → output recorded (checkpoint, shell capture, bwrap, command)", "tool"],
  ["output → second request, and the second request", "request2"],
  ["last answer → exit (trace closed, stats printed)", "exit"],
] as const;
type Phase = (typeof PHASES)[number][1];

/** The newest trace file under `root` (each `penguin run` writes a session of its own). */
function newestTrace(root: string): string | undefined {
  let newest: { file: string; mtime: number } | undefined;
  for (const name of readdirSync(root, { recursive: true }) as string[]) {
    if (!name.endsWith(".jsonl") || !name.includes("traces")) continue;
    const file = join(root, name);
    const mtime = statSync(file).mtimeMs;
    if (newest === undefined || mtime > newest.mtime) newest = { file, mtime };
  }
  return newest?.file;
}

/** The tool turn's phases from its trace: undefined when the trace does not have the expected shape. */
function toolTurnPhases(root: string, run: { startedAt: number; endedAt: number }): Record<Phase, number> | undefined {
  const file = newestTrace(root);
  if (file === undefined) return undefined;
  const at = (pred: (r: { type: string; payload: { type?: string } }) => boolean, from = 0): { i: number; t: number } | undefined => {
    for (let i = from; i < records.length; i++) if (pred(records[i]!)) return { i, t: Date.parse(records[i]!.timestamp) };
    return undefined;
  };
  const records = readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as { timestamp: string; type: string; payload: { type?: string } });
  const meta = at((r) => r.type === "session_meta");
  const begin1 = at((r) => r.payload.type === "request_begin");
  const end1 = begin1 && at((r) => r.payload.type === "request_end", begin1.i);
  const output = end1 && at((r) => r.payload.type === "tool_call_output");
  const end2 = output && at((r) => r.payload.type === "request_end", output.i);
  if (!meta || !begin1 || !end1 || !output || !end2) return undefined;
  return {
    start: meta.t - run.startedAt,
    open: begin1.t - meta.t,
    request1: end1.t - begin1.t,
    tool: output.t - end1.t,
    request2: end2.t - output.t,
    exit: run.endedAt - end2.t,
  };
}

/**
 * Row 2: `penguin run` for one turn against an in-process testkit (an instant model), in two
 * shapes, each child alternated with a bare `node -e 0` so load hits all alike:
 * - the text-only turn (one request, the answer is text): what the goal
 *   "`penguin run`, one turn, instant model: ≤ 3.3× `node -e 0`, peak RSS ≤ 80 MiB" is judged on;
 * - the tool turn (the model calls `exec_command` with `true`, then answers): two requests and
 *   one command, which is the session's first: it pays the one login shell that captures the
 *   session's environment, then `bash -c` (later commands of a session pay `bash -c` only).
 *   Beside it, from the same iterations, what one `bash -lc true` and one `bash -c true` cost
 *   on this machine: the login profile's price, paid once per session now, per command before.
 * The overhead of the tool turn is its wall time minus the model's own time (the same recorded
 * requests sent to the same testkit with a plain fetch); what the tool call itself adds is that
 * overhead less the text turn's (both pay the CLI's start). The tool turn's phases are read off
 * its trace's timestamps (ms resolution) and the child's start and exit: where the time goes
 * without a profiler in the child.
 */
export async function rowCliRun(runs: number): Promise<RowResult> {
  const title = "`penguin run`, one turn against the testkit (instant model)";
  if (!cliBuilt()) return { row: 2, title, metrics: [], note: "n/a (CLI not built: run `npx tsc -b`)" };
  const kit = await startTestkit();
  const world = await makeWorld(kit.baseUrl("openai-chat"));
  const textTurn = (): ScriptStep[] => [{ text: "done", usage: { input: 600, output: 5 } }];
  const toolTurn = (): ScriptStep[] => [{ toolCalls: [{ name: "exec_command", arguments: { cmd: "true", description: "nothing" } }], usage: { input: 500, output: 10 } }, { text: "done", usage: { input: 600, output: 5 } }];
  const timeFile = join(mkdtempSync(join(tmpdir(), "penguin-bench-time-")), "rss");
  const args = (prompt: string) => [CLI_MAIN, "run", "-m", prompt, "--approve", "allow-all", "--workspace", world.workspace];
  const bare: number[] = [];
  const text = { wall: [] as number[], rss: [] as number[] };
  const tool = { wall: [] as number[], rss: [] as number[], overhead: [] as number[], model: [] as number[], extra: [] as number[] };
  const phases = Object.fromEntries(PHASES.map(([, key]) => [key, [] as number[]])) as Record<Phase, number[]>;
  const shells = { login: [] as number[], plain: [] as number[] };
  try {
    for (let i = 0; i <= runs; i++) {
      const bareMs = timedSpawn(["-e", "0"]);
      const loginMs = timedShell("-lc", world.env);
      const plainMs = timedShell("-c", world.env);

      kit.enqueue(...textTurn());
      const textRun = await timedRun(args("say done"), world.env, timeFile);

      kit.enqueue(...toolTurn());
      const before = kit.requests.length;
      const toolRun = await timedRun(args("run true once"), world.env, timeFile);
      const split = toolTurnPhases(world.root, toolRun);
      // The model's own time: the same requests, answered by the same testkit, with nothing around them.
      let modelMs = 0;
      let textModelMs = 0;
      kit.enqueue(...toolTurn(), ...textTurn());
      for (const r of [...kit.requests.slice(before, before + 2), kit.requests[before - 1]!]) {
        const t = process.hrtime.bigint();
        const res = await fetch(`${kit.url}${r.path}`, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer sk-bench-0000" }, body: r.rawBody });
        await res.arrayBuffer();
        if (r === kit.requests[before - 1]) textModelMs = msSince(t);
        else modelMs += msSince(t);
      }
      if (i === 0) continue; // warm-up
      bare.push(bareMs);
      shells.login.push(loginMs);
      shells.plain.push(plainMs);
      text.wall.push(textRun.ms);
      text.rss.push(textRun.rssMiB);
      tool.wall.push(toolRun.ms);
      tool.rss.push(toolRun.rssMiB);
      tool.model.push(modelMs);
      tool.overhead.push(toolRun.ms - modelMs);
      // What the tool call itself adds: the tool turn's overhead less the text turn's (both start the same CLI).
      tool.extra.push(toolRun.ms - modelMs - (textRun.ms - textModelMs));
      if (split !== undefined) for (const [, key] of PHASES) phases[key].push(split[key]);
    }
  } finally {
    await kit.close();
    world.cleanup();
    rmSync(join(timeFile, ".."), { recursive: true, force: true });
  }
  const baseline = { name: "node -e 0", samples: bare };
  return {
    row: 2,
    title,
    metrics: [
      metric("text-only turn: wall (the goal's figure)", "ms", "lower", text.wall, { baseline, goal: "≤ 3.3× node -e 0" }),
      metric("text-only turn: peak RSS", "MiB", "lower", text.rss, { goal: "≤ 80 MiB" }),
      metric("tool turn (exec_command `true`): wall", "ms", "lower", tool.wall, { baseline }),
      metric("tool turn: overhead (wall − model)", "ms", "lower", tool.overhead, { goal: "≤ 60 ms (issue 33)" }),
      metric("tool turn: what the tool call adds (its overhead − the text turn's)", "ms", "lower", tool.extra),
      metric("tool turn: model's own time", "ms", "lower", tool.model),
      metric("beside it: one login shell, `bash -lc true`", "ms", "lower", shells.login),
      metric("beside it: one plain shell, `bash -c true`", "ms", "lower", shells.plain),
      ...(phases.tool.length === 0 ? [] : PHASES.map(([name, key]) => metric(`tool turn phase: ${name}`, "ms", "lower", phases[key]))),
      metric("tool turn: peak RSS", "MiB", "lower", tool.rss),
    ],
    note: existsSync(TIME) ? undefined : "peak RSS from /proc VmHWM polling (no /usr/bin/time)",
  };
}
