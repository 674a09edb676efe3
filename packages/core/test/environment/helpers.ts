// Test support for the Environment suites: a real Environment in a fresh temp workspace,
// a runner that drives `executeTool` and checks the framing invariants on every call, and a
// `ps` probe for leftover processes (found by a unique marker in their command line).
import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { isModel, type OmniMessage, type StopReason, type ToolCallOutputPayload } from "@penguin/omnimessage";
import {
  createEnvironment,
  localFileOperations,
  type Environment,
  type EnvironmentConfig,
  type FileOperations,
  type TimeoutScheduler,
} from "../../src/environment/index.js";
import { commandsSandboxed, testSandbox } from "../helpers/sandbox-mode.js";

export interface Sandbox {
  env: Environment;
  workspace: string;
  scratchpad: string;
  cleanup: () => Promise<void>;
}

/**
 * A real Environment over a fresh workspace and scratchpad. In a sandboxed run (see
 * sandbox-mode.ts) its commands run in bwrap with the temp root hidden, and with HOME set to
 * the temp root: the system is read-only in the sandbox, and a host login profile that writes
 * under HOME (pyenv's rehash, say) would add its complaint to every output the tests compare.
 */
export function sandbox(config: Partial<EnvironmentConfig> = {}): Sandbox {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "penguin-env-")));
  const workspace = join(root, "workspace");
  const scratchpad = join(root, "scratchpad", "session-test");
  execFileSync("mkdir", ["-p", workspace, scratchpad]);
  const confined = commandsSandboxed()
    ? { sandbox: testSandbox({ hiddenRoot: root, workspace, scratchpad }), baseEnv: { ...(config.baseEnv ?? process.env), HOME: root } }
    : {};
  const env = createEnvironment({ workspaceDir: workspace, scratchpadDir: scratchpad, ...config, ...confined });
  return {
    env,
    workspace,
    scratchpad,
    cleanup: async () => {
      reapMarkedProcesses(); // a failed test must not leave sleepers (or a dispose waiting on them)
      await env.dispose();
      await rm(root, { recursive: true, force: true });
    },
  };
}

let callCounter = 0;

export interface CallResult {
  messages: OmniMessage[];
  final: ToolCallOutputPayload;
  output: string;
  stopReason: StopReason | undefined;
  /** Concatenated delta outputs (must equal `output`). */
  streamed: string;
}

/** Checks start → delta* → stop → complete, deltas concatenating to the output. */
export function expectWellFramed(messages: OmniMessage[], toolCallId: string): CallResult {
  const partials = messages.filter((m) => isModel(m, "partial_tool_call_output"));
  const completes = messages.filter((m) => isModel(m, "tool_call_output"));
  expect(completes).toHaveLength(1);
  expect(messages[messages.length - 1]).toBe(completes[0]);
  const finalMessage = completes[0];
  if (finalMessage === undefined || !isModel(finalMessage, "tool_call_output")) throw new Error("no complete output");
  const final = finalMessage.payload;
  expect(final.tool_call_id).toBe(toolCallId);
  const events = partials.map((m) => (isModel(m, "partial_tool_call_output") ? m.payload : undefined));
  expect(events[0]?.event_type).toBe("start");
  expect(events[events.length - 1]?.event_type).toBe("stop");
  expect(events.slice(1, -1).every((p) => p?.event_type === "delta")).toBe(true);
  expect(events.every((p) => p?.tool_call_id === toolCallId)).toBe(true);
  const streamed = events.map((p) => p?.output ?? "").join("");
  expect(streamed).toBe(final.output);
  expect(events[events.length - 1]?.stop_reason).toBe(final.stop_reason);
  const streamedImages = events.flatMap((p) => p?.images ?? []);
  expect(streamedImages).toEqual(final.images ?? []);
  expect(final.output).not.toBe("");
  return { messages, final, output: final.output, stopReason: final.stop_reason, streamed };
}

export interface RunOptions {
  signal?: AbortSignal;
  id?: string;
  /** Called with each message as it arrives (to abort at a chosen moment). */
  onMessage?: (m: OmniMessage) => void;
  /** Raw arguments string instead of JSON-encoding `args`. */
  raw?: string;
}

/** Runs one tool call through `executeTool` and checks its framing. */
export async function call(env: Environment, name: string, args: unknown, options: RunOptions = {}): Promise<CallResult> {
  callCounter += 1;
  const id = options.id ?? `call_${callCounter}`;
  const messages: OmniMessage[] = [];
  const toolCall = {
    type: "tool_call" as const,
    role: "assistant" as const,
    name,
    arguments: options.raw ?? JSON.stringify(args),
    tool_call_id: id,
  };
  const input = options.signal === undefined ? { toolCall } : { toolCall, signal: options.signal };
  for await (const m of env.executeTool(input)) {
    messages.push(m);
    options.onMessage?.(m);
  }
  return expectWellFramed(messages, id);
}

/** The text of a delta, if `m` is one. */
export function deltaText(m: OmniMessage): string | undefined {
  return isModel(m, "partial_tool_call_output") && m.payload.event_type === "delta" ? m.payload.output : undefined;
}

const markers = new Set<string>();

/** A string unique to one test, used as a `sleep` duration so it shows in `ps` for every process. */
export function sleepMarker(): string {
  const marker = `${4000 + Math.floor(Math.random() * 5000)}.${String(Math.floor(Math.random() * 1e6)).padStart(6, "0")}`;
  markers.add(marker);
  return marker;
}

/** SIGKILLs, by pid, any live process carrying a marker this worker handed out. */
function reapMarkedProcesses(): void {
  for (const marker of markers) {
    for (const line of leftovers(marker)) {
      const pid = Number(line.trim().split(/\s+/)[0]);
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }
}

/** Live (non-zombie) processes whose command line contains `marker`. */
export function leftovers(marker: string): string[] {
  const table = execFileSync("ps", ["-eo", "pid,pgid,stat,args"], { encoding: "utf8" });
  return table
    .split("\n")
    .filter((line) => line.includes(marker))
    .filter((line) => !/^\s*\d+\s+\d+\s+Z/.test(line))
    .filter((line) => !line.includes("ps -eo"));
}

/** Polls `check` every 20 ms until it holds (bounded by the test's own timeout). */
export async function waitUntil(check: () => boolean, what: string, maxMs = 10_000): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Polls a background command with input_command until `text` shows in what was read (`first`,
 * the answer of the write that caused it, included): each poll returns as soon as there is
 * new output or the process exits, so this waits for the output itself, never a fixed window
 * (on a loaded machine an echo or a trap can take longer than any window). Bounded by the
 * test's own timeout.
 */
export async function readUntil(env: Environment, id: string, first: string, text: string): Promise<string> {
  let seen = first;
  while (!seen.includes(text)) seen += (await call(env, "input_command", { process_id: id, description: "poll" })).output;
  return seen;
}

/** What `readUntil` read, without the "still running" reports each answer ends with. */
export function withoutRunningNotes(read: string, id: string): string {
  return read.replaceAll(`[process ${id} is still running]`, "");
}

/** The process id an exec_command output announced. */
export function processIdOf(output: string): string {
  const match = /process_id (p\d+)/.exec(output);
  if (match === null || match[1] === undefined) throw new Error(`no process_id in: ${output}`);
  return match[1];
}

/**
 * A disk that never answers one operation: the call waits until its signal fires, then
 * fails like an aborted read would. The seam is the one a remote filesystem plugs into;
 * it is how a hung mount is reproduced without waiting real seconds.
 */
export function stalledDisk(op: "readBytes" | "writeAtomic"): { operations: FileOperations; entered: Promise<void> } {
  let enter: () => void = () => undefined;
  const entered = new Promise<void>((resolve) => {
    enter = resolve;
  });
  const stall = (signal: AbortSignal): Promise<never> =>
    new Promise((_resolve, reject) => {
      enter();
      signal.addEventListener("abort", () => reject(new Error("stalled operation aborted")), { once: true });
    });
  const operations: FileOperations =
    op === "readBytes"
      ? { ...localFileOperations, readBytes: (_path, _max, signal) => stall(signal) }
      : { ...localFileOperations, writeAtomic: (_path, _data, options) => stall(options.signal) };
  return { operations, entered };
}

/** Per-tool timeouts that fire only when the test says so (`fire()`), never by the clock. */
export function manualTimeouts(): { scheduleTimeout: TimeoutScheduler; fire: () => void; armed: () => number } {
  const armed = new Set<() => void>();
  return {
    scheduleTimeout: (_ms, fire) => {
      armed.add(fire);
      return () => armed.delete(fire);
    },
    fire: () => {
      for (const f of [...armed]) f();
    },
    armed: () => armed.size,
  };
}
