/**
 * Resuming a session from its trace: which file the writer goes on with (`pickResumeFile`:
 * the newest with a readable record, and its meta), the fold it starts from (its resume
 * snapshot on, or with the survivors of a compaction), the settings the trace last recorded,
 * and what a crash left dangling, closed through the new session's fold. The trace fixes the
 * model, the system prompt and the workspace; only the tools come from the current agent state.
 * Split from agent.ts, which keeps the entry point; this file holds the reading and deciding.
 */
import { existsSync } from "node:fs";
import type { OmniMessage, SessionMetaPayload } from "@penguin/omnimessage";
import { readForResume, sessionSettingsOfFiles, type SessionLease, type SessionState, type SnapshotThresholds } from "@penguin/trace";
import { Effect } from "effect";
import type { ResumeSessionOptions } from "./agent-options.js";
import { Resume, ResumeLive } from "./engine/resume.js";
import { PenguinError } from "./errors.js";
import { ToolCallIdAllocator } from "./llm/tool-call-ids.js";
import { isSessionId } from "./state/ids.js";
import type { Session } from "./session.js";
import { assemble, buildSession, sessionConfinement, type AgentParts } from "./session-build.js";
import { isThinkingLevel } from "./thinking-level.js";
import { readTraceFile, sessionTraceFiles } from "./trace/reader.js";
import { whileHolding } from "./trace/session-lease.js";
import { survivorsOfClosedFile, withSurvivors } from "./trace/survivors.js";

/** Agent.resumeSession: the session as its trace left it, under its lease (`session_busy` when held elsewhere). */
export async function resumeSession(parts: AgentParts, options: ResumeSessionOptions): Promise<Session> {
  const { sessionId } = options;
  if (!isSessionId(sessionId)) {
    throw new PenguinError("session_not_found", `"${sessionId}" is not a session id (expected session-YYYY-MM-DD-HH-mm-ss-<8hex>)`);
  }
  if (sessionTraceFiles(parts.paths, sessionId).length === 0) {
    throw new PenguinError("session_not_found", `no session ${sessionId} in ${parts.paths.projectId}/${parts.paths.agentId} (looked in ${parts.paths.tracesDir})`);
  }
  // Held before the trace is read: what is read is then what no other process appends to.
  const lease = parts.hold(sessionId);
  return whileHolding(lease, () => resumeHeld(parts, options, lease));
}

async function resumeHeld(parts: AgentParts, options: ResumeSessionOptions, lease: SessionLease): Promise<Session> {
  const { sessionId } = options;
  const files = sessionTraceFiles(parts.paths, sessionId);
  const last = files[files.length - 1];
  if (last === undefined) {
    throw new PenguinError("session_not_found", `no session ${sessionId} in ${parts.paths.projectId}/${parts.paths.agentId} (looked in ${parts.paths.tracesDir})`);
  }
  const pick = pickResumeFile(files, { fold: true, snapshot: parts.options.resumeSnapshot });
  const resume = Effect.runSync(Effect.provide(Resume, ResumeLive));
  const seed = Effect.runSync(resume.seed(pick.messages, pick.folded === undefined ? {} : { folded: pick.folded }));
  const meta = seed.meta ?? pick.meta;
  if (meta === undefined) {
    throw new PenguinError("session_unreadable", `${last.file} has no readable session_meta line, nor has any earlier file of the session; the trace cannot be resumed`);
  }
  if (!existsSync(meta.workspace)) {
    throw new PenguinError("workspace_not_found", `the workspace of ${sessionId} no longer exists: ${meta.workspace}`);
  }
  const sandbox = sessionConfinement(parts, options.sandbox, meta.workspace, sessionId);
  const { state, config, endpoint } = await assemble(parts, { provider: meta.provider, modelId: meta.model_id });
  const ids = new ToolCallIdAllocator();
  ids.reserve(seed.toolCallIds);
  // The session keeps the settings its trace last recorded (from its first file on: a
  // rotated file does not repeat them); the agent's default thinking level otherwise.
  const settings = pick.index > 1 ? sessionSettingsOfFiles(files) : seed.state.settings;
  const recordedLevel = settings.thinkingLevel;
  const thinkingLevel = recordedLevel !== undefined && isThinkingLevel(recordedLevel) ? recordedLevel : (state.config.model.thinking_level ?? config.default_chat?.thinking_level ?? "medium");
  const session = buildSession(parts, {
    meta,
    state,
    config,
    endpoint,
    thinkingLevel,
    seed: { ...seed.state, settings: { ...settings, thinkingLevel } },
    writerIndex: pick.index,
    existing: true,
    ...(pick.extent === undefined ? {} : { knownExtent: pick.extent }),
    ...(pick.lines === undefined ? {} : { readLines: { index: pick.index, messages: pick.messages, lines: pick.lines, snapshotLines: pick.snapshotLines, lastLine: pick.extent?.lines } }),
    toolsWritten: seed.state.toolsAnnounced,
    ids,
    resumed: true,
    closeDangling: (fold) => Effect.runSync(resume.close(fold)),
    sandbox,
    approvalMode: settings.approvalMode,
    lease,
    ...(options.mcpServers === undefined ? {} : { sessionMcpServers: options.mcpServers }),
  });
  return session;
}

/**
 * The file resume replays. Normally the newest; but a crash right after a compaction rotated
 * the trace can leave the newest file empty or holding only a torn header: with no readable
 * record it is skipped (the previous file ends in the completed compaction, so the writer
 * rotates back into it). A newest file whose records lack their session_meta line borrows the
 * meta of an earlier file: a session's meta is the same in all of them.
 */
export function pickResumeFile(files: { file: string; index: number }[], options: { fold: boolean; snapshot?: SnapshotThresholds | undefined }): {
  messages: OmniMessage[];
  index: number;
  meta: SessionMetaPayload | undefined;
  /** With `fold`: the fold of `messages`, read from the file's resume snapshot on; undefined when survivors were placed into it. */
  folded: SessionState | undefined;
  /** With `folded`: the file's bytes through its last newline and their lines, as read (the writer need not count them again). */
  extent: { bytes: number; lines: number } | undefined;
  /** With `folded`: the line number of each of `messages` (what the session keeps to snapshot the file when it ends). */
  lines: readonly number[] | undefined;
  /** With `folded`: the lines the file's resume snapshot covers after the read (0: none). */
  snapshotLines: number;
} {
  const metaOf = (messages: readonly OmniMessage[]): SessionMetaPayload | undefined => {
    for (const m of messages) if (m.type === "session_meta") return m.payload;
    return undefined;
  };
  // Without `fold` (a caller after the file's index and meta only) the file is read as it is.
  // Otherwise: a rotated file's context opens with what the Human wrote before the compaction,
  // which the previous file holds, so such a file is folded with them, from its start; any
  // other file is read and folded from its resume snapshot (readForResume). A file with no
  // readable record of its own is passed over (see above), whatever survivors it would get.
  const candidate = (at: number): { messages: OmniMessage[]; folded: SessionState | undefined; extent: { bytes: number; lines: number } | undefined; lines: readonly number[] | undefined; snapshotLines: number; empty: boolean } => {
    const survivors = options.fold && at > 0 ? survivorsOfClosedFile(files[at - 1]!.file) : [];
    if (!options.fold || survivors.length > 0) {
      const own = readTraceFile(files[at]!.file).messages;
      return { messages: withSurvivors(own, survivors), folded: undefined, extent: undefined, lines: undefined, snapshotLines: 0, empty: own.length === 0 };
    }
    // The newer snapshot this read may call for is written at the session's first commit
    // point (FileLines.afterCommit), after its first request has gone out, not here.
    const read = readForResume(files[at]!.file, { ...options.snapshot, writeSnapshot: false });
    const snapshotLines = read.fromSnapshot;
    return { messages: read.content.messages, folded: read.state, extent: read.extent, lines: read.content.lines, snapshotLines, empty: read.content.messages.length === 0 };
  };
  let at = files.length - 1;
  let picked = candidate(at);
  while (at > 0 && picked.empty) picked = candidate(--at);
  let meta = metaOf(picked.messages);
  for (let i = at - 1; i >= 0 && meta === undefined; i--) meta = metaOf(readTraceFile(files[i]!.file).messages);
  return { messages: picked.messages, index: files[at]!.index, meta, folded: picked.folded, extent: picked.extent, lines: picked.lines, snapshotLines: picked.snapshotLines };
}
