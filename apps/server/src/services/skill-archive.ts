/**
 * Skills as zip archives (fflate): packing an installed skill for download, and unpacking an
 * uploaded one into a temporary folder that core's `installSkill` then validates and installs.
 *
 * An archive holds exactly one skill folder, `<name>/SKILL.md` plus its files (what
 * `packSkill` writes). Unpacking refuses, before anything is written, any entry that could
 * land outside that folder (absolute paths, drive letters, backslashes, `..`, NUL), more
 * than one top-level folder, and archives that expand beyond the caps (entry count, declared
 * size), so an upload can neither escape the staging folder nor fill the disk. macOS
 * metadata (`__MACOSX/`, `.DS_Store`) is ignored. Symlinks are never created: every entry
 * is written as a plain file.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { unzipSync, zipSync, type Zippable } from "fflate";
import { ApiError, badRequest } from "../http/api-error.js";
import { listFilesDeep } from "./files.js";

export const SKILL_ARCHIVE_MAX = 14 * 1024 * 1024;
const MAX_ENTRIES = 2000;
const MAX_EXPANDED = 64 * 1024 * 1024;
const SKILL_NAME = /^[A-Za-z0-9_-]+$/;

/** A zip of `<dir>` with every regular file under `<name>/`. */
export function packSkill(dir: string, name: string): Uint8Array {
  const files: Zippable = {};
  for (const f of listFilesDeep(dir)) files[`${name}/${f.path}`] = readFileSync(join(dir, f.path));
  return zipSync(files, { level: 6 });
}

export interface UnpackedSkill {
  /** The skill folder inside the staging folder. */
  dir: string;
  name: string;
  /** Deletes the staging folder. */
  cleanup(): void;
}

function ignored(name: string): boolean {
  return name.startsWith("__MACOSX/") || name.split("/").pop() === ".DS_Store";
}

/** Why an entry name is unsafe, or undefined when it is a plain relative path. */
function unsafeReason(name: string): string | undefined {
  if (name.includes("\0")) return "contains a NUL byte";
  if (name.includes("\\")) return "contains a backslash";
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) return "is an absolute path";
  if (name.split("/").some((s) => s === "..")) return "contains '..'";
  return undefined;
}

export function unpackSkillArchive(bytes: Uint8Array): UnpackedSkill {
  if (bytes.length > SKILL_ARCHIVE_MAX) throw new ApiError(413, "payload_too_large", "a skill archive may be at most 14 MB");
  const problems: string[] = [];
  let entries = 0;
  let expanded = 0;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, {
      filter(info) {
        if (ignored(info.name)) return false;
        const why = unsafeReason(info.name);
        if (why !== undefined) problems.push(`"${info.name}" ${why}`);
        entries += 1;
        expanded += info.originalSize;
        return why === undefined && !info.name.endsWith("/") && entries <= MAX_ENTRIES && expanded <= MAX_EXPANDED;
      },
    });
  } catch {
    throw badRequest("the archive is not a readable zip file", "dataBase64");
  }
  if (problems.length > 0) throw badRequest(`the archive has unsafe entries: ${problems.slice(0, 3).join("; ")}`, "dataBase64");
  if (entries > MAX_ENTRIES || expanded > MAX_EXPANDED) throw new ApiError(413, "payload_too_large", `a skill archive may hold at most ${MAX_ENTRIES} entries and ${MAX_EXPANDED / 1024 / 1024} MB unpacked`);
  const names = Object.keys(files);
  const tops = new Set(names.map((n) => n.split("/").filter((s) => s !== "" && s !== ".")[0] ?? ""));
  const [top] = tops;
  if (tops.size !== 1 || top === undefined || names.some((n) => !n.includes("/"))) {
    throw badRequest("the archive must hold exactly one skill folder (<name>/SKILL.md and its files)", "dataBase64");
  }
  if (!SKILL_NAME.test(top)) throw badRequest(`"${top}" is not a skill name (letters, digits, _ and - only)`, "dataBase64");
  const staging = mkdtempSync(join(tmpdir(), "penguin-skill-"));
  try {
    for (const [name, data] of Object.entries(files)) {
      const target = join(staging, ...name.split("/").filter((s) => s !== "" && s !== "."));
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, data, { flag: "wx" });
    }
  } catch {
    rmSync(staging, { recursive: true, force: true });
    throw badRequest("the archive could not be unpacked (two entries name the same file)", "dataBase64");
  }
  return { dir: join(staging, top), name: top, cleanup: () => rmSync(staging, { recursive: true, force: true }) };
}
