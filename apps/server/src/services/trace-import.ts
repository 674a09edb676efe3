/**
 * Importing a JSONL trace as a new session of an agent, checked like a create.
 *
 * Rules (SPEC §7): at most 14 MB; the first line must be a `session_meta` with a valid session
 * id; an id the server already knows, or that already has files, is refused (409); the file
 * lands as index 001 under the id's own date folder and is indexed at once.
 *
 * A trace names paths that the session uses when it runs: `session_meta.workspace` is where
 * its commands and file tools work (mounted read-write in the sandbox), `agent_state` names
 * the agent it belongs to. An importer must not name through a trace what it could not choose
 * when creating a session, so every `session_meta` the trace reader would see (found with the
 * reader's own rules, not a text search, so an escaped or padded line cannot slip past) is
 * checked: a workspace that the workspace roots refuse (the data root, another project's
 * workspace, `/etc`, a symlink leading out, a relative or missing path) is replaced by a fresh
 * temporary workspace of this agent, and an `agent_state` other than this agent's is replaced
 * by this agent's. The response lists each replacement (field, line, the path given, what
 * took its place, why); lines that pass are stored byte for byte.
 */
import { randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { isSessionId, parseTraceText, sessionDate, sessionTraceFiles, traceFilePath, type AgentPaths } from "@penguin/core";
import { isSessionMeta, sessionMetaOf, type SessionMetaPayload } from "@penguin/omnimessage";
import type { Stores } from "../db/stores.js";
import { ApiError, badRequest, conflict } from "../http/api-error.js";
import { storageFailure } from "../http/storage-failure.js";
import type { WorkspaceRoots } from "./workspace-roots.js";

export const TRACE_IMPORT_MAX = 14 * 1024 * 1024;

/** One path of an imported trace that was not kept. */
export interface ImportedPathReplacement {
  /** `session_meta.workspace` or `session_meta.agent_state`. */
  field: string;
  /** The 1-based line of the trace holding it. */
  line: number;
  /** The path the trace gave. */
  path: string;
  /** The path stored in its place. */
  replacement: string;
  reason: string;
}

export interface ImportedTrace {
  sessionId: string;
  /** Empty when every path of the trace was allowed. */
  replaced: ImportedPathReplacement[];
}

export function importTrace(stores: Stores, roots: WorkspaceRoots, agent: AgentPaths, dataBase64: string, now: number): ImportedTrace {
  const bytes = Buffer.from(dataBase64, "base64");
  if (bytes.length > TRACE_IMPORT_MAX) throw new ApiError(413, "payload_too_large", "a trace import may be at most 14 MB");
  const text = bytes.toString("utf8");
  const content = parseTraceText(text.endsWith("\n") ? text : `${text}\n`);
  const first = content.messages[0];
  const meta = first === undefined || content.lines[0] !== 1 ? undefined : sessionMetaOf(first);
  if (meta === undefined) throw badRequest("the first line must be a session_meta envelope", "dataBase64");
  const sessionId = meta.session_id;
  if (!isSessionId(sessionId)) throw badRequest(`"${sessionId}" is not a session id`, "dataBase64");
  if (stores.sessions.get(sessionId) !== undefined || sessionTraceFiles(agent, sessionId).length > 0) throw conflict("already_exists", `session ${sessionId} already exists`);

  const lines = text.split("\n");
  const replaced: ImportedPathReplacement[] = [];
  let temporary: string | undefined;
  const freshWorkspace = () => (temporary ??= join(agent.workspacesDir, `tmp-${randomBytes(4).toString("hex")}`));
  let workspace = meta.workspace;
  content.messages.forEach((m, i) => {
    if (!isSessionMeta(m)) return;
    const line = content.lines[i] ?? 0;
    const checked: SessionMetaPayload = { ...m.payload };
    try {
      checked.workspace = roots.confine(m.payload.workspace, [agent.workspacesDir], "session_meta.workspace");
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      checked.workspace = freshWorkspace();
      replaced.push({ field: "session_meta.workspace", line, path: m.payload.workspace, replacement: checked.workspace, reason: error.message });
    }
    if (m.payload.agent_state !== agent.agentState) {
      checked.agent_state = agent.agentState;
      replaced.push({ field: "session_meta.agent_state", line, path: m.payload.agent_state, replacement: agent.agentState, reason: `the trace is imported into ${agent.projectId}/${agent.agentId}, whose agent_state is ${agent.agentState}` });
    }
    if (line === 1) workspace = checked.workspace;
    if (checked.workspace !== m.payload.workspace || checked.agent_state !== m.payload.agent_state) lines[line - 1] = JSON.stringify({ ...m, payload: checked });
  });

  const file = traceFilePath(agent, sessionDate(sessionId), sessionId, 1);
  const stored = lines.join("\n");
  let created = false;
  try {
    if (temporary !== undefined) mkdirSync(temporary, { recursive: true });
    mkdirSync(dirname(file), { recursive: true });
    const handle = openSync(file, "wx", 0o600);
    created = true;
    try {
      writeFileSync(handle, stored.endsWith("\n") ? stored : `${stored}\n`);
    } finally {
      closeSync(handle);
    }
  } catch (error) {
    // Nothing half-made stays: a partly written trace would be indexed as a session next time.
    if (created) rmSync(file, { force: true });
    if (temporary !== undefined) rmSync(temporary, { recursive: true, force: true });
    if ((error as NodeJS.ErrnoException).code === "EEXIST") throw conflict("already_exists", `session ${sessionId} already exists`);
    throw storageFailure(error, file) ?? error;
  }
  stores.sessions.upsertFromTrace({ sessionId, projectId: agent.projectId, agentId: agent.agentId, provider: meta.provider, modelId: meta.model_id, workspace, createdAt: now });
  return { sessionId, replaced };
}
