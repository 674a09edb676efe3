/**
 * The file tools' filesystem (core's FileOperations seam) when the editor offers
 * `fs/write_text_file`: writes go to the editor, which applies them to its buffer and the
 * disk (so the user sees the edit, can undo it, and an open buffer is not left stale), and
 * everything else stays on the local disk: stat, realpath, readlink and reads.
 *
 * The boundary is unchanged. write_file and edit_file resolve the path the model gave, follow
 * its symlinks on the local disk and check the real path against the session's mount table
 * (file-target.ts `locateFile`) before any write reaches this module; the editor is asked to
 * write only that checked, real path. The editor runs on the same machine (ACP over stdio), so
 * the disk it writes is the disk the check read.
 *
 * Reads stay local on purpose: read_image and the binary sniff need bytes, and ACP's
 * `fs/read_text_file` returns text only.
 */
import type { FileOperations } from "@penguin/core";

/** What this module needs of the ACP connection: the client's write method, for one session. */
export type WriteThroughClient = (path: string, content: string, signal: AbortSignal) => Promise<void>;

export function clientWriteFileOperations(local: FileOperations, write: WriteThroughClient): FileOperations {
  return {
    ...local,
    async writeAtomic(path, data, options) {
      options.signal.throwIfAborted();
      await write(path, data, options.signal);
    },
  };
}
