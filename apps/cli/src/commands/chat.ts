/**
 * `penguin chat`: when stdin and stdout are both terminals (and TERM is not dumb), the terminal
 * UI of tui/tui-chat.ts, imported lazily; otherwise the line REPL (node:readline), kept for
 * pipes, scripts and dumb terminals. This file sets both up: the agent and
 * session (new, `--resume <sid>`, or `--resume` for the latest), the approval mode (flag >
 * the mode a resumed session recorded > the project's `default_chat.approval_mode` >
 * read-only), the markdown renderer on colour terminals, and Ctrl-C (readline's SIGINT on a
 * terminal, the process signal otherwise).
 *
 * On a terminal a call the mode does not allow is asked. Without one (piped input) it is
 * asked on the next input line only when `--approve` chose a mode that asks; otherwise it is
 * denied, the first denial saying on stderr how to allow it (no-terminal-denial.ts), so a
 * piped chat never writes or runs commands unless told to on its command line (or by a mode
 * the project or the session set to allow-all). Commands run in the bubblewrap sandbox
 * unless `--no-sandbox` (sandbox-default.ts).
 * The conversation itself is chat/chat-session.ts. Exits 0 when the user leaves; setup
 * errors exit 2 like everywhere else. Everything but types is imported inside the function
 * that needs it, so that the terminal UI draws its prompt before core is evaluated.
 */
import type { Agent, Session } from "@penguin/core";
import { EXIT, type ExitCode } from "../exit-codes.js";
import type { ApprovalMode } from "../session/approvals.js";
import type { SessionFlags } from "../session/open-session.js";

/** Without `--approve` or a project default: read-only tools run, anything else is asked. */
const DEFAULT_CHAT_APPROVAL = "read-only";

export interface ChatFlags extends SessionFlags {
  approve?: string;
  verbose?: boolean;
}

interface OpenChat {
  agent: Agent;
  session: Session;
  mode: ApprovalMode;
  sandboxed: boolean;
}

/** The agent, the session and the approval mode the chat starts with. */
async function openChat(flags: ChatFlags): Promise<OpenChat> {
  const [{ agentSandboxed, openAgent, openSession }, { parseApprovalMode }, { APPROVAL_MODES }] = await Promise.all([
    import("../session/open-session.js"),
    import("../session/approvals.js"),
    import("@penguin/core"),
  ]);
  const agent = await openAgent(flags, "penguin chat", { sandboxByDefault: true });
  const configured = () => agent.projectConfig().default_chat?.approval_mode ?? DEFAULT_CHAT_APPROVAL;
  // A new session starts with (and records) the flag's mode, else the project's default.
  const startMode = flags.resume === undefined ? parseApprovalMode(flags.approve ?? configured()) : undefined;
  const session = await openSession(agent, flags, startMode);
  // A resumed session keeps the approval mode its trace recorded, unless --approve says otherwise.
  const recorded = APPROVAL_MODES.find((m) => m === session.recordedApprovalMode);
  const mode = startMode ?? parseApprovalMode(flags.approve ?? recorded ?? configured());
  return { agent, session, mode, sandboxed: agentSandboxed(agent) };
}

/** The early sandbox probe of session/early-sandbox-probe.ts (nothing with --no-sandbox). */
async function startSandboxProbe(flags: ChatFlags): Promise<void> {
  await (await import("../session/early-sandbox-probe.js")).startSandboxProbeEarly(flags);
}

export async function chatCommand(flags: ChatFlags): Promise<ExitCode> {
  const interactive = process.stdin.isTTY === true;
  if (interactive && process.stdout.isTTY === true && process.env.TERM !== "dumb") {
    // Both ends are a terminal: the terminal UI, loaded only here (tui/, pi-tui) so that no
    // other command, nor a piped chat, pays for it. It draws the prompt first and opens the
    // session behind it (tui/tui-chat.ts), so nothing here is imported before it.
    // The sandbox probe (a bwrap child) starts once the prompt is drawn, first thing of the
    // opening: it still runs while core is evaluated, and the first frame does not wait for
    // node:child_process and the spawn (about 5-8 ms of the main thread).
    const { runTuiChat } = await import("../tui/tui-chat.js");
    await runTuiChat(async () => {
      await startSandboxProbe(flags);
      return { ...(await openChat(flags)), verbose: flags.verbose === true };
    });
    return EXIT.done;
  }
  await startSandboxProbe(flags);
  const { agent, session, mode } = await openChat(flags);
  const [{ createInterface }, { Chat }, { colorEnabled }, { loadTerminalMarkdown }, { Output }, { denyWithoutTerminal }] = await Promise.all([
    import("node:readline"),
    import("../chat/chat-session.js"),
    import("../io/colors.js"),
    import("../render/markdown-terminal.js"),
    import("../render/output.js"),
    import("../session/no-terminal-denial.js"),
  ]);
  const out = Output.of(process.stdout);
  const markdown = out.isTTY && colorEnabled(process.stdout) ? await loadTerminalMarkdown(process.stdout.columns) : undefined;
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: interactive, historySize: 200 });
  const unasked = interactive || flags.approve !== undefined ? undefined : denyWithoutTerminal((line) => process.stderr.write(`${line}\n`));
  const chat = new Chat({ agent, session, mode, verbose: flags.verbose === true, interactive, out, markdown, rl, ...(unasked === undefined ? {} : { unasked }) });
  const onInterrupt = (): void => chat.interrupt();
  rl.on("SIGINT", onInterrupt);
  process.on("SIGINT", onInterrupt);
  try {
    await chat.loop();
  } finally {
    process.off("SIGINT", onInterrupt);
    rl.close();
    await chat.close();
  }
  return EXIT.done;
}
