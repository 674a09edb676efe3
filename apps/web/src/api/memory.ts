/**
 * The agent's memory browser (SPEC §9 `A/memory…`): scopes, a scope's files, one file by its
 * path in the memory folder (`user/MEMORY.md`), deletion, and export/import. An export is
 * the server's JSON document, kept as it came (`unknown`): the page only saves it to a file
 * and sends such a file back, so the web never needs to understand its inside.
 */
import { del, get, post, seg } from "./http";
import { agentPath } from "./agents";
import { arr, asRecord, bool, num, oneOf, str } from "./read";
import type { MemoryFile, MemoryImportMode, MemoryScope } from "./types";

const memoryPath = (p: string, a: string) => `${agentPath(p, a)}/memory`;
const filePath = (path: string) => path.split("/").map(seg).join("/");

export async function listMemoryScopes(p: string, a: string): Promise<MemoryScope[]> {
  return arr(asRecord(await get(memoryPath(p, a))), "scopes").flatMap((raw) => {
    const o = asRecord(raw);
    const key = str(o, "key");
    return key === undefined ? [] : [{ key, workspace: str(o, "workspace") ?? null, files: num(o, "files") ?? 0 }];
  });
}

export async function listMemoryFiles(p: string, a: string, scope: string): Promise<{ path: string; size: number }[]> {
  return arr(asRecord(await get(`${memoryPath(p, a)}/scopes/${seg(scope)}/files`)), "files").flatMap((raw) => {
    const o = asRecord(raw);
    const path = str(o, "path");
    return path === undefined ? [] : [{ path, size: num(o, "size") ?? 0 }];
  });
}

export async function readMemoryFile(p: string, a: string, path: string): Promise<MemoryFile> {
  const o = asRecord(await get(`${memoryPath(p, a)}/files/${filePath(path)}`));
  return { path: str(o, "path") ?? path, size: num(o, "size") ?? 0, encoding: oneOf(o.encoding, ["utf8", "base64"] as const) ?? "utf8", content: str(o, "content") ?? "", truncated: bool(o, "truncated") ?? false };
}

export const deleteMemoryFile = (p: string, a: string, path: string) => del(`${memoryPath(p, a)}/files/${filePath(path)}`);

export const memoryExportUrl = (p: string, a: string) => `${memoryPath(p, a)}/export`;

/** 409 `confirm_required` for `replace` until `confirm` is true. */
export async function importMemory(p: string, a: string, payload: unknown, mode: MemoryImportMode, confirm = false): Promise<{ written: number; skipped: number }> {
  const o = asRecord(await post(`${memoryPath(p, a)}/import`, { payload, mode, confirm }));
  return { written: arr(o, "written").length, skipped: arr(o, "skipped").length };
}
