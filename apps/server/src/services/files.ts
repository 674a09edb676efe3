/**
 * File helpers for the routes that serve agent-state and workspace files: atomic text
 * writes (temp file + rename, so a reader never sees half a file), listings of a confined
 * folder (names relative to it, symlinks reported as such and never followed), and reading
 * a confined file as UTF-8 text or base64 with a size cap.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, closeSync, fstatSync, lstatSync, readdirSync, readSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ApiError } from "../http/api-error.js";
import { openNoFollow } from "./confined-path.js";

export function writeTextAtomic(file: string, text: string, mode?: number): void {
  const tmp = join(dirname(file), `.${randomBytes(6).toString("hex")}.tmp`);
  try {
    writeFileSync(tmp, text, mode === undefined ? {} : { mode });
    if (mode !== undefined) chmodSync(tmp, mode);
    renameSync(tmp, file);
  } finally {
    rmSync(tmp, { force: true });
  }
}

export interface ListedEntry {
  name: string;
  type: "file" | "dir" | "symlink" | "other";
  size: number;
  mtimeMs: number;
}

/** One directory level; hidden entries included, sorted with folders first. */
export function listDir(dir: string): ListedEntry[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: ListedEntry[] = [];
  for (const name of names) {
    try {
      const st = lstatSync(join(dir, name));
      const type = st.isSymbolicLink() ? "symlink" : st.isDirectory() ? "dir" : st.isFile() ? "file" : "other";
      out.push({ name, type, size: st.size, mtimeMs: Math.floor(st.mtimeMs) });
    } catch {
      continue;
    }
  }
  return out.sort((a, b) => Number(b.type === "dir") - Number(a.type === "dir") || a.name.localeCompare(b.name));
}

/** Every regular file under `dir`, as paths relative to it (symlinks are not followed). */
export function listFilesDeep(dir: string, limit = 5000): { path: string; size: number }[] {
  const out: { path: string; size: number }[] = [];
  const walk = (rel: string) => {
    for (const e of listDir(join(dir, rel))) {
      if (out.length >= limit) return;
      const path = rel === "" ? e.name : `${rel}/${e.name}`;
      if (e.type === "dir") walk(path);
      else if (e.type === "file") out.push({ path, size: e.size });
    }
  };
  walk("");
  return out;
}

export interface FileContent {
  size: number;
  /** UTF-8 text when the bytes are text, else base64. */
  encoding: "utf8" | "base64";
  content: string;
  truncated: boolean;
}

/** Reads a confined regular file (no final symlink), at most `maxBytes`. */
export function readFileBytes(path: string, maxBytes: number): { bytes: Buffer; size: number } {
  const fd = openNoFollow(path);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new ApiError(400, "invalid_path", "the path is not a regular file", { field: "path" });
    const length = Math.min(st.size, maxBytes);
    const bytes = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const n = readSync(fd, bytes, read, length - read, read);
      if (n === 0) break;
      read += n;
    }
    return { bytes: bytes.subarray(0, read), size: st.size };
  } finally {
    closeSync(fd);
  }
}

export function readFileContent(path: string, maxBytes: number): FileContent {
  const { bytes, size } = readFileBytes(path, maxBytes);
  const text = isText(bytes);
  return { size, encoding: text ? "utf8" : "base64", content: bytes.toString(text ? "utf8" : "base64"), truncated: size > bytes.length };
}

function isText(bytes: Buffer): boolean {
  if (bytes.includes(0)) return false;
  return !bytes.toString("utf8").includes("\uFFFD");
}
