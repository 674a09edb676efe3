/**
 * What each slash command does, given the chat as a `SlashHost`: the commands that only
 * show or set something are done here; the two that change what runs (`/clear` and
 * `/model p/m` replace the session, `/compact` runs like a task and can be aborted) call
 * back into the chat, which owns that state.
 */
import type { Session } from "@penguin/core";
import { describeError } from "../cli-error.js";
import { compactNumber } from "../render/format.js";
import type { Output } from "../render/output.js";
import { parseThinking } from "../session/open-session.js";
import type { RewindTarget } from "./rewind-hook.js";
import { SLASH_HELP, type SlashCommand } from "./slash-commands.js";

export interface SlashHost {
  readonly out: Output;
  readonly session: Session;
  toggleVerbose(): void;
  /** Starts a new session on this model in the same workspace; reports failures itself. */
  replaceSession(ref: { provider: string; modelId: string }): Promise<void>;
  compact(): Promise<void>;
  /** Runs a task as a goal, like any task (abortable, rendered, with stats). */
  goal(objective: string, budget: string | undefined): Promise<void>;
  /** Rewinds files and conversation in place (`/undo`, `/rewind N`) and goes on in the rewound session. */
  rewind(target: RewindTarget, force: boolean): Promise<void>;
}

export async function runSlash(cmd: SlashCommand, host: SlashHost): Promise<"exit" | "continue"> {
  const { out, session } = host;
  const c = out.colors;
  switch (cmd.kind) {
    case "exit":
      return "exit";
    case "help":
      for (const line of SLASH_HELP) out.line(line);
      break;
    case "verbose":
      host.toggleVerbose();
      break;
    case "thinking":
      try {
        const level = parseThinking(cmd.level);
        if (level !== undefined) session.thinkingLevel = level;
        out.line(`thinking level: ${session.thinkingLevel}`);
      } catch (error) {
        out.line(c.red(`error: ${(await describeError(error)).message}`));
      }
      break;
    case "model":
      if (cmd.ref !== undefined) {
        await host.replaceSession(cmd.ref);
        break;
      }
      out.line(
        `model: ${session.provider}/${session.modelId} · context window ${session.contextWindow === "unknown" ? "unknown" : compactNumber(session.contextWindow)}` +
          (session.pricing === undefined ? " · unpriced" : ""),
      );
      break;
    case "clear":
      await host.replaceSession({ provider: session.provider, modelId: session.modelId });
      break;
    case "compact":
      await host.compact();
      break;
    case "goal":
      await host.goal(cmd.objective, cmd.budget);
      break;
    case "undo":
      await host.rewind({ kind: "undo" }, cmd.force);
      break;
    case "rewind":
      await host.rewind({ kind: "record", n: cmd.n }, cmd.force);
      break;
    case "invalid":
      out.line(c.yellow(cmd.message));
      break;
  }
  return "continue";
}
