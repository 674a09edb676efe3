/**
 * A session's workspace checkpoints as the trace names them (issue 29): the store a session's
 * checkpoints live in, the last checkpoint a session recorded (resume continues from it), and
 * the checkpoint in force at any record N (the last `workspace_checkpoint` at or before N),
 * (or, before the session's first checkpoint, its baseline: nothing had changed the files yet),
 * which is what `inspect --files`, `diff`, `rewind` and `fork` read the files of.
 */
import { readTraceFileMatching, WorkspaceCheckpoints, type CheckpointSettings, type TraceContent } from "@penguin/trace";
import type { OmniMessage, WorkspaceCheckpointPayload } from "@penguin/omnimessage";
import { readFileSync } from "node:fs";
import { PenguinError } from "../errors.js";
import { parseVault } from "../state/vault.js";
import { vaultSecretForms } from "../environment/redact.js";
import type { AgentPaths } from "../state/paths.js";
import { loadRecording, resolvePosition, type RecordedEvent } from "../replay/recording.js";
import { sessionTraceFiles } from "./reader.js";

const NEEDLE = '"workspace_checkpoint"';

/**
 * The agent's checkpoints of `workspace`. They are given the vault's values (and encoded forms)
 * unless `settings` lists them already, so a blob holding one is sealed, never stored in plain
 * text (trace's pack store); a vault that cannot be read leaves the list out, and then every
 * blob is gzip'd (the store's safe default).
 */
export function openCheckpoints(paths: AgentPaths, workspace: string, settings?: CheckpointSettings): WorkspaceCheckpoints {
  const secrets = settings?.secrets ?? vaultSecretsOf(paths);
  return new WorkspaceCheckpoints(paths.checkpointsDir, workspace, secrets === undefined ? settings : { ...settings, secrets });
}

function vaultSecretsOf(paths: AgentPaths): string[] | undefined {
  let text: string;
  try {
    text = readFileSync(paths.vault, "utf8");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? [] : undefined;
  }
  try {
    return vaultSecretForms(parseVault(text, paths.vault));
  } catch {
    return undefined;
  }
}

export const isCheckpoint = (m: OmniMessage | undefined): m is OmniMessage<"event_msg"> & { payload: WorkspaceCheckpointPayload } =>
  m?.type === "event_msg" && m.payload.type === "workspace_checkpoint";

/** The tree of the last checkpoint the session's trace holds (only the lines naming one are decoded). */
export function lastCheckpointTree(paths: AgentPaths, sessionId: string): string | undefined {
  for (const file of [...sessionTraceFiles(paths, sessionId)].reverse()) {
    let content: TraceContent;
    try {
      content = readTraceFileMatching(file.file, [NEEDLE]);
    } catch {
      continue;
    }
    const last = content.messages.filter(isCheckpoint).at(-1);
    if (last !== undefined) return last.payload.tree;
  }
  return undefined;
}

export interface CheckpointAt {
  /** The record asked for. */
  record: RecordedEvent;
  /** The checkpoint in force there: the last one at or before it. */
  checkpoint: RecordedEvent & { message: { payload: WorkspaceCheckpointPayload } };
  workspace: string;
}

/** The checkpoint in force at record `at` (a number or `NNN:LLLLLL`); a clear error when there is none. */
export function checkpointAt(paths: AgentPaths, sessionId: string, at: number | string | undefined): CheckpointAt {
  const recording = loadRecording({ paths }, sessionId);
  const record = at === undefined ? recording.events.at(-1) : resolvePosition(recording.events, at);
  if (record === undefined) throw new PenguinError("invalid_argument", `session ${sessionId} has no records`);
  let checkpoint: CheckpointAt["checkpoint"] | undefined;
  for (const e of recording.events) {
    if (e.n > record.n) break;
    if (isCheckpoint(e.message)) checkpoint = e as CheckpointAt["checkpoint"];
  }
  // Before the baseline line nothing had changed the files yet: they are the baseline's.
  const first = recording.events.find((e) => isCheckpoint(e.message));
  if (checkpoint === undefined && first !== undefined && isCheckpoint(first.message) && first.message.payload.reason === "baseline") checkpoint = first as CheckpointAt["checkpoint"];
  if (checkpoint === undefined) {
    throw new PenguinError(
      "invalid_argument",
      `session ${sessionId} has no workspace checkpoint at or before record ${record.n}: its first checkpoint comes with its first task (sessions recorded before checkpoints, or with them turned off, have none)`,
    );
  }
  const meta = recording.events.find((e) => e.message.type === "session_meta")?.message;
  const workspace = meta?.type === "session_meta" ? meta.payload.workspace : "";
  return { record, checkpoint, workspace };
}
