/**
 * The agent's memory folder (`agent_state/memory/`) as the memory browser sees it: scopes
 * (`user`, and one `<base>-<8hex>` folder per workspace, whose `.workspace` file names the
 * workspace), their files, and a portable export/import.
 *
 * Every path a client names is relative to the memory folder and confined to it
 * (services/confined-path.ts: no `..`, no absolute paths, no symlinks leading out), and
 * files are written without following a final symlink.
 *
 * Export format (`penguin-memory`, version 1): `{format, version, files: [{path, encoding,
 * content}]}` with UTF-8 text or base64. Import modes: `skip` writes only files that do not
 * exist, `overwrite` writes every file, `replace` first empties the folder (the caller asks
 * for confirmation). The user scope always exists afterwards.
 */
import { closeSync, constants, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { Schema } from "effect";
import { ApiError } from "../http/api-error.js";
import { checkRelative, resolveForWrite } from "./confined-path.js";
import { listDir, listFilesDeep } from "./files.js";

export const MEMORY_EXPORT_FORMAT = "penguin-memory";
const MAX_IMPORT_BYTES = 20 * 1024 * 1024;

export const MemoryPayload = Schema.Struct({
  format: Schema.Literal(MEMORY_EXPORT_FORMAT),
  version: Schema.Literal(1),
  files: Schema.Array(
    Schema.Struct({ path: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1024)), encoding: Schema.Literal("utf8", "base64"), content: Schema.String }),
  ).pipe(Schema.maxItems(10_000)),
});
export type MemoryPayload = typeof MemoryPayload.Type;
export type ImportMode = "skip" | "overwrite" | "replace";

export interface MemoryScope {
  key: string;
  workspace: string | null;
  files: number;
}

export function memoryScopes(memoryDir: string): MemoryScope[] {
  return listDir(memoryDir)
    .filter((e) => e.type === "dir")
    .map((e) => {
      const dir = join(memoryDir, e.name);
      let workspace: string | null = null;
      try {
        workspace = readFileSync(join(dir, ".workspace"), "utf8").trim() || null;
      } catch {
        workspace = null;
      }
      return { key: e.name, workspace, files: listFilesDeep(dir).filter((f) => f.path !== ".workspace").length };
    });
}

export function exportMemory(memoryDir: string): MemoryPayload {
  const files = listFilesDeep(memoryDir).map((f) => {
    const bytes = readFileSync(join(memoryDir, f.path));
    const text = bytes.toString("utf8");
    const utf8 = !bytes.includes(0) && !text.includes("\uFFFD");
    return { path: f.path, encoding: utf8 ? ("utf8" as const) : ("base64" as const), content: utf8 ? text : bytes.toString("base64") };
  });
  return { format: MEMORY_EXPORT_FORMAT, version: 1, files };
}

export interface ImportResult {
  written: string[];
  skipped: string[];
  removed: number;
}

export function importMemory(memoryDir: string, payload: MemoryPayload, mode: ImportMode): ImportResult {
  const decoded = payload.files.map((f, i) => {
    try {
      checkRelative(f.path);
    } catch {
      throw new ApiError(400, "invalid_path", `files.${i}.path must be a relative path inside the memory folder`, { field: `payload.files.${i}.path` });
    }
    return { path: f.path, bytes: f.encoding === "utf8" ? Buffer.from(f.content, "utf8") : Buffer.from(f.content, "base64") };
  });
  const total = decoded.reduce((n, f) => n + f.bytes.length, 0);
  if (total > MAX_IMPORT_BYTES) throw new ApiError(413, "payload_too_large", "a memory import may hold at most 20 MB");
  let removed = 0;
  if (mode === "replace" && existsSync(memoryDir)) {
    for (const name of readdirSync(memoryDir)) {
      rmSync(join(memoryDir, name), { recursive: true, force: true });
      removed += 1;
    }
  }
  mkdirSync(join(memoryDir, "user"), { recursive: true });
  const written: string[] = [];
  const skipped: string[] = [];
  for (const f of decoded) {
    const target = resolveForWrite(memoryDir, f.path);
    if (mode === "skip" && existsSync(target)) {
      skipped.push(f.path);
      continue;
    }
    writeNoFollow(target, f.bytes);
    written.push(f.path);
  }
  return { written, skipped, removed };
}

function writeNoFollow(target: string, bytes: Buffer): void {
  let fd: number;
  try {
    fd = openSync(target, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644);
  } catch {
    throw new ApiError(400, "invalid_path", "a memory file cannot be written (a symlink or a folder is in the way)", { field: "payload" });
  }
  try {
    writeSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
}
