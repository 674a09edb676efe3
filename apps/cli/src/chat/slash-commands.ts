/**
 * The chat's slash commands, parsed into a tagged union (pure, so tests cover the grammar
 * without a terminal). Executing them is the chat's job (chat-session.ts).
 *
 *   /compact  /clear  /verbose  /help  /exit (/quit)
 *   /thinking [level]            show or set the session's thinking level
 *   /goal[:budget] <objective>   run the objective as a goal (rounds until the agent marks
 *                                it complete or blocked, or the token budget — 500k, 2m —
 *                                is spent)
 *   /model [provider/model_id]   show the model, or start a new session on another one;
 *                                `/model provider model_id` also works, for model ids that
 *                                contain a slash (the provider is everything before the
 *                                first slash, never guessed from the model name)
 *   /undo [--force]              rewind files and conversation to just before the last task
 *   /rewind N [--force]          rewind files and conversation to record N (undoable); --force
 *                                records edits made outside the session and rewinds anyway
 */
export type SlashCommand =
  | { kind: "compact" }
  | { kind: "clear" }
  | { kind: "verbose" }
  | { kind: "help" }
  | { kind: "exit" }
  | { kind: "thinking"; level: string | undefined }
  | { kind: "model"; ref: { provider: string; modelId: string } | undefined }
  | { kind: "goal"; objective: string; budget: string | undefined }
  | { kind: "undo"; force: boolean }
  | { kind: "rewind"; n: number; force: boolean }
  | { kind: "invalid"; message: string };

export const SLASH_HELP = [
  "/compact            compact the context now",
  "/clear              start a new session (same model and workspace)",
  "/thinking [level]   show or set the thinking level (none, low, medium, high, xhigh, max)",
  "/goal[:budget] text run text as a goal until done, blocked or over budget (e.g. /goal:500k fix the tests)",
  "/model [p/m]        show the model, or start a new session on provider p, model m",
  "/verbose            toggle full tool outputs",
  "/undo [--force]     rewind files and conversation to just before the last task",
  "/rewind N [--force] rewind files and conversation to record N (penguin inspect SID shows records)",
  "/exit               leave the chat",
];

export function parseSlash(line: string): SlashCommand {
  const [head = "", ...args] = line.trim().split(/\s+/);
  const name = head.slice(1).toLowerCase();
  if (name === "goal" || name.startsWith("goal:")) {
    const budget = name.startsWith("goal:") ? head.slice("/goal:".length) : undefined;
    const objective = line.trim().slice(head.length).trim();
    if (objective === "") return { kind: "invalid", message: "usage: /goal[:budget] <objective>, e.g. /goal:500k make the tests pass" };
    if (budget === "") return { kind: "invalid", message: "usage: /goal:<budget> <objective>, e.g. /goal:2m port the module" };
    return { kind: "goal", objective, budget };
  }
  const noArgs = (kind: "compact" | "clear" | "verbose" | "help" | "exit"): SlashCommand =>
    args.length === 0 ? { kind } : { kind: "invalid", message: `/${name} takes no arguments` };
  switch (name) {
    case "compact":
      return noArgs("compact");
    case "clear":
      return noArgs("clear");
    case "verbose":
      return noArgs("verbose");
    case "help":
    case "?":
      return noArgs("help");
    case "exit":
    case "quit":
      return noArgs("exit");
    case "undo":
    case "rewind":
      return parseRewind(name, args);
    case "thinking":
      if (args.length > 1) return { kind: "invalid", message: "usage: /thinking [level]" };
      return { kind: "thinking", level: args[0] };
    case "model":
      return parseModel(args);
    default:
      return { kind: "invalid", message: `unknown command ${head}; /help lists the commands` };
  }
}

/** `/undo [--force]`, `/rewind N [--force]`. */
function parseRewind(name: "undo" | "rewind", args: string[]): SlashCommand {
  const force = args.includes("--force");
  const rest = args.filter((a) => a !== "--force");
  if (name === "undo") return rest.length === 0 ? { kind: "undo", force } : { kind: "invalid", message: "usage: /undo [--force]" };
  const n = rest[0] ?? "";
  if (rest.length !== 1 || !/^\d+$/.test(n) || Number(n) < 1) return { kind: "invalid", message: "usage: /rewind N [--force], N a record number (>= 1) from /inspect or penguin inspect SID" };
  return { kind: "rewind", n: Number(n), force };
}

function parseModel(args: string[]): SlashCommand {
  if (args.length === 0) return { kind: "model", ref: undefined };
  if (args.length === 2) return { kind: "model", ref: { provider: args[0]!, modelId: args[1]! } };
  const arg = args[0]!;
  const slash = arg.indexOf("/");
  if (args.length === 1 && slash > 0 && slash < arg.length - 1) {
    return { kind: "model", ref: { provider: arg.slice(0, slash), modelId: arg.slice(slash + 1) } };
  }
  return { kind: "invalid", message: "usage: /model provider/model_id (or /model provider model_id)" };
}
