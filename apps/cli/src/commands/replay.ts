/**
 * `penguin replay SID` and `penguin demo`: a recorded session re-executed through the real
 * engine (core's `agent.replay`), painted by the same HumanRenderer a live `penguin run`
 * uses, then the verdict.
 *
 * - `replay` takes a session id of the data root, or a folder of recorded traces (the
 *   fixtures under `fixtures/traces/<name>/`), `--tools rerun|recorded`, `--workspace DIR`
 *   (copied before the tools run again) and `--json` (one JSON line: the report). It ends with
 *   `identical` (exit 0) or `diverged at N: <what differs>` (exit 1), so any trace can be an
 *   agent regression test in CI.
 * - `demo` replays the shipped demo session with its tools re-run in a temporary workspace,
 *   at a readable pace (`--fast` for none). It needs no model, no key and no network, writes
 *   a real trace into the data root, and ends with what to try next. Its tools run as the
 *   recording decided (every call there was allowed) in that throwaway workspace, with commands
 *   in the bubblewrap sandbox where bwrap can run (else one line says they run unsandboxed).
 *   (`replay` runs a recording's commands unsandboxed, as before: it has no sandbox flags yet.)
 */
import { existsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Agent, RecordedTask, ReplayOptions, ReplayReport } from "@penguin/core";
import type { OmniMessage } from "@penguin/omnimessage";
import { UsageError } from "../cli-error.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { createJsonLines } from "../io/json-lines.js";
import { sanitizeForTerminal } from "../io/sanitize.js";
import { HumanRenderer } from "../render/human-renderer.js";
import { Output } from "../render/output.js";
import { openAgent, type AgentFlags } from "../session/open-session.js";

export interface ReplayFlags extends AgentFlags {
  tools?: string;
  workspace?: string;
  json?: boolean;
  verbose?: boolean;
}

export interface DemoFlags extends AgentFlags {
  fast?: boolean;
}

/** Milliseconds between streamed pieces of the demo's text: about 500 characters a second. */
const DEMO_PACE_MS = 24;

function toolsMode(value: string | undefined): "rerun" | "recorded" {
  if (value === undefined || value === "rerun" || value === "recorded") return value ?? "rerun";
  throw new UsageError(`--tools must be rerun (run the tools again) or recorded (answer from the recording), not "${value}"`);
}

/** Paint the replayed tasks as a live run: the prompt, then everything the engine yields. */
async function replayWithRenderer(agent: Agent, options: ReplayOptions, verbose: boolean): Promise<ReplayReport> {
  const out = Output.of(process.stdout);
  const renderer = new HumanRenderer({ text: out, side: out, verbose: () => verbose });
  const c = out.colors;
  const onTask = (task: RecordedTask, index: number): void => {
    if (index > 0) renderer.finish();
    if (task.kind === "compact") return out.line(c.dim("› /compact"));
    const text = task.input.flatMap((m) => (m.type === "model_msg" && m.payload.type === "text" ? [m.payload.text] : [])).join("\n");
    out.line(`${c.bold(c.cyan("›"))} ${sanitizeForTerminal(text)}`);
    out.newline();
  };
  try {
    return await agent.replay({ ...options, onTask, onMessage: (m: OmniMessage) => renderer.handle(m) });
  } finally {
    renderer.finish();
  }
}

function verdictLine(report: ReplayReport): string {
  const c = Output.of(process.stderr).colors;
  return report.verdict.identical ? c.green(`identical (${report.verdict.records} records)`) : c.red(report.summary);
}

export async function replayCommand(target: string, flags: ReplayFlags): Promise<ExitCode> {
  const tools = toolsMode(flags.tools);
  // A recording's commands are whatever its model once chose (a trace folder may come from
  // anywhere): re-run, they are sandboxed by default like run's; answered from the recording, no
  // command runs, and bwrap is not even probed.
  const agent = await openAgent(flags, "penguin replay", { sandboxByDefault: tools === "rerun" });
  const isFolder = existsSync(target) && statSync(target).isDirectory();
  const options: ReplayOptions = { tools, client: "cli", ...(isFolder ? { folder: resolve(target) } : { sessionId: target }), ...(flags.workspace !== undefined ? { workspaceDir: flags.workspace } : {}) };
  if (flags.json === true) {
    const report = await agent.replay(options);
    createJsonLines(process.stdout, () => undefined).write({
      type: "replay_result",
      session_id: report.sessionId,
      replay_of: report.replayOf,
      tools: report.tools,
      workspace: report.workspace,
      workspace_source: report.workspaceSource,
      identical: report.verdict.identical,
      ...(report.verdict.identical ? { records: report.verdict.records } : { at: report.verdict.at, position: report.verdict.position, what: report.verdict.what }),
      summary: report.summary,
    });
    return report.verdict.identical ? EXIT.done : EXIT.failed;
  }
  const report = await replayWithRenderer(agent, options, flags.verbose === true);
  const err = Output.of(process.stderr);
  err.line(err.colors.dim(`replay ${report.sessionId} of ${report.replayOf} · tools ${report.tools} · workspace ${report.workspace} (${report.workspaceSource})`));
  err.line(verdictLine(report));
  return report.verdict.identical ? EXIT.done : EXIT.failed;
}

/** `fixtures/traces/demo` of the repository this CLI runs from (bundle or sources). */
export function demoFolder(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    const candidate = join(dir, "fixtures", "traces", "demo");
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new UsageError("the demo session is missing: fixtures/traces/demo is not in this checkout (restore it with git checkout fixtures/traces)");
}

export async function demoCommand(flags: DemoFlags): Promise<ExitCode> {
  const agent = await openAgent(flags, "penguin replay", { sandboxByDefault: true });
  const out = Output.of(process.stdout);
  const c = out.colors;
  out.line(c.dim("PenguinHarness demo: a recorded session replayed through the real engine; the tools run for real in a temporary workspace. No model, no key, no network."));
  out.newline();
  const report = await replayWithRenderer(agent, { folder: demoFolder(), tools: "rerun", pace: flags.fast === true ? 0 : DEMO_PACE_MS }, false);
  out.line(`${report.verdict.identical ? c.green("✓") : c.red("✗")} replay ${report.verdict.identical ? "identical to the recording" : report.summary}`);
  out.line(c.dim(`session ${report.sessionId} · workspace ${report.workspace}`));
  out.newline();
  out.line(c.bold("Try next:"));
  out.line(`  penguin inspect ${report.sessionId} --at 5     the state at record 5: context, open calls, usage`);
  out.line(`  penguin replay ${report.sessionId}             run it again and compare`);
  out.line("  penguin web                                    the dashboard over the same data root");
  out.line("  penguin config model add --provider … --model-id … --client-type … --base-url … --api-key …");
  out.line("                                                 then penguin chat with a real model");
  return report.verdict.identical ? EXIT.done : EXIT.failed;
}
