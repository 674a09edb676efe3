/**
 * The one description of what a session may touch: its mount table, an ordered list of mounts
 * computed from a SessionBoundary (the folders a session writes, reads, and must not see).
 * Both effects the model can cause through the harness read this one table: the bwrap
 * arguments of commands are printed from it (sandbox.ts), and the file tools ask `accessAt`
 * what a command inside the sandbox would find at a real path (tools/file-target.ts), so a
 * path a command cannot reach is one a file tool cannot reach either.
 *
 * Order is bwrap's: later mounts cover earlier ones, and at one path the innermost mount
 * decides. The table starts from the read-only system with a fresh /dev, a private /tmp and
 * the pid namespace's /proc, then the session's mounts in order of depth (a private home first,
 * then binds, then hides, at one depth), and ends with the masked files.
 */
import { existsSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, relative, resolve, sep } from "node:path";

/** The folders and files that make up one session's boundary, all absolute paths. */
export interface SessionBoundary {
  writable: readonly string[];
  readOnly: readonly string[];
  /** Hidden (the data root); `writable` and `readOnly` folders inside are put back. */
  hidden: readonly string[];
  /** Hidden unless it holds a PATH entry (the workspace's parent). */
  hiddenUnlessOnPath: readonly string[];
  masked: readonly string[];
  /** Replaced by empty, writable tmpfs mounts (absent: none); PATH entries inside come back read-only. */
  privateHomes?: readonly string[];
}

/**
 * One mount: `system` the read-only `/`, `dev` a fresh /dev, `tmp` the private /tmp, `proc`
 * the pid namespace's /proc, `hide` an empty read-only tmpfs, `private` an empty throwaway home,
 * `mask` /dev/null over a file.
 */
export interface Mount {
  kind: "system" | "dev" | "tmp" | "proc" | "bind" | "ro-bind" | "hide" | "private" | "mask";
  path: string;
}

export interface MountTable {
  readonly mounts: readonly Mount[];
}

/** What a path is inside the boundary: writable, read-only, or not there at all. */
export type Access = "write" | "read" | "absent";

/** System folders never hidden, nor any folder above them. */
export const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/var", "/run", "/nix", "/snap"];

const BASE: readonly Mount[] = [
  { kind: "system", path: "/" },
  { kind: "dev", path: "/dev" },
  { kind: "tmp", path: "/tmp" },
  { kind: "proc", path: "/proc" },
];

export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

function depth(path: string): number {
  return path.split(sep).filter((part) => part !== "").length;
}

/**
 * The real path of a path; for one that does not exist (yet), its nearest existing ancestor's
 * real path plus the rest, so a folder the session creates later compares equal to the real
 * paths the file tools resolve under it.
 */
export function real(path: string): string {
  const abs = resolve(path);
  try {
    return realpathSync(abs);
  } catch {
    const parent = dirname(abs);
    return parent === abs ? abs : resolve(real(parent), basename(abs));
  }
}

/**
 * `/` and the folders holding system folders are never hidden, nor `/tmp` (already a fresh,
 * writable tmpfs; hiding it again would make it read-only). A workspace's parent inside a
 * system folder (a workspace `/usr/lib/x`) is not hidden either; the data root always is.
 */
export function mayHide(dir: string, options: { insideSystem: boolean }): boolean {
  if (dir === "/" || dir === "/tmp" || SYSTEM_DIRS.some((system) => isInside(dir, system))) return false;
  return options.insideSystem || !SYSTEM_DIRS.some((system) => isInside(system, dir));
}

function holdsPathEntry(dir: string, searchPath: string | undefined): boolean {
  return (searchPath ?? "")
    .split(":")
    .filter((entry) => isAbsolute(entry))
    .some((entry) => isInside(dir, real(entry)));
}

/**
 * The folders inside the private homes that the command's PATH needs: each entry, or the
 * install prefix above a `bin` (`~/.nvm/versions/node/v20` for its `bin`, so its `lib` comes
 * along) unless that prefix is a home itself (`~/bin` brings back `~/bin` only).
 */
function pathEntriesInHomes(searchPath: string | undefined, homes: readonly string[]): string[] {
  const out: string[] = [];
  for (const entry of (searchPath ?? "").split(":")) {
    if (!isAbsolute(entry) || !existsSync(entry)) continue;
    const path = real(entry);
    const home = homes.find((h) => isInside(h, path) && h !== path);
    if (home === undefined) continue;
    const prefix = dirname(path);
    out.push(basename(path) === "bin" && prefix !== home ? prefix : path);
  }
  return out;
}

/** The innermost mount covering `path` (at one depth, the later one: it is mounted over the earlier). */
function coverOf(mounts: readonly Mount[], path: string): Mount | undefined {
  let cover: Mount | undefined;
  for (const m of mounts) if (isInside(m.path, path) && (cover === undefined || depth(m.path) >= depth(cover.path))) cover = m;
  return cover;
}

/**
 * The mount table of a boundary for commands whose PATH is `searchPath`. Reads the disk (which
 * folders exist, their real paths) but changes nothing: a writable folder that does not exist
 * yet is listed by its path (bwrapArguments creates it first).
 */
export function mountTable(boundary: SessionBoundary, searchPath: string | undefined): MountTable {
  const mounts: Mount[] = [];
  const seen = new Set<string>();
  const add = (kind: Mount["kind"], path: string): void => {
    const key = `${kind}:${path}`;
    if (seen.has(key)) return;
    seen.add(key);
    mounts.push({ kind, path });
  };
  // A folder that does not exist has nothing to hide (and bwrap could not mount over it).
  for (const dir of boundary.hidden) if (existsSync(dir) && mayHide(real(dir), { insideSystem: true })) add("hide", real(dir));
  for (const dir of boundary.hiddenUnlessOnPath) {
    const path = real(dir);
    if (existsSync(path) && mayHide(path, { insideSystem: false }) && !holdsPathEntry(path, searchPath)) add("hide", path);
  }
  for (const dir of boundary.writable) add("bind", real(dir));
  for (const dir of boundary.readOnly) if (existsSync(dir)) add("ro-bind", real(dir));
  const homes = (boundary.privateHomes ?? []).filter((dir) => existsSync(dir)).map(real).filter((dir) => mayHide(dir, { insideSystem: true }));
  if (homes.length > 0) {
    // Not inside a hidden folder (it stays hidden), nor inside a bound one (already there; a
    // read-only bind would make part of a writable workspace read-only).
    const placed = [...mounts];
    for (const home of homes) add("private", home);
    for (const tool of pathEntriesInHomes(searchPath, homes)) if (!placed.some((m) => isInside(m.path, tool))) add("ro-bind", tool);
  }
  // At one depth: a private home first (binds inside it come back), then binds, then hides.
  const order: Partial<Record<Mount["kind"], number>> = { private: -1, bind: 0, "ro-bind": 0, hide: 1 };
  mounts.sort((a, b) => depth(a.path) - depth(b.path) || (order[a.kind] ?? 0) - (order[b.kind] ?? 0));

  // A file is masked only where it is visible: the innermost mount covering it is a bind, or
  // none is (the read-only system, outside /tmp); inside a hidden or private folder it is not there.
  const masks: Mount[] = [];
  for (const file of boundary.masked) {
    const path = real(file);
    if (!existsSync(path)) continue;
    const cover = coverOf(mounts, path);
    const visible = cover === undefined ? path !== "/tmp" && !isInside("/tmp", path) : cover.kind === "bind" || cover.kind === "ro-bind";
    if (visible) masks.push({ kind: "mask", path });
  }
  return { mounts: [...BASE, ...mounts, ...masks] };
}

/**
 * The table with the `readOnly` folders made read-only where it grants writing them (agent_state,
 * which people change and the model's tools never), except the `keepWritable` folders inside
 * them that it granted too (agent_state/memory: the model keeps its memory); a folder the table
 * hides stays hidden.
 */
export function withReadOnly(table: MountTable, readOnly: readonly string[], keepWritable: readonly string[] = []): MountTable {
  const demoted = readOnly.map(real).filter((dir) => accessAt(table, dir) === "write");
  const kept = keepWritable.map(real).filter((dir) => accessAt(table, dir) === "write" && demoted.some((d) => isInside(d, dir)));
  return { mounts: [...table.mounts, ...demoted.map((path): Mount => ({ kind: "ro-bind", path })), ...kept.map((path): Mount => ({ kind: "bind", path }))] };
}

/**
 * A table for a session without a boundary description: everything writable as the host user
 * allows, except the `readOnly` folders.
 */
export function unconfinedTable(readOnly: readonly string[], keepWritable: readonly string[] = []): MountTable {
  return withReadOnly({ mounts: [{ kind: "bind", path: "/" }] }, readOnly, keepWritable);
}

/**
 * What a command inside the sandbox would find at `realPath` (absolute, symlinks already
 * resolved): the innermost covering mount decides. Hidden folders, masked files, the private
 * /tmp, /dev and /proc (the sandbox's are fresh ones, not the host's the file tools would
 * reach) and the private homes (a throwaway tmpfs for commands; the host's real home is never
 * the file tools' to read or write) are absent; the system and read-only binds are read.
 */
export function accessAt(table: MountTable, realPath: string): Access {
  const cover = coverOf(table.mounts, resolve(realPath));
  switch (cover?.kind) {
    case "bind":
      return "write";
    case "system":
    case "ro-bind":
      return "read";
    default:
      return "absent";
  }
}
