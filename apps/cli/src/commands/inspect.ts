/**
 * `penguin inspect SID [--at N|NNN:LLLLLL] [--json] [--diff M]` and `penguin fork SID --at N`.
 *
 * inspect prints the session's state after record N (core's `agent.inspectState`, the
 * time-travel fold of the trace): what the model would see next, open tool calls, pending approvals,
 * carry-over, steering, settings, usage, turns, the compaction segment, the goal, and the
 * files read and written. `--diff M` prints what changed from record M to N instead. `--json`
 * prints the state (or the diff) as one JSON line.
 *
 * The fold starts from the nearest snapshot of the data root's projections.db (the timeline
 * projection, caught up first), so only the records after it are read; without a usable
 * database (it cannot be opened, or a server holds it mid-rebuild) the whole trace is read.
 *
 * fork starts a new session whose state is the state at N (core's `forkSession({ at })`)
 * in a workspace of its own holding the files as of N (`forkWorkspace`), and prints its id; `penguin chat --resume <id>` or `penguin run --resume <id>` go on from there.
 */
import type { Agent, SessionView, SnapshotSource } from "@penguin/core";
import type { OmniMessage } from "@penguin/omnimessage";
import { UsageError } from "../cli-error.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { createJsonLines } from "../io/json-lines.js";
import { sanitizeForTerminal } from "../io/sanitize.js";
import { compactNumber, shorten } from "../render/format.js";
import { Output } from "../render/output.js";
import { openAgent, type AgentFlags } from "../session/open-session.js";

export interface InspectFlags extends AgentFlags {
  at?: string;
  json?: boolean;
  diff?: string;
  /** `--files [PATH]`: the workspace's files at the record (workspace-files.ts). */
  files?: string | true;
}

function position(value: string | undefined, flag: string): number | string | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  if (/^\d+:\d+$/.test(value)) return value;
  throw new UsageError(`${flag} takes a record number (1, 2, …) or a position NNN:LLLLLL, not "${value}"`);
}

/** One line for a message of the context. */
export function messageLine(m: OmniMessage): string {
  if (m.type !== "model_msg") return m.type;
  const p = m.payload;
  const who = "role" in p ? p.role : "";
  switch (p.type) {
    case "text":
      return `${who}${p.sender !== undefined ? ` (${p.sender})` : ""}: ${shorten(p.text.replace(/\s+/g, " "), 110)}`;
    case "tool_call":
      return `assistant calls ${p.name} [${p.tool_call_id}] ${shorten(p.arguments, 80)}`;
    case "tool_call_output":
      return `tool output [${p.tool_call_id}]${p.stop_reason !== undefined && p.stop_reason !== "completed" ? ` (${p.stop_reason})` : ""}: ${shorten(p.output.replace(/\s+/g, " "), 90)}`;
    case "thinking":
      return `assistant thinks: ${shorten(p.thinking.replace(/\s+/g, " "), 100)}`;
    default:
      return `${who} ${p.type}`;
  }
}

type Comparable = Record<string, unknown>;

/** The state as plain JSON, with messages as envelopes. */
function stateJson(s: SessionView): Comparable {
  return JSON.parse(JSON.stringify(s)) as Comparable;
}

/** The state without envelope timestamps: placeholders resume would add are stamped per call. */
function timeless(s: SessionView): Comparable {
  return JSON.parse(JSON.stringify(s, (key, value: unknown) => (key === "timestamp" ? undefined : value))) as Comparable;
}

/** Fields that differ between two states: `{ field: { from, to } }`, messages compared as JSON. */
export function stateDiff(from: SessionView, to: SessionView): Record<string, { from: unknown; to: unknown }> {
  const a = timeless(from);
  const b = timeless(to);
  const out: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of Object.keys(b)) {
    // `state` is the whole fold behind the other fields: their changes are the diff.
    if (key === "at" || key === "state") continue;
    if (JSON.stringify(a[key]) !== JSON.stringify(b[key])) out[key] = { from: a[key], to: b[key] };
  }
  return out;
}

function printState(s: SessionView): void {
  const out = Output.of(process.stdout);
  const c = out.colors;
  const field = (name: string, value: string) => out.line(`${c.bold(name.padEnd(16))} ${value}`);
  const list = (name: string, items: string[]) => {
    field(name, items.length === 0 ? c.dim("none") : `${items.length}`);
    for (const item of items) out.line(`  ${sanitizeForTerminal(item)}`);
  };
  field("session", s.sessionId);
  field("at", `record ${s.at.n} of ${s.records} (${s.at.position}, ${s.at.record})`);
  const window = s.settings.model_context_window === "unknown" ? "unknown" : compactNumber(s.settings.model_context_window);
  field("model", `${s.settings.provider}/${s.settings.model_id} · window ${window}`);
  field("workspace", s.settings.workspace);
  if (s.settings.source !== undefined) field("source", s.settings.source);
  if (s.settings.approvalMode !== undefined || s.settings.thinkingLevel !== undefined) {
    field("settings", [s.settings.approvalMode !== undefined ? `approvals ${s.settings.approvalMode}` : "", s.settings.thinkingLevel !== undefined ? `thinking ${s.settings.thinkingLevel}` : ""].filter((x) => x !== "").join(" · "));
  }
  if (s.settings.forkedFrom !== undefined) field("forked from", `${s.settings.forkedFrom.session_id} at ${s.settings.forkedFrom.at}`);
  field("running", s.running ? "yes: a request or tool calls are in flight" : "no");
  field("turns", `${s.turns} in this context · ${s.requests} requests in the session`);
  const u = s.usage.session;
  field("usage", `${compactNumber(u.cache_read + u.cache_write)} in (${compactNumber(u.cache_read)} cached) / ${compactNumber(u.output)} out${s.usage.lastRequest !== undefined ? ` · last request ${compactNumber(s.usage.lastRequest.total)}` : ""}`);
  field("compaction", `segment ${s.compaction.segment} · ${s.compaction.completed} completed${s.compaction.inProgress ? " · one in progress" : ""}`);
  if (s.goal !== undefined) {
    const outcome = s.goal.outcome !== undefined ? `${s.goal.outcome} after ${s.goal.rounds ?? 0} round(s)` : "running";
    field("goal", `${s.goal.objective !== undefined ? `${shorten(s.goal.objective, 60)} · ` : ""}${outcome}`);
  }
  // Mid-task, the next request is what a resume or fork at N would send (open work closed out).
  list(s.running ? "next context*" : "next context", s.nextContext.map(messageLine));
  if (s.running) out.line(c.dim("  * a task is in flight at this record: this is what a resume or fork here would send"));
  list("carry-over", s.carryOver.map(messageLine));
  list("open tool calls", s.openToolCalls.map((call) => `${call.name} [${call.tool_call_id}] ${shorten(call.arguments, 80)}`));
  list("pending approval", s.pendingApprovals.map((call) => `${call.name} [${call.tool_call_id}] ${shorten(call.arguments, 80)}`));
  list("steering queue", s.steeringQueue.map((q) => `${q.id}: ${shorten(q.text, 100)}`));
  list("steering sent", s.steering.map((t) => shorten(t, 100)));
  list("files read", s.filesRead);
  list("files written", s.filesWritten);
}

/**
 * Runs `work` with the timeline's snapshots of the data root (caught up first); with none
 * when the projections cannot be read, since the trace alone answers too, only slower.
 */
async function withSnapshots<T>(agent: Agent, work: (snapshots: SnapshotSource | undefined) => Promise<T>): Promise<T> {
  const [{ openProjections }, { timelineProjection, timelineSnapshots }] = await Promise.all([import("../projections/open-projections.js"), import("@penguin/projections-timeline")]);
  let store: Awaited<ReturnType<typeof openProjections>> | undefined;
  try {
    store = await openProjections(agent.paths.root);
    await store.catchUp();
  } catch (error) {
    const err = Output.of(process.stderr);
    err.line(err.colors.dim(`projections.db is not usable (${error instanceof Error ? error.message : String(error)}); reading the whole trace`));
    await store?.close();
    store = undefined;
  }
  try {
    return await work(store === undefined ? undefined : timelineSnapshots(store.db, timelineProjection.version));
  } finally {
    await store?.close();
  }
}

export async function inspectCommand(sessionId: string, flags: InspectFlags): Promise<ExitCode> {
  if (flags.files !== undefined) {
    if (flags.diff !== undefined) throw new UsageError("--files and --diff do not go together: for the files between two records use penguin diff SID --from M --to N");
    return (await import("./workspace-files.js")).inspectFilesCommand(sessionId, flags.files, flags);
  }
  const at = position(flags.at, "--at");
  const diffFrom = position(flags.diff, "--diff");
  const agent = await openAgent(flags);
  const [state, before] = await withSnapshots(agent, async (snapshots) => {
    const from = snapshots === undefined ? {} : { snapshots };
    const to = await agent.inspectState({ sessionId, ...(at !== undefined ? { at } : {}), ...from });
    return [to, diffFrom === undefined ? undefined : await agent.inspectState({ sessionId, at: diffFrom, ...from })] as const;
  });
  const json = flags.json === true ? createJsonLines(process.stdout, () => undefined) : undefined;
  if (before !== undefined) {
    const changes = stateDiff(before, state);
    if (json !== undefined) {
      json.write({ type: "state_diff", session_id: sessionId, from: before.at, to: state.at, changes });
      return EXIT.done;
    }
    const out = Output.of(process.stdout);
    out.line(`${out.colors.bold("diff")} record ${before.at.n} (${before.at.record}) → record ${state.at.n} (${state.at.record})`);
    if (Object.keys(changes).length === 0) out.line(out.colors.dim("no change"));
    for (const [key, change] of Object.entries(changes)) {
      out.line(`${out.colors.bold(key)}: ${sanitizeForTerminal(shorten(JSON.stringify(change.from), 140))}`);
      out.line(`  → ${sanitizeForTerminal(shorten(JSON.stringify(change.to), 140))}`);
    }
    return EXIT.done;
  }
  if (json !== undefined) json.write({ type: "session_state", ...stateJson(state) });
  else printState(state);
  return EXIT.done;
}

export interface ForkFlags extends AgentFlags {
  at?: string;
  json?: boolean;
}

export async function forkCommand(sessionId: string, flags: ForkFlags): Promise<ExitCode> {
  const at = position(flags.at, "--at");
  if (at === undefined) throw new UsageError("fork needs --at N: the record to fork after (penguin inspect SID --at N shows the state there)");
  const agent = await openAgent(flags);
  const forkId = await agent.forkSession({ sessionId, at, client: "cli" });
  // The fork's own workspace with the files as of N (a git worktree in a repository, else a copy).
  const files = agent.forkWorkspace({ sourceId: sessionId, forkId, at });
  const state = await agent.inspectState({ sessionId: forkId });
  if (flags.json === true) {
    createJsonLines(process.stdout, () => undefined).write({ type: "fork", session_id: forkId, forked_from: sessionId, at: state.settings.forkedFrom?.at, ...(files === undefined ? {} : { workspace: files.workspace, workspace_kind: files.kind }) });
    return EXIT.done;
  }
  process.stdout.write(`${forkId}\n`);
  const err = Output.of(process.stderr);
  if (files !== undefined) err.line(`the fork works in ${files.workspace} (${files.kind === "git-worktree" ? "a git worktree" : "a copy"} holding the files of record ${files.checkpointRecord})`);
  else err.line(err.colors.dim("the source has no workspace checkpoint at that record: the fork works in the source's workspace as it is"));
  err.line(err.colors.dim(`forked ${sessionId} after ${state.settings.forkedFrom?.at ?? String(at)}; go on with: penguin chat --resume ${forkId}`));
  return EXIT.done;
}
