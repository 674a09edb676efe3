/**
 * The workspace's files at any record (issue 29), read from the session's checkpoints:
 *
 *   penguin inspect SID --at N --files [PATH]   list the files at N, or print one (raw bytes)
 *   penguin diff SID --from N --to M [PATH]     unified diff of the workspace between two records
 *   penguin rewind SID --to N [--files|--conversation|--both] [--force]
 *
 * rewind works in place and is undoable: it records the current state first and says which
 * record to rewind to for undoing it. It refuses, naming the files, when the workspace holds
 * changes made outside the session since its last checkpoint (unless --force), and while
 * another process runs the session (its lease). Over-limit files are named, never replaced.
 */
import { UsageError } from "../cli-error.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { createJsonLines } from "../io/json-lines.js";
import { sanitizeForTerminal } from "../io/sanitize.js";
import { Output } from "../render/output.js";
import { openAgent, type AgentFlags } from "../session/open-session.js";

function recordOf(value: string | undefined, flag: string): number | string | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  if (/^\d+:\d+$/.test(value)) return value;
  throw new UsageError(`${flag} takes a record number (1, 2, …) or a position NNN:LLLLLL, not "${value}"`);
}

const normalPath = (path: string): string => path.replace(/^\.\//, "").replace(/\/+$/, "");

export interface FilesFlags extends AgentFlags {
  at?: string;
  json?: boolean;
}

/** `inspect --files [PATH]`: the list (or one file's bytes) at the record. */
export async function inspectFilesCommand(sessionId: string, path: string | true, flags: FilesFlags): Promise<ExitCode> {
  const at = recordOf(flags.at, "--at");
  const agent = await openAgent(flags);
  const core = await import("@penguin/core");
  if (typeof path === "string" && path !== "") {
    const file = core.fileAt(agent.paths, sessionId, at, normalPath(path));
    if (file.entry.kind === "folder") throw new UsageError(`${path} is a folder at that record; list it with --files and no path`);
    if (file.entry.kind === "symlink") {
      process.stdout.write(`${file.entry.target}\n`);
      return EXIT.done;
    }
    if (file.bytes === undefined) {
      throw new UsageError(`${path} was above the checkpoint size limit (${file.entry.size} bytes, sha256 ${file.entry.hash}): recorded by hash and size only, its bytes were not kept`);
    }
    process.stdout.write(file.bytes);
    return EXIT.done;
  }
  const found = core.filesAt(agent.paths, sessionId, at);
  const rows = [...found.tree].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (flags.json === true) {
    const json = createJsonLines(process.stdout, () => undefined);
    json.write({ type: "workspace_files", session_id: sessionId, at: found.record.n, checkpoint: { n: found.checkpoint.n, tree: found.checkpoint.message.payload.tree }, files: rows.map(([p, e]) => ({ path: p, ...e })) });
    return EXIT.done;
  }
  const out = Output.of(process.stdout);
  const err = Output.of(process.stderr);
  err.line(err.colors.dim(`files at record ${found.record.n}: checkpoint of record ${found.checkpoint.n} (${found.checkpoint.position}), workspace ${found.workspace}`));
  for (const [p, e] of rows) {
    const shown = sanitizeForTerminal(p);
    if (e.kind === "folder") out.line(`${e.mode.toString(8).padStart(4, "0")} ${"".padStart(10)} ${shown}/`);
    else if (e.kind === "symlink") out.line(`link ${"".padStart(10)} ${shown} -> ${sanitizeForTerminal(e.target)}`);
    else out.line(`${e.mode.toString(8).padStart(4, "0")} ${String(e.size).padStart(10)} ${shown}${e.over === true ? "  (above the size limit: hash and size only)" : ""}`);
  }
  return EXIT.done;
}

export interface DiffFlags extends AgentFlags {
  from?: string;
  to?: string;
}

export async function diffCommand(sessionId: string, path: string | undefined, flags: DiffFlags): Promise<ExitCode> {
  const from = recordOf(flags.from, "--from");
  const to = recordOf(flags.to, "--to");
  if (from === undefined || to === undefined) throw new UsageError("diff needs --from N and --to M: the two records whose workspace files to compare (penguin inspect SID --at N --files lists them)");
  const agent = await openAgent(flags);
  const core = await import("@penguin/core");
  const text = core.diffFilesBetween(agent.paths, sessionId, from, to, path === undefined ? undefined : normalPath(path));
  if (text === "") Output.of(process.stderr).line(`no change in the workspace${path === undefined ? "" : ` under ${path}`} from record ${String(from)} to ${String(to)}`);
  else process.stdout.write(text);
  return EXIT.done;
}

export interface RewindFlags extends AgentFlags {
  to?: string;
  files?: boolean;
  conversation?: boolean;
  both?: boolean;
  force?: boolean;
  json?: boolean;
}

export async function rewindCommand(sessionId: string, flags: RewindFlags): Promise<ExitCode> {
  const to = recordOf(flags.to, "--to");
  if (to === undefined) throw new UsageError("rewind needs --to N: the record to go back to (penguin inspect SID --at N shows the state there)");
  const picked = [flags.files === true && "files", flags.conversation === true && "conversation", flags.both === true && "both"].filter((x): x is "files" | "conversation" | "both" => x !== false);
  if (picked.length > 1) throw new UsageError(`give one of --files, --conversation or --both, not ${picked.map((p) => `--${p}`).join(" and ")}`);
  const what = picked[0] ?? "both";
  const agent = await openAgent(flags);
  const result = agent.rewindSession({ sessionId, to, what, ...(flags.force === true ? { force: true } : {}) });
  if (flags.json === true) {
    createJsonLines(process.stdout, () => undefined).write({ type: "rewind", session_id: sessionId, ...result });
    return EXIT.done;
  }
  const out = Output.of(process.stdout);
  const files = result.files;
  if (files !== undefined) {
    out.line(`files rewound to record ${String(to)} (checkpoint of record ${result.checkpointRecord ?? "?"}): ${files.written.length} written, ${files.removed.length} removed`);
    for (const p of files.written) out.line(`  restored ${sanitizeForTerminal(p)}`);
    for (const p of files.removed) out.line(`  removed  ${sanitizeForTerminal(p)}`);
    for (const n of files.notRestored) out.line(`  left     ${sanitizeForTerminal(n.path)}: ${n.reason}`);
  }
  if (result.conversationFile !== undefined) out.line(`conversation rewound to record ${result.record}: the session goes on from there (penguin chat --resume ${sessionId})`);
  if (result.undoRecord !== undefined) out.line(out.colors.dim(`undo with: penguin rewind ${sessionId} --to ${result.undoRecord} --files`));
  return EXIT.done;
}
