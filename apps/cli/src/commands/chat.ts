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
 * errors exit 2 like everywhere else.
 */
import { createInterface } from "node:readline";
import { Chat } from "../chat/chat-session.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { colorEnabled } from "../io/colors.js";
import { loadTerminalMarkdown } from "../render/markdown-terminal.js";
import { Output } from "../render/output.js";
import { parseApprovalMode } from "../session/approvals.js";
import { APPROVAL_MODES } from "@penguin/core";
import { denyWithoutTerminal } from "../session/no-terminal-denial.js";
import { agentSandboxed, openAgent, openSession, type SessionFlags } from "../session/open-session.js";

/** Without `--approve` or a project default: read-only tools run, anything else is asked. */
const DEFAULT_CHAT_APPROVAL = "read-only";

export interface ChatFlags extends SessionFlags {
  approve?: string;
  verbose?: boolean;
}

export async function chatCommand(flags: ChatFlags): Promise<ExitCode> {
  const agent = await openAgent(flags, "penguin chat", { sandboxByDefault: true });
  const configured = () => agent.projectConfig().default_chat?.approval_mode ?? DEFAULT_CHAT_APPROVAL;
  // A new session starts with (and records) the flag's mode, else the project's default.
  const startMode = flags.resume === undefined ? parseApprovalMode(flags.approve ?? configured()) : undefined;
  const session = await openSession(agent, flags, startMode);
  // A resumed session keeps the approval mode its trace recorded, unless --approve says otherwise.
  const recorded = APPROVAL_MODES.find((m) => m === session.recordedApprovalMode);
  const mode = startMode ?? parseApprovalMode(flags.approve ?? recorded ?? configured());
  const interactive = process.stdin.isTTY === true;
  if (interactive && process.stdout.isTTY === true && process.env.TERM !== "dumb") {
    // Both ends are a terminal: the terminal UI, loaded only here (tui/, pi-tui) so that no
    // other command, nor a piped chat, pays for it.
    const { runTuiChat } = await import("../tui/tui-chat.js");
    await runTuiChat({ agent, session, mode, verbose: flags.verbose === true, sandboxed: agentSandboxed(agent) });
    return EXIT.done;
  }
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
