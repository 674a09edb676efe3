/**
 * The archive of a truncated tool output: `<scratchpad>/truncated-tool-output/<toolCallId>.txt`.
 *
 * When the model sees only the head of an output, the whole of it (up to the archive cap)
 * is saved here and the path is given in a note, so the model can page through it with
 * read_file or grep it with exec_command. Files are 0600: outputs may hold anything the
 * commands printed. A failed write is reported, never thrown.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

export const ARCHIVE_DIR_NAME = "truncated-tool-output";

/** A file name for a tool call id: characters outside `[A-Za-z0-9._#-]` become `_`. */
export function archiveFileName(toolCallId: string): string {
  const safe = toolCallId.replace(/[^A-Za-z0-9._#-]/g, "_").replace(/^\.+/, "_");
  return `${safe === "" ? "_" : safe}.txt`;
}

export function archivePath(scratchpadDir: string, toolCallId: string): string {
  return join(scratchpadDir, ARCHIVE_DIR_NAME, archiveFileName(toolCallId));
}

export async function writeArchive(
  scratchpadDir: string,
  toolCallId: string,
  bytes: Buffer,
): Promise<{ ok: true; path: string } | { ok: false; error: string }> {
  const path = archivePath(scratchpadDir, toolCallId);
  try {
    await mkdir(join(scratchpadDir, ARCHIVE_DIR_NAME), { recursive: true });
    await writeFile(path, bytes, { mode: 0o600 });
    return { ok: true, path };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}
