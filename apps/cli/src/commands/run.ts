/**
 * `penguin run -m TEXT`: one task, then exit with a code that says how it ended (0 done,
 * 1 failed, 2 usage/config, 3 auth, 130 aborted). Built for scripts and CI:
 *
 * - `--json`: stdout carries JSON Lines only: the session's `session_meta` first (its
 *   `session_id` is what `--resume` takes), then every complete message and event of the
 *   task as it happens (`--partials` adds the streaming fragments). Diagnostics go to stderr.
 * - otherwise the assistant's text goes to stdout and everything else (thinking, tool
 *   lines, retries, the stats line, the spinner) to stderr, so `> answer.txt` keeps just
 *   the answer. On a terminal the text streams; piped or redirected it is held per request
 *   (held-answer.ts) and written once the request completed, so the text of a request that
 *   was cut off and retried goes to stderr as `[retried] …` instead of before the answer,
 *   and so does the text of a request that went on to call tools (narration, not the answer).
 * - `--goal [budget]` runs the prompt as a goal (rounds until the agent marks GOAL.yaml
 *   complete or blocked, or the token budget runs out); it exits 0 only when complete.
 * - approvals: `--approve MODE`, else `read-only`: read-only tools run, every write and command
 *   is asked on the terminal (stdin and stderr TTYs; the question goes to stderr, so the
 *   answer can still be redirected) or, with no terminal to ask on, denied, the first denial
 *   saying on stderr how to allow them (no-terminal-denial.ts). The project's
 *   `default_chat.approval_mode` is the chat's default and does not apply here: a script's
 *   run says what it allows on its own command line. A resumed session gets the same mode.
 * - commands run in the bubblewrap sandbox unless `--no-sandbox` (sandbox-default.ts).
 * - Ctrl-C (SIGINT) aborts the task: the engine records `abort` in the trace and the run
 *   exits 130; a second Ctrl-C exits at once.
 *
 * All decisions (model, workspace, approvals, retries) are core's; this file wires flags to
 * the SDK and the stream to a renderer.
 */
import { isPartial, sessionMeta, type RequestEndPayload, type ToolCallPayload } from "@penguin/omnimessage";
import { UsageError } from "../cli-error.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { createJsonLines } from "../io/json-lines.js";
import { readAllStdin } from "../io/stdin.js";
import { HeldAnswer } from "../render/held-answer.js";
import { HumanRenderer } from "../render/human-renderer.js";
import { Output } from "../render/output.js";
import { createWaitIndicator } from "../render/spinner.js";
import { taskStatsLine, TaskStats } from "../render/stats.js";
import { toolCallLine } from "../render/tool-line.js";
import { recordTitleOnce } from "../session/session-title.js";
import { approvalFor, parseApprovalMode } from "../session/approvals.js";
import { endpointBaseUrl, openAgent, openSession, type SessionFlags } from "../session/open-session.js";
import { projectInstructionsLine } from "../session/instructions-line.js";
import { exitCodeOf, OutcomeTracker } from "../session/outcome.js";
import { describeOutcome } from "../session/outcome-message.js";
import { denyWithoutTerminal } from "../session/no-terminal-denial.js";
import { terminalApproval } from "../session/terminal-approval.js";

/** Without `--approve`: read-only tools run, anything else is asked (denied with no terminal). */
const DEFAULT_RUN_APPROVAL = "read-only";

export interface RunFlags extends SessionFlags {
  message: string;
  approve?: string;
  json?: boolean;
  partials?: boolean;
  verbose?: boolean;
  /** `--goal [budget]`: true without a budget. */
  goal?: boolean | string;
}

export async function runCommand(flags: RunFlags): Promise<ExitCode> {
  if (flags.partials === true && flags.json !== true) throw new UsageError("--partials adds streaming fragments to the --json output; use it together with --json");
  const mode = parseApprovalMode(flags.approve ?? DEFAULT_RUN_APPROVAL);
  const prompt = flags.message === "-" ? await readAllStdin() : flags.message;
  if (prompt.trim() === "") throw new UsageError("the prompt is empty: give the task with -m TEXT, or -m - to read it from stdin");

  const agent = await openAgent(flags, "penguin run", { sandboxByDefault: true });
  const session = await openSession(agent, flags, mode);
  const err = Output.of(process.stderr);
  err.line(err.colors.dim(`session ${session.id} · ${session.provider}/${session.modelId} · ${session.workspace}`));
  const instructions = flags.verbose === true ? projectInstructionsLine(session) : undefined;
  if (instructions !== undefined) err.line(err.colors.dim(instructions));

  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = (): void => {
    interrupts += 1;
    if (interrupts > 1) process.exit(EXIT.aborted);
    err.line(err.colors.yellow("[abort] stopping the task… (Ctrl-C again to quit at once)"));
    controller.abort();
  };
  process.on("SIGINT", onSigint);

  // A reader that goes away (`| head -1`) aborts the task instead of crashing the process.
  const onReaderGone = (): void => controller.abort();
  const json = flags.json === true ? createJsonLines(process.stdout, onReaderGone) : undefined;
  if (json === undefined) process.stdout.on("error", (error: NodeJS.ErrnoException) => error.code === "EPIPE" && onReaderGone());
  const asked = new Set<string>();
  const stdout = Output.of(process.stdout);
  const held = json === undefined && !stdout.isTTY ? new HeldAnswer(stdout) : undefined;
  const renderer =
    json === undefined
      ? new HumanRenderer({ text: held?.output ?? stdout, side: err, verbose: () => flags.verbose === true, waiting: createWaitIndicator(), asked })
      : undefined;
  /** Whether the current request made a tool call: then its text is narration, not the answer. */
  let calledTools = false;
  /** A request ended: its held text becomes the answer, or goes to stderr as narration or marked as not the answer. */
  const settleHeld = (end: RequestEndPayload): void => {
    const narration = calledTools;
    calledTools = false;
    if (held === undefined || renderer === undefined) return;
    if (end.status === "completed") return narration ? held.releaseTo(err) : held.release();
    const partial = held.take().trim();
    if (partial === "") return;
    const mark = end.retry_in_ms !== undefined ? "[retried]" : "[cut off]";
    renderer.note(err.colors.dim(`${mark} ${partial}`));
    // Closing a segment that was still open adds its line end to the hold: it belongs to the dropped text.
    held.take();
  };

  const onTerminal = process.stdin.isTTY === true && process.stderr.isTTY === true;
  const showCall = (call: ToolCallPayload): void => {
    if (renderer !== undefined) return renderer.toolCall(call);
    const { tag, name, summary } = toolCallLine(call.name, call.arguments, call.tool_call_id);
    err.line(`${err.colors.cyan(tag)} ${name} <- ${summary}`);
  };
  const ask = onTerminal ? terminalApproval({ err, showCall, asked }) : denyWithoutTerminal((line) => err.line(err.colors.yellow(line)));
  const approve = approvalFor(mode, session, ask);

  if (json !== undefined) {
    json.write(sessionMeta(session.meta));
  }

  const outcome = new OutcomeTracker(() => controller.signal.aborted);
  const goal = flags.goal === undefined || flags.goal === false ? undefined : { budget: flags.goal === true ? undefined : flags.goal };
  let goalOutcome: string | undefined;
  const stats = new TaskStats();
  const started = performance.now();
  try {
    await recordTitleOnce(session, prompt);
    for await (const m of session.run(prompt, { approve, signal: controller.signal, ...(goal ? { goal } : {}) })) {
      if (m.type === "event_msg" && m.payload.type === "goal_finished") goalOutcome = m.payload.outcome;
      outcome.observe(m);
      stats.observe(m);
      if (json !== undefined) {
        if (flags.partials === true || !isPartial(m)) json.write(m);
      } else {
        const own = m.origin === undefined || m.origin.length === 0;
        if (own && m.type === "model_msg" && m.payload.type === "tool_call") calledTools = true;
        if (own && m.type === "event_msg" && m.payload.type === "request_end") settleHeld(m.payload);
        renderer?.handle(m);
      }
    }
  } finally {
    renderer?.finish();
    held?.release();
    process.off("SIGINT", onSigint);
    await session.dispose();
  }

  const result = outcome.outcome;
  // Only a failure names the endpoint: a task that is done or aborted does not re-read the config for it.
  const baseUrl = result.kind === "done" || result.kind === "aborted" ? undefined : await endpointBaseUrl(agent, session);
  const message = describeOutcome(result, { provider: session.provider, modelId: session.modelId, baseUrl });
  if (message !== undefined) err.line(result.kind === "aborted" ? err.colors.yellow(message) : err.colors.red(message));
  if (json === undefined) err.line(taskStatsLine(stats, session, started, err.colors));
  // A goal succeeds only when the agent marked it complete.
  if (goalOutcome !== undefined && goalOutcome !== "complete") {
    err.line(err.colors.yellow(`goal ended: ${goalOutcome}`));
    return goalOutcome === "aborted" ? EXIT.aborted : EXIT.failed;
  }
  return exitCodeOf(result);
}
