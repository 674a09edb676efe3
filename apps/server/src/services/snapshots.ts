/**
 * Agent State snapshots (SPEC §6): `snapshots/v<version>.tar.gz`, a gzipped tar of the
 * agent's `agent_state/` folder without `.vault.toml`, where `<version>` is the `version`
 * of its system_config.yaml. A snapshot file holds the latest state saved under that
 * version (saving again replaces it).
 *
 * Import, in order, so a bad archive changes nothing:
 *   1. every entry is checked before anything is extracted: only files and folders, all
 *      under `agent_state/`, no absolute path and no `..` segment (refused, 400);
 *   2. it is extracted into a staging folder next to the agent (same file system, so the
 *      switch is a rename) and its system_config.yaml must load; its `version` is read;
 *      Each schedule it brings must pass the check a schedule written through the API passes
 *      (services/schedule-check.ts: valid, and a workspace the workspace roots allow), or the
 *      import is a 400 naming the file and field: an import names no path its importer could
 *      not have chosen by hand;
 *   3. a version ≤ the current one needs `confirm` (409 `confirm_required` otherwise);
 *   4. the current state is saved as a snapshot first;
 *   5. the folders are swapped and the current vault is put back (an archive never brings
 *      secrets; one that holds a `.vault.toml` anyway has it dropped).
 *
 * `tar` (and the streams it is built on) is imported on first use: few servers ever save or
 * import a snapshot, and loading it at start-up costs every one of them its memory.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureAgentState, parseSystemConfig, type AgentPaths } from "@penguin/core";
import { ApiError, badRequest, conflict } from "../http/api-error.js";
import { checkScheduleText } from "./schedule-check.js";
import type { WorkspaceRoots } from "./workspace-roots.js";

export const SNAPSHOT_IMPORT_MAX = 50 * 1024 * 1024;
const MAX_ENTRIES = 50_000;
const MAX_UNPACKED = 512 * 1024 * 1024;
const STATE_DIR = "agent_state";
const VAULT_FILE = ".vault.toml";

/** The `version` of an agent_state folder's system_config.yaml; undefined when it does not load. */
export function stateVersion(agentStateDir: string): number | undefined {
  const file = join(agentStateDir, "system_config.yaml");
  try {
    return parseSystemConfig(readFileSync(file, "utf8"), file).version;
  } catch {
    return undefined;
  }
}

export function snapshotName(version: number): string {
  return `v${version}.tar.gz`;
}

/** Writes `snapshots/v<version>.tar.gz` of the current state and returns its path and version. */
export async function saveSnapshot(agent: AgentPaths, versionIfUnreadable?: number): Promise<{ file: string; version: number }> {
  const version = stateVersion(agent.agentState) ?? versionIfUnreadable;
  if (version === undefined) throw new ApiError(400, "invalid_config", "system_config.yaml does not load, so the snapshot has no version; fix it first");
  mkdirSync(agent.snapshotsDir, { recursive: true });
  const file = join(agent.snapshotsDir, snapshotName(version));
  const tmp = `${file}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    const { create } = await import("tar");
    await create(
      {
        gzip: true,
        file: tmp,
        cwd: agent.agentDir,
        portable: true,
        filter: (path, stat) => !isVaultPath(path) && !("isSymbolicLink" in stat && stat.isSymbolicLink()),
      },
      [STATE_DIR],
    );
    renameSync(tmp, file);
  } finally {
    rmSync(tmp, { force: true });
  }
  return { file, version };
}

function isVaultPath(path: string): boolean {
  return path.replace(/^\.\//, "") === `${STATE_DIR}/${VAULT_FILE}`;
}

/** Why an archive entry may not be extracted, or undefined. */
function entryProblem(path: string, type: string): string | undefined {
  if (type !== "File" && type !== "OldFile" && type !== "ContiguousFile" && type !== "Directory") return `"${path}" is a ${type}, not a file or folder`;
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path) || path.includes("\\") || path.includes("\0")) return `"${path}" is an absolute or unusual path`;
  const segments = path.replace(/^\.\//, "").split("/").filter((s) => s !== "" && s !== ".");
  if (segments.includes("..")) return `"${path}" contains '..'`;
  if (segments[0] !== STATE_DIR) return `"${path}" is outside agent_state/`;
  return undefined;
}

export interface ImportOutcome {
  version: number;
  previousVersion: number | undefined;
  /** The snapshot of the state that was replaced. */
  snapshot: string | undefined;
}

export async function importSnapshot(agent: AgentPaths, roots: WorkspaceRoots, bytes: Buffer, confirm: boolean): Promise<ImportOutcome> {
  if (bytes.length > SNAPSHOT_IMPORT_MAX) throw new ApiError(413, "payload_too_large", "a snapshot may be at most 50 MB");
  const scratch = mkdtempSync(join(tmpdir(), "penguin-snapshot-"));
  const archive = join(scratch, "upload.tar.gz");
  const staging = join(agent.agentDir, `.import-${randomBytes(4).toString("hex")}`);
  const replaced = join(agent.agentDir, `.replaced-${randomBytes(4).toString("hex")}`);
  try {
    writeFileSync(archive, bytes);
    const problems: string[] = [];
    let entries = 0;
    let unpacked = 0;
    const { extract, list } = await import("tar");
    try {
      await list({
        file: archive,
        onReadEntry(entry) {
          entries += 1;
          unpacked += entry.size;
          const problem = entryProblem(entry.path, entry.type);
          if (problem !== undefined) problems.push(problem);
        },
      });
    } catch {
      throw badRequest("the snapshot is not a readable tar.gz archive", "dataBase64");
    }
    if (entries === 0) throw badRequest("the snapshot archive is empty", "dataBase64");
    if (problems.length > 0) throw badRequest(`the snapshot has unsafe entries: ${problems.slice(0, 3).join("; ")}`, "dataBase64");
    if (entries > MAX_ENTRIES || unpacked > MAX_UNPACKED) throw new ApiError(413, "payload_too_large", "the snapshot unpacks to too many files or bytes");

    mkdirSync(staging);
    await extract({ file: archive, cwd: staging, strict: true, preservePaths: false, filter: (path) => !isVaultPath(path) });
    const incomingState = join(staging, STATE_DIR);
    const version = stateVersion(incomingState);
    if (version === undefined) throw badRequest("the snapshot's agent_state/system_config.yaml is missing or does not load", "dataBase64");
    checkIncomingSchedules(incomingState, agent, roots);
    const previousVersion = stateVersion(agent.agentState);
    if (previousVersion !== undefined && version <= previousVersion && !confirm) {
      throw conflict("confirm_required", `the snapshot is version ${version} and the agent is at version ${previousVersion}; send confirm: true to replace the newer state`);
    }

    const saved = existsSync(join(agent.agentState, "system_config.yaml")) ? await saveSnapshot(agent, previousVersion ?? 0) : undefined;
    const vault = readIfPresent(agent.vault);
    rmSync(join(incomingState, VAULT_FILE), { force: true });
    if (existsSync(agent.agentState)) renameSync(agent.agentState, replaced);
    renameSync(incomingState, agent.agentState);
    if (vault !== undefined) {
      writeFileSync(agent.vault, vault, { mode: 0o600 });
      chmodSync(agent.vault, 0o600);
    }
    await ensureAgentState(agent);
    return { version, previousVersion, snapshot: saved === undefined ? undefined : snapshotName(saved.version) };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    rmSync(staging, { recursive: true, force: true });
    rmSync(replaced, { recursive: true, force: true });
  }
}

/** Every schedule file the snapshot brings passes the check a schedule written through the API passes. */
function checkIncomingSchedules(incomingState: string, agent: AgentPaths, roots: WorkspaceRoots): void {
  const dir = join(incomingState, "schedule");
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir).filter((n) => n.endsWith(".toml")).sort()) {
    checkScheduleText(readFileSync(join(dir, name), "utf8"), name.slice(0, -".toml".length), agent, roots, `schedule/${name}`);
  }
}

function readIfPresent(file: string): Buffer | undefined {
  try {
    return statSync(file).isFile() ? readFileSync(file) : undefined;
  } catch {
    return undefined;
  }
}
