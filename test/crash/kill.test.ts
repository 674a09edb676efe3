// Crash safety by fault injection (the durability rule: a crash loses at most the uncommitted tail of a request): scripted sessions run in child
// processes and are SIGKILLed at random moments — mid-stream (paced model deltas), mid-tool
// (a sleeping exec_command), mid-write (turns of many fast tool calls, so the trace is being
// appended), mid-compaction (a small window, so every turn compacts) and around resume
// snapshots (tasks of one tool turn, the child writing the trace file's resume snapshot at
// every task's end, so a kill can land while one is written or just after) and mid-checkpoint
// (every tool call changes 41 files, so a kill can land while a workspace checkpoint's pack is
// written; every checkpoint the trace names must then restore). Each killed session
// is then resumed here, through core, and must: resume without error; keep every turn the
// trace had committed (`request_end completed`) before the kill, with its recorded tool
// outputs; send a next request that passes both our strict pairing invariant and the
// testkit's check; and leave at most one torn line per trace file. Where a resume snapshot is
// beside the trace, the fold resume starts from it must equal the fold of the whole file.
//
// Not part of `npm test`: it skips itself unless PENGUIN_CRASH=1 (set by `npm run test:crash`
// and `npm run soak` through test/crash/crash.vitest.config.ts). PENGUIN_CRASH_KILLS sets the
// number of SIGKILLs (default 200), PENGUIN_CRASH_SEED the seed (printed; every kill's mode,
// protocol and delay derive from it), PENGUIN_CRASH_ONLY=<n> replays kill n alone. A child
// hosts PENGUIN_CRASH_SESSIONS sessions (default 2), so one kill interrupts each of them at
// an unrelated moment; PENGUIN_CRASH_JOBS children run at once (default 3).
//
// PENGUIN_CRASH_PLANT=drop-last-turn|drop-placeholders swaps a deliberately broken replay in
// (vi.mock below), to show that the checks catch a lost turn and a broken pairing. Problems
// listed in KNOWN (reported, with a deterministic test) are printed but do not fail the run
// unless PENGUIN_CRASH_STRICT=1.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it, vi } from "vitest";
import { seededRandom, startTestkit, WIRE_PROTOCOLS, type RecordedRequest, type ScriptedTurn, type Testkit, type WireProtocol } from "@penguin/testkit";
import type { OmniMessage } from "@penguin/omnimessage";
import { createAgent } from "../../packages/core/src/agent.js";
import { writeProjectConfig } from "../../packages/core/src/state/project-config.js";
import { parseTraceText, readTraceFile, resumeSnapshotFile, sessionTraceFiles } from "../../packages/core/src/trace/reader.js";
import { comparableFold, foldTrace, readForResume, WorkspaceCheckpoints } from "@penguin/trace";
import { pairingProblems } from "../fuzz/core/pairing-invariant.js";
import { committedTurns, lostTurns } from "../fuzz/core/trace-oracle.js";
import { childCommand } from "./bundle-child.js";

vi.mock("../../packages/core/src/trace/replay.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../packages/core/src/trace/replay.js")>();
  const plant = process.env.PENGUIN_CRASH_PLANT;
  if (plant === undefined || plant === "") return real;
  return {
    ...real,
    replayTrace: (...args: Parameters<typeof real.replayTrace>) => {
      const r = real.replayTrace(...args);
      if (plant === "drop-last-turn") return { ...r, history: r.history.slice(0, -1) };
      if (plant === "drop-placeholders") {
        const isPlaceholder = (m: OmniMessage) => m.type === "model_msg" && m.payload.type === "tool_call_output" && m.payload.output.startsWith("[interrupted:");
        return { ...r, carryOver: r.carryOver.filter((m) => !isPlaceholder(m)) };
      }
      throw new Error(`unknown PENGUIN_CRASH_PLANT ${plant}`);
    },
  };
});

const ENABLED = process.env.PENGUIN_CRASH === "1";
/**
 * Problems already reported and reproduced deterministically elsewhere: printed, but not
 * failing the run unless PENGUIN_CRASH_STRICT=1 (they are rare — 2 in 2000 kills — and would
 * make CI red at random). Remove an entry once its deterministic test stops failing.
 */
const KNOWN: { name: string; test: string; match: RegExp }[] = [
  // (empty) "kill while a rotated trace file gets its session_meta" was fixed: see
  // packages/core/test/crash/torn-header.test.ts.
];
const STRICT = process.env.PENGUIN_CRASH_STRICT === "1";
const KILLS = Number(process.env.PENGUIN_CRASH_KILLS ?? 200);
const SEED = Number(process.env.PENGUIN_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
const ONLY = process.env.PENGUIN_CRASH_ONLY === undefined ? undefined : Number(process.env.PENGUIN_CRASH_ONLY);
const SESSIONS = Number(process.env.PENGUIN_CRASH_SESSIONS ?? 2);
const JOBS = Number(process.env.PENGUIN_CRASH_JOBS ?? 3);
/** The kill lands this long (uniform, ms) after every session of the child has sent its first request. */
const MAX_DELAY_MS = 1500;

const MODES = ["stream", "tool", "write", "compaction", "snapshot", "checkpoint"] as const;
type Mode = (typeof MODES)[number];

const CHECK_PROMPT = "crash-check: the harness restarted, say what you see";
const BIG = { input: 7000, output: 10 };
const SMALL = { input: 300, output: 10 };
const FILLER = "The quick brown penguin jumps over the lazy trace writer; ünïcödé ✓ 终 😀. ".repeat(5);

interface Plan {
  kill: number;
  delayMs: number;
  slots: { mode: Mode; protocol: WireProtocol }[];
}

/** Every kill's parameters from the seed, drawn in order so any kill can be replayed alone. */
function plans(seed: number, kills: number): Plan[] {
  const random = seededRandom(seed);
  return Array.from({ length: kills }, (_, kill) => ({
    kill,
    slots: Array.from({ length: SESSIONS }, () => ({
      mode: MODES[Math.floor(random() * MODES.length)]!,
      protocol: WIRE_PROTOCOLS[Math.floor(random() * WIRE_PROTOCOLS.length)]!,
    })),
    delayMs: Math.floor(random() * MAX_DELAY_MS),
  }));
}

const userTexts = (r: RecordedRequest) => r.messages.filter((m) => m.role === "user" && m.kind === "text").map((m) => m.text ?? "");
const isCompactionRequest = (r: RecordedRequest) => userTexts(r).some((t) => t.includes("[summary]") && /summar/i.test(t));
const isCheckRequest = (r: RecordedRequest) => userTexts(r).at(-1) === CHECK_PROMPT;

/** The model: one answer per request, chosen from what the request is; every turn calls a tool so tasks never end, but in the snapshot mode. */
function modelFor(mode: Mode, tag: string) {
  let n = 0;
  return (r: RecordedRequest): ScriptedTurn => {
    n += 1;
    if (isCompactionRequest(r)) return { text: `[summary]\nGoal: keep working (${tag} step ${n}).\n[/summary]`, usage: SMALL, chunkSize: 4, delayMs: mode === "compaction" ? 4 : 0 };
    if (isCheckRequest(r)) return { text: `checked ${tag}`, usage: SMALL };
    const text = `${tag} turn ${n}`;
    const read = { name: "read_file", arguments: { file_path: "notes.txt" } };
    switch (mode) {
      case "stream":
        return { thinking: `thinking about ${text}. ${FILLER}`, text: `${text}. ${FILLER}`, toolCalls: [read], chunkSize: 6, delayMs: 2, usage: SMALL };
      case "tool":
        return { text, toolCalls: [{ name: "exec_command", arguments: { cmd: `sleep 0.3; echo ran ${n}`, description: "wait a bit" } }], usage: SMALL };
      case "write":
        return { text, toolCalls: Array.from({ length: 8 }, () => read), usage: SMALL };
      case "compaction":
        return { text, toolCalls: [read], usage: BIG };
      case "checkpoint":
        // Many files and a bigger one change at every tool call: a kill lands while a checkpoint's pack is written.
        return { text, toolCalls: [{ name: "exec_command", arguments: { cmd: `for i in $(seq 1 40); do echo ${n} > f$i.txt; done; head -c 300000 /dev/urandom > blob.bin`, description: "write files" } }], usage: SMALL };
      case "snapshot":
        // A task of one tool turn: after the tools' results the answer ends it, and the child's
        // session writes the file's snapshot then.
        return r.messages.at(-1)?.kind === "tool_result" ? { text: `${text}: done`, usage: SMALL } : { text, toolCalls: Array.from({ length: 3 }, () => read), usage: SMALL };
    }
  };
}

/** Where the kill landed, read from the trace (for the printed distribution only). */
function phaseOf(messages: OmniMessage[]): string {
  let open: string | undefined;
  let compacting = false;
  const calls = new Set<string>();
  for (const m of messages) {
    if (m.type === "model_msg" && m.payload.type === "tool_call") calls.add(m.payload.tool_call_id);
    if (m.type === "model_msg" && m.payload.type === "tool_call_output") calls.delete(m.payload.tool_call_id);
    if (m.type !== "event_msg") continue;
    const t = m.payload.type;
    if (t === "compaction_begin") compacting = true;
    if (t === "compaction_end") compacting = false;
    if (t === "request_begin") open = "request";
    if (t === "request_end") open = undefined;
  }
  if (compacting) return "mid-compaction";
  if (open !== undefined) return "mid-request";
  if (calls.size > 0) return "mid-tool";
  return "between-records";
}

interface SlotRun {
  mode: Mode;
  protocol: WireProtocol;
  kit: Testkit;
  root: string;
  workspace: string;
  sessionId?: string;
}

async function prepareSlot(mode: Mode, protocol: WireProtocol, tag: string): Promise<SlotRun> {
  const kit = await startTestkit();
  kit.enqueue(...Array.from({ length: 5000 }, () => modelFor(mode, tag)));
  const root = mkdtempSync(join(tmpdir(), "penguin-crash-root-"));
  const workspace = mkdtempSync(join(tmpdir(), "penguin-crash-ws-"));
  writeFileSync(join(workspace, "notes.txt"), `notes for ${tag}\n${FILLER}\n`);
  const agent = await createAgent({ root, env: {} });
  writeProjectConfig(agent.paths.projectConfig, {
    default_model: { provider: "testkit", model_id: "crash-model" },
    models: [
      {
        provider: "testkit",
        model_id: "crash-model",
        client_type: protocol,
        base_url: kit.baseUrl(protocol),
        api_key: "sk-crash-0000",
        context_window: mode === "compaction" ? 8192 : 128000,
      },
    ],
  });
  return { mode, protocol, kit, root, workspace };
}

/** Spawn the child, wait for every session's first request, sleep `delayMs`, SIGKILL. */
async function runAndKill(childArgs: string[], slots: SlotRun[], delayMs: number): Promise<void> {
  const spec = slots.map((s) => ({ root: s.root, workspace: s.workspace, prompt: `keep working on notes.txt (${s.mode})`, ...(s.mode === "snapshot" ? { snapshotLines: 1 } : {}) }));
  // The child's commands get a home of their own: a SIGKILL can land while a login shell runs
  // the machine's profile, and killing that half way can leave the user's tools locked (pyenv's
  // rehash lock made every later login shell on this machine wait 60 s).
  const home = mkdtempSync(join(tmpdir(), "penguin-crash-home-"));
  const child = spawn(process.execPath, [...childArgs, JSON.stringify(spec)], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, HOME: home } });
  child.once("exit", () => rmSync(home, { recursive: true, force: true }));
  let out = "";
  let err = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
    for (const [, slot, id] of out.matchAll(/^READY (\d+) (\S+)$/gm)) slots[Number(slot)]!.sessionId = id;
  });
  const started = Promise.all(slots.map((s) => s.kit.waitForRequests(1)));
  const early = exited.then((code) => {
    throw new Error(`child exited before the kill (code ${code}): ${out}\n${err}`);
  });
  try {
    await Promise.race([started, early]);
    await Promise.race([new Promise((r) => setTimeout(r, delayMs)), early]);
  } finally {
    early.catch(() => undefined);
    child.kill("SIGKILL");
    await exited;
  }
}

function tornLines(file: string): number {
  return parseTraceText(readFileSync(file, "utf8")).skipped.length;
}

/**
 * Every workspace checkpoint the trace names must restore: its pack was durable before the
 * line was written. Each is restored into an empty folder, which must then scan to the same tree.
 */
function checkpointProblems(paths: { checkpointsDir: string }, sessionId: string): string[] {
  const problems: string[] = [];
  const trees = sessionTraceFiles(paths as Parameters<typeof sessionTraceFiles>[0], sessionId).flatMap((f) =>
    parseTraceText(readFileSync(f.file, "utf8")).messages.flatMap((m) => (m.type === "event_msg" && m.payload.type === "workspace_checkpoint" ? [m.payload.tree] : [])),
  );
  for (const tree of trees) {
    const folder = mkdtempSync(join(tmpdir(), "penguin-crash-restore-"));
    try {
      new WorkspaceCheckpoints(paths.checkpointsDir, folder).restore(tree);
      const again = new WorkspaceCheckpoints(paths.checkpointsDir, folder).take();
      if (again?.tree !== tree) problems.push(`checkpoint ${tree} restored to another tree (${again?.tree ?? "none"})`);
    } catch (error) {
      problems.push(`checkpoint ${tree} named in the trace does not restore: ${String(error)}`);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }
  return problems;
}

/** Resume one killed session and run the checks; returns the problems found. */
async function checkSlot(slot: SlotRun, phases: Map<string, number>): Promise<string[]> {
  const problems: string[] = [];
  const sessionId = slot.sessionId;
  if (sessionId === undefined) return ["the child never reported its session id"];
  const agent = await createAgent({ root: slot.root, env: {} });
  const files = sessionTraceFiles(agent.paths, sessionId);
  const last = files.at(-1);
  if (last === undefined) return ["no trace file after the kill"];
  for (const f of files) if (tornLines(f.file) > 1) problems.push(`${f.file} has ${tornLines(f.file)} skipped lines after the kill`);
  problems.push(...checkpointProblems(agent.paths, sessionId));
  const before = parseTraceText(readFileSync(last.file, "utf8")).messages;
  // The snapshot a kill left (if any) must describe the file: resume trusts it and folds the rest.
  const fromSnapshot = existsSync(resumeSnapshotFile(last.file)) ? readForResume(last.file, { minLines: Number.MAX_SAFE_INTEGER }) : undefined;
  if (fromSnapshot !== undefined && fromSnapshot.fromSnapshot > 0 && !isDeepStrictEqual(comparableFold(fromSnapshot.state), comparableFold(foldTrace(readTraceFile(last.file).messages)))) {
    problems.push(`the fold from the resume snapshot (${fromSnapshot.fromSnapshot} lines) differs from the whole file's fold`);
  }
  const phase = `${slot.mode}/${phaseOf(before)}${fromSnapshot === undefined ? "" : fromSnapshot.fromSnapshot > 0 ? "+snapshot" : "+stale-snapshot"}`;
  phases.set(phase, (phases.get(phase) ?? 0) + 1);
  const committed = committedTurns(before);

  let session;
  try {
    session = await agent.resumeSession({ sessionId });
  } catch (error) {
    return [...problems, `resume failed: ${String(error)}`];
  }
  try {
    const history = session.history();
    const next = [...history, ...session.carryOver()];
    problems.push(...pairingProblems(next).map((p) => `pairing after resume: ${p}`));
    problems.push(...lostTurns(committed, history, session.carryOver()));

    const sentBefore = slot.kit.requests.length;
    const answer: OmniMessage[] = [];
    for await (const m of session.run(CHECK_PROMPT, { approve: async () => "allow" })) answer.push(m);
    const aborted = answer.find((m) => m.type === "event_msg" && m.payload.type === "abort");
    if (aborted !== undefined) problems.push(`the run after resume stopped: ${JSON.stringify(aborted.payload)}`);
    const firstSent = slot.kit.requests[sentBefore];
    if (firstSent === undefined) problems.push("no request after resume");
    else {
      const wireTexts = new Set(firstSent.messages.filter((m) => m.role === "assistant" && m.kind === "text").map((m) => m.text ?? ""));
      for (const t of committed.texts) if (!wireTexts.has(t)) problems.push(`committed text missing from the next request: ${t.slice(0, 60)}`);
    }
    problems.push(...slot.kit.violations.map((v) => `testkit violation at request ${v.requestIndex}: ${v.message}`));
  } finally {
    await session.dispose();
  }
  for (const f of sessionTraceFiles(agent.paths, sessionId)) if (tornLines(f.file) > 1) problems.push(`${f.file} has ${tornLines(f.file)} skipped lines after the resumed run`);
  return problems;
}

async function runPlan(childArgs: string[], plan: Plan, phases: Map<string, number>): Promise<string[]> {
  const slots = await Promise.all(plan.slots.map((s, i) => prepareSlot(s.mode, s.protocol, `k${plan.kill}s${i}`)));
  try {
    await runAndKill(childArgs, slots, plan.delayMs);
    const found: string[] = [];
    for (const [i, slot] of slots.entries()) {
      const problems = await checkSlot(slot, phases);
      found.push(...problems.map((p) => `kill ${plan.kill} session ${i} (${slot.mode}, ${slot.protocol}, +${plan.delayMs} ms): ${p}`));
    }
    return found;
  } catch (error) {
    return [`kill ${plan.kill}: ${String(error)}`];
  } finally {
    for (const slot of slots) {
      await slot.kit.close();
      rmSync(slot.root, { recursive: true, force: true });
      rmSync(slot.workspace, { recursive: true, force: true });
    }
  }
}

describe.skipIf(!ENABLED)("crash safety: SIGKILL at random moments, then resume", () => {
  it(`survives ${ONLY === undefined ? KILLS : 1} kills (seed ${SEED})`, async () => {
    const all = plans(SEED, ONLY === undefined ? KILLS : ONLY + 1);
    const todo = ONLY === undefined ? all : all.slice(ONLY);
    const child = await childCommand();
    process.stdout.write(
      `crash test: seed ${SEED}, ${todo.length} kills, ${SESSIONS} sessions per child, ${JOBS} children at once, ${child.bundled ? "bundled" : "tsx"} child (replay: PENGUIN_CRASH_SEED=${SEED})\n`,
    );
    const phases = new Map<string, number>();
    const failures: string[] = [];
    let nextIndex = 0;
    const worker = async () => {
      for (let i = nextIndex++; i < todo.length; i = nextIndex++) failures.push(...(await runPlan(child.args, todo[i]!, phases)));
    };
    try {
      await Promise.all(Array.from({ length: Math.min(JOBS, todo.length) }, worker));
    } finally {
      child.cleanup();
    }
    const summary = [...phases].sort().map(([k, v]) => `${k}=${v}`).join(" ");
    const known = STRICT ? [] : failures.filter((f) => KNOWN.some((k) => k.match.test(f)));
    const unknown = failures.filter((f) => !known.includes(f));
    process.stdout.write(`crash test: seed ${SEED}: ${todo.length} kills, ${unknown.length} problems, ${known.length} known; where the kills landed: ${summary}\n`);
    for (const f of known) process.stdout.write(`crash test: KNOWN BUG (see ${KNOWN.find((k) => k.match.test(f))?.test}): ${f}\n`);
    expect(unknown, `seed ${SEED}; replay one kill with PENGUIN_CRASH_SEED=${SEED} PENGUIN_CRASH_ONLY=<n>`).toEqual([]);
  }, 60 * 60 * 1000);
});
