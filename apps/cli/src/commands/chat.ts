/**
 * `penguin chat`: the interactive REPL (node:readline). This file sets it up: the agent and
 * session (new, `--resume <sid>`, or `--resume` for the latest), the approval mode (flag >
 * the project's `default_chat.approval_mode` > allow-all), the markdown renderer on colour
 * terminals, and Ctrl-C (readline's SIGINT on a terminal, the process signal otherwise).
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
import { openAgent, openSession, type SessionFlags } from "../session/open-session.js";

export interface ChatFlags extends SessionFlags {
  approve?: string;
  verbose?: boolean;
}

export async function chatCommand(flags: ChatFlags): Promise<ExitCode> {
  const agent = await openAgent(flags, "penguin chat");
  const configured = () => agent.projectConfig().default_chat?.approval_mode ?? "allow-all";
  // A new session starts with (and records) the flag's mode, else the project's default.
  const startMode = flags.resume === undefined ? parseApprovalMode(flags.approve ?? configured()) : undefined;
  const session = await openSession(agent, flags, startMode);
  // A resumed session keeps the approval mode its trace recorded, unless --approve says otherwise.
  const recorded = APPROVAL_MODES.find((m) => m === session.recordedApprovalMode);
  const mode = startMode ?? parseApprovalMode(flags.approve ?? recorded ?? configured());
  const interactive = process.stdin.isTTY === true;
  const out = Output.of(process.stdout);
  const markdown = out.isTTY && colorEnabled(process.stdout) ? await loadTerminalMarkdown(process.stdout.columns) : undefined;
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: interactive, historySize: 200 });
  const chat = new Chat({ agent, session, mode, verbose: flags.verbose === true, interactive, out, markdown, rl });
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
