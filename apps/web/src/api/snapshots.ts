/**
 * Agent State snapshots (SPEC §9 `A/export`, `A/import`, `A/snapshots`): the export is a
 * plain download (the server names it `v<version>.tar.gz` and keeps a copy); an import sends
 * the archive as base64 and answers 409 `confirm_required` when its version is not newer,
 * which the page turns into a confirmation step.
 */
import { get, post } from "./http";
import { agentPath } from "./agents";
import { arr, asRecord, num, str } from "./read";
import type { SnapshotInfo } from "./types";

export const snapshotExportUrl = (p: string, a: string) => `${agentPath(p, a)}/export`;

export async function listSnapshots(p: string, a: string): Promise<{ version: number | null; snapshots: SnapshotInfo[] }> {
  const o = asRecord(await get(`${agentPath(p, a)}/snapshots`));
  return {
    version: num(o, "version") ?? null,
    snapshots: arr(o, "snapshots").flatMap((raw) => {
      const r = asRecord(raw);
      const name = str(r, "name");
      return name === undefined ? [] : [{ name, version: num(r, "version") ?? 0, size: num(r, "size") ?? 0, mtimeMs: num(r, "mtimeMs") ?? 0 }];
    }),
  };
}

export async function importSnapshot(p: string, a: string, dataBase64: string, confirm = false): Promise<{ version: number; previousVersion: number | null; snapshot: string | null }> {
  const o = asRecord(await post(`${agentPath(p, a)}/import`, { dataBase64, confirm }));
  return { version: num(o, "version") ?? 0, previousVersion: num(o, "previousVersion") ?? null, snapshot: str(o, "snapshot") ?? null };
}
