/**
 * The terminal UI's slash commands, as one table: name, argument hint, one line of help, and
 * what it does given the chat (`TuiHost`). The table feeds `/help`, the editor's completion
 * and the dispatcher, so a command added here (e.g. `/undo`, `/rewind` when workspace
 * checkpoints land) is complete with one entry.
 * `/undo` and `/rewind N` go through the line chat's grammar to the rewind hook (chat/rewind-hook.ts).
 *
 * The commands the line chat also has (`/compact`, `/clear`, `/thinking`, `/goal`, `/model`,
 * `/verbose`, `/exit`) keep their grammar and actions (chat/slash-commands.ts and
 * chat/slash-actions.ts): their entries hand the line to that code. The rest are the UI's:
 * `/approve MODE`, `/cost`, `/sessions`, `/resume ID`, `/fork [N]`, `/inspect [N]`, `/help`.
 */
import { APPROVAL_MODES, listTracedSessions, type Agent, type Session } from "@penguin/core";
import { messageLine } from "../commands/inspect.js";
import { describeError } from "../cli-error.js";
import type { Output } from "../render/output.js";
import { compactNumber, localTime, shorten } from "../render/format.js";
import { parseApprovalMode, type ApprovalMode } from "../session/approvals.js";
import { parseSlash } from "../chat/slash-commands.js";
import { runSlash, type SlashHost } from "../chat/slash-actions.js";
import { contextText, usageText } from "./usage-text.js";

export interface TuiHost {
  readonly out: Output;
  readonly agent: Agent;
  session(): Session;
  slashHost(): SlashHost;
  setMode(mode: ApprovalMode): void;
  mode(): ApprovalMode;
  /** Leaves the current session for `sessionId` (resumed from its trace). */
  switchTo(sessionId: string, why: string): Promise<void>;
}

export interface TableCommand {
  name: string;
  argumentHint?: string;
  description: string;
  /** "exit" ends the chat. */
  run(host: TuiHost, args: string, line: string): Promise<"exit" | void>;
}

const LINE_CHAT = async (host: TuiHost, _args: string, line: string): Promise<"exit" | void> => {
  if ((await runSlash(parseSlash(line), host.slashHost())) === "exit") return "exit";
};

function recordNumber(args: string, usage: string): number | undefined | Error {
  if (args === "") return undefined;
  if (/^\d+$/.test(args) && Number(args) > 0) return Number(args);
  return new Error(usage);
}

async function reportErrors(host: TuiHost, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    host.out.line(host.out.colors.red(`error: ${(await describeError(error)).message}`));
  }
}

export const SLASH_TABLE: readonly TableCommand[] = [
  { name: "help", description: "list the commands and keys", run: async (host) => printHelp(host) },
  { name: "model", argumentHint: "[provider/model]", description: "show the model, or start a new session on another one", run: LINE_CHAT },
  {
    name: "approve",
    argumentHint: APPROVAL_MODES.join("|"),
    description: "show or set the approval mode",
    run: async (host, args) => {
      if (args === "") return void host.out.line(`approvals: ${host.mode()} (one of ${APPROVAL_MODES.join(", ")})`);
      await reportErrors(host, async () => {
        host.setMode(parseApprovalMode(args));
        host.out.line(`approvals: ${host.mode()}`);
      });
    },
  },
  {
    name: "cost",
    description: "tokens and cost of this session so far",
    run: async (host) => {
      const s = host.session();
      const { tokens, cost } = usageText(s);
      host.out.line(`cost so far: ${cost} · ${tokens} · ${contextText(s)} · ${s.turns} turn${s.turns === 1 ? "" : "s"}${s.pricing === undefined ? " · the model has no prices" : ""}`);
    },
  },
  {
    name: "sessions",
    description: "the latest sessions of this agent",
    run: async (host) => {
      const all = listTracedSessions(host.agent.paths);
      for (const s of all.slice(0, 10)) host.out.line(`${s.sessionId === host.session().id ? "*" : " "} ${s.sessionId}  ${localTime(new Date(s.mtimeMs).toISOString())}`);
      if (all.length > 10) host.out.line(host.out.colors.dim(`(${all.length - 10} more; penguin sessions lists them all)`));
      host.out.line(host.out.colors.dim("/resume ID opens one"));
    },
  },
  {
    name: "resume",
    argumentHint: "ID",
    description: "leave this session and continue another",
    run: async (host, args) => {
      if (args === "") return void host.out.line(host.out.colors.yellow("usage: /resume SESSION_ID (/sessions lists them)"));
      await reportErrors(host, () => host.switchTo(args, "resumed"));
    },
  },
  { name: "compact", description: "compact the context now", run: LINE_CHAT },
  {
    name: "fork",
    argumentHint: "[N]",
    description: "continue in a copy of this session (after record N; default: after the last task)",
    run: async (host, args) => {
      const at = recordNumber(args, "usage: /fork [N], N a record number from /inspect");
      if (at instanceof Error) return void host.out.line(host.out.colors.yellow(at.message));
      await reportErrors(host, async () => {
        const source = host.session();
        await source.persist();
        const id = await host.agent.forkSession({ sessionId: source.id, ...(at === undefined ? {} : { at }) });
        await host.switchTo(id, `forked from ${source.id}${at === undefined ? "" : ` at record ${at}`}`);
      });
    },
  },
  {
    name: "inspect",
    argumentHint: "[N]",
    description: "the session's state after record N (default: now)",
    run: async (host, args) => {
      const at = recordNumber(args, "usage: /inspect [N], N a record number");
      if (at instanceof Error) return void host.out.line(host.out.colors.yellow(at.message));
      await reportErrors(host, async () => {
        const s = host.session();
        await s.persist();
        const view = await host.agent.inspectState({ sessionId: s.id, ...(at === undefined ? {} : { at }) });
        const c = host.out.colors;
        host.out.line(`${c.bold("record")} ${view.at.n} of ${view.records} · ${view.turns} turns · ${view.running ? "running" : "idle"}`);
        const u = view.usage.session;
        host.out.line(`${c.bold("usage")} ${compactNumber(u.cache_read + u.cache_write)} in / ${compactNumber(u.output)} out`);
        const next = view.nextContext.map(messageLine);
        host.out.line(`${c.bold("next context")} ${next.length} message${next.length === 1 ? "" : "s"}`);
        for (const l of next.slice(-12)) host.out.line(`  ${shorten(l, 160)}`);
        host.out.line(c.dim(`/fork ${view.at.n} continues from here`));
      });
    },
  },
  { name: "undo", argumentHint: "[--force]", description: "rewind files and conversation to just before the last task (undoable)", run: LINE_CHAT },
  { name: "rewind", argumentHint: "N [--force]", description: "rewind files and conversation to record N (undoable; /inspect shows records)", run: LINE_CHAT },
  { name: "clear", description: "start a new session (same model and workspace)", run: LINE_CHAT },
  { name: "thinking", argumentHint: "[level]", description: "show or set the thinking level", run: LINE_CHAT },
  { name: "goal", argumentHint: "[:budget] text", description: "run text as a goal until done, blocked or over budget", run: LINE_CHAT },
  { name: "verbose", description: "toggle full tool outputs", run: LINE_CHAT },
  { name: "exit", description: "leave the chat", run: async () => "exit" },
];

export const KEYS_HELP = [
  "Enter sends · Shift+Enter or Alt+Enter: new line · ↑/↓: history · @path: attach a file (Tab completes)",
  "Esc: interrupt the running task · Ctrl-O: expand tool outputs · Ctrl-C: deny / abort / clear, twice to exit",
];

function printHelp(host: TuiHost): void {
  const c = host.out.colors;
  for (const cmd of SLASH_TABLE) host.out.line(`${c.cyan(`/${cmd.name}`)}${cmd.argumentHint === undefined ? "" : ` ${cmd.argumentHint}`}  ${c.dim(cmd.description)}`);
  for (const l of KEYS_HELP) host.out.line(c.dim(l));
}

/** The command a line names: `/goal:500k x` is `goal`; `/quit` and `/?` are aliases. */
export function findCommand(line: string): { command: TableCommand | undefined; args: string } {
  const trimmed = line.trim();
  const head = trimmed.split(/\s+/, 1)[0] ?? "";
  const name = head.slice(1).toLowerCase().replace(/:.*$/, "");
  const alias = name === "quit" ? "exit" : name === "?" ? "help" : name;
  return { command: SLASH_TABLE.find((c) => c.name === alias), args: trimmed.slice(head.length).trim() };
}
