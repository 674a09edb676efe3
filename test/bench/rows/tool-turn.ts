// Row 22: the engine's cost of one tool turn in a resident session (issue 33, "Tool turn
// overhead with `exec_command true`"). Row 2 measures a whole `penguin run` process, which
// cannot go under node's own start; what a long working day pays per turn is this: a session
// opened once through the SDK (packages/core, as the server and the SDK users hold one), then
// N tasks, each the model calling `exec_command` with `true` and then answering (two requests
// to the testkit), with workspace checkpoints on (the default) and commands in bwrap (as
// `run` does where bwrap can run) and unsandboxed. Overhead = the task's wall − the model's
// own time (the same two requests sent to the same testkit by a plain fetch, right after);
// beside it the harness process's own CPU for the task less the refetch's (the testkit runs
// in this process), a figure machine load moves less than wall time.
// The phases come from the engine's own `penguin:tool-turn` diagnostics channel
// (packages/core src/engine/turn-timing.ts), which costs nothing unless someone subscribes.
import { spawnSync } from "node:child_process";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { probeSandbox, TOOL_TURN_CHANNEL, type Session, type ToolTurnMark } from "@penguin/core";
import { startTestkit, type ScriptStep } from "@penguin/testkit";
import { metric, msSince, type Metric, type RowResult } from "../lib/stats.js";
import { makeWorld } from "../lib/world.js";

type Kit = Awaited<ReturnType<typeof startTestkit>>;

const toolTurn = (): ScriptStep[] => [
  { toolCalls: [{ name: "exec_command", arguments: { cmd: "true", description: "nothing" } }], usage: { input: 500, output: 10 } },
  { text: "done", usage: { input: 600, output: 5 } },
];

/** The phases printed, as [label, from mark, to mark]; marks are ToolTurnMark names. */
const PHASES: [string, ToolTurnMark, ToolTurnMark][] = [
  ["task start → first request sent (task-start checkpoint, prompt, encode)", "task-start", "request-sent"],
  ["call complete in the stream → approved (hook/approval)", "call-complete", "approved"],
  ["approved → checkpoint before the call done", "approved", "checkpoint-before"],
  ["checkpoint before → command shell ready (capture, env)", "checkpoint-before", "shell-ready"],
  ["shell ready → child spawned (argv, bwrap mount table, spawn)", "shell-ready", "spawned"],
  ["spawned → child exited (bwrap's namespaces where sandboxed, `true`)", "spawned", "exited"],
  ["exited → output recorded (output capture, close-out)", "exited", "output"],
  ["output recorded → checkpoint after the call done", "output", "checkpoint-after"],
  ["checkpoint after → second request sent (trace commit, encode)", "checkpoint-after", "request-sent-2"],
  ["second answer ended → task done (trace close-out)", "answer-end", "task-end"],
];

/** Records the marks of one task: the first time each is seen (the second request's `request-sent` as `request-sent-2`). */
function markRecorder(): { marks: Map<string, number>; stop: () => void } {
  const marks = new Map<string, number>();
  const onMark = (message: unknown): void => {
    const { mark, at } = message as { mark: ToolTurnMark; at: number };
    if (mark === "request-sent" && marks.has("request-sent")) marks.set("request-sent-2", at);
    else if (mark === "request-end" && marks.has("request-sent-2")) marks.set("answer-end", at);
    else if (!marks.has(mark)) marks.set(mark, at);
  };
  subscribe(TOOL_TURN_CHANNEL, onMark);
  return { marks, stop: () => unsubscribe(TOOL_TURN_CHANNEL, onMark) };
}

async function drain(session: Session, text: string): Promise<void> {
  for await (const _ of session.run(text, { approve: async () => "allow" })) {
    // drain
  }
}

/** This process's CPU time (user + system) since `from`, in ms. */
function cpuSince(from: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
}

/** The model's own wall and CPU time for the last two requests: sent again by fetch to the same (in-process) testkit. */
async function modelTime(kit: Kit): Promise<{ ms: number; cpuMs: number }> {
  kit.enqueue(...toolTurn());
  let ms = 0;
  const cpu = process.cpuUsage();
  for (const r of kit.requests.slice(-2)) {
    const t = process.hrtime.bigint();
    const res = await fetch(`${kit.url}${r.path}`, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer sk-bench-0000" }, body: r.rawBody });
    await res.arrayBuffer();
    ms += msSince(t);
  }
  return { ms, cpuMs: cpuSince(cpu) };
}

function p99(samples: number[]): number[] {
  const s = [...samples].sort((a, b) => a - b);
  return s.length === 0 ? [] : [s[Math.min(s.length - 1, Math.ceil(s.length * 0.99) - 1)]!];
}

async function oneSession(tasks: number, sandboxed: boolean, metrics: Metric[], label: string): Promise<void> {
  const kit = await startTestkit();
  const world = await makeWorld(kit.baseUrl("openai-chat"));
  const overhead: number[] = [];
  const cpu: number[] = [];
  const phases = PHASES.map(() => [] as number[]);
  try {
    const session = await world.agent.createSession({ workspaceDir: world.workspace, ...(sandboxed ? { sandbox: { enabled: true } } : {}) });
    // The session's first command pays its one login-shell capture: a warm-up task, not counted.
    for (let i = -2; i < tasks; i++) {
      kit.enqueue(...toolTurn());
      const recorder = markRecorder();
      const startCpu = process.cpuUsage();
      const start = process.hrtime.bigint();
      await drain(session, "run true once");
      const wall = msSince(start);
      const taskCpu = cpuSince(startCpu);
      recorder.stop();
      const model = await modelTime(kit);
      // Drop what the refetch left and the kept requests (bodies grow with the session).
      kit.requests.splice(0);
      if (i < 0) continue;
      overhead.push(wall - model.ms);
      cpu.push(taskCpu - model.cpuMs);
      PHASES.forEach(([, from, to], k) => {
        const a = recorder.marks.get(from);
        const b = recorder.marks.get(to);
        if (a !== undefined && b !== undefined) phases[k]!.push(b - a);
      });
    }
    await session.dispose();
  } finally {
    await kit.close();
    world.cleanup();
  }
  metrics.push(metric(`${label}: overhead per tool turn (wall − model), median [min–max]`, "ms", "lower", overhead, { goal: "≤ 60 ms (issue 33)" }));
  metrics.push(metric(`${label}: overhead per tool turn, p99`, "ms", "lower", p99(overhead)));
  metrics.push(metric(`${label}: the harness's own CPU per tool turn (task − model, children not counted)`, "ms", "lower", cpu));
  PHASES.forEach(([name], k) => {
    if (phases[k]!.length > 0) metrics.push(metric(`${label} phase: ${name}`, "ms", "lower", phases[k]!));
  });
}

function timedShell(flag: "-lc" | "-c"): number {
  const start = process.hrtime.bigint();
  const r = spawnSync("bash", [flag, "true"], { stdio: "ignore" });
  if (r.status !== 0) throw new Error(`bash ${flag} true exited ${r.status}`);
  return msSince(start);
}

export async function rowToolTurn(tasks: number): Promise<RowResult> {
  const metrics: Metric[] = [];
  const bwrap = probeSandbox();
  if (bwrap.available) await oneSession(tasks, true, metrics, "sandboxed (bwrap)");
  await oneSession(tasks, false, metrics, "unsandboxed");
  const login: number[] = [];
  const plain: number[] = [];
  for (let i = 0; i < 5; i++) {
    login.push(timedShell("-lc"));
    plain.push(timedShell("-c"));
  }
  metrics.push(metric("beside it: one login shell, `bash -lc true`", "ms", "lower", login));
  metrics.push(metric("beside it: one plain shell, `bash -c true`", "ms", "lower", plain));
  return {
    row: 22,
    title: `Tool turn in a resident session (SDK, ${tasks} tasks of \`exec_command true\` + answer, checkpoints on)`,
    metrics,
    ...(bwrap.available ? {} : { note: `sandboxed figures n/a: ${bwrap.reason}` }),
  };
}
