/**
 * write_file (rw): create or replace a whole file.
 *
 * Missing parent directories are created. The write is atomic (a temporary file in the same
 * directory, then a rename), so the file is never seen half written and no temporary file is
 * left behind; an existing file keeps its permission bits, and a symlink stays a symlink (its
 * target is what gets replaced). The reply is `Created <path>` or
 * `Overwrote <path>` with the byte count, then a unified diff against the previous content
 * (none when that was binary or over the 8 MiB scan cap). The secret files are refused.
 */
import { dirname } from "node:path";
import { Schema } from "effect";
import type { BuiltinTool } from "../tool.js";
import { NonEmptyString, required } from "../tool-params.js";
import { failed } from "../tool.js";
import { unifiedDiff } from "../diff.js";
import { describeFsError, localFileOperations, type FileOperations } from "../file-operations.js";
import { locateFile, type FileBoundary, looksBinary, SCAN_CAP_BYTES } from "./file-target.js";

export const writeFileParams = Schema.Struct({
  file_path: required(NonEmptyString, "The file to write: absolute, or relative to the workspace."),
  content: required(Schema.String, "The complete new content of the file."),
});

export type WriteFileParams = Schema.Schema.Type<typeof writeFileParams>;

export interface WriteFileDetails {
  path: string;
  created: boolean;
  bytes: number;
}

export interface WriteFileToolOptions {
  workspaceDir: string;
  operations?: FileOperations;
  /** The session's boundary (file-target.ts); absent: unconfined. */
  boundary?: FileBoundary | undefined;
}

export function createWriteFileTool(options: WriteFileToolOptions): BuiltinTool<WriteFileParams, WriteFileDetails> {
  const ops = options.operations ?? localFileOperations;
  return {
    name: "write_file",
    description:
      "Write a whole file, creating it (and its parent directories) or replacing its content. Returns a unified diff against the previous content. Prefer edit_file for small changes to existing files.",
    permission: "rw",
    params: writeFileParams,
    takesDescription: false,
    async *execute(params, ctx) {
      const target = await locateFile(ops, options.workspaceDir, params.file_path, { allowMissing: true, write: true, boundary: options.boundary });
      if (!target.ok) return failed(target.error);
      const existing = target.info;
      let before: string | undefined;
      if (existing !== undefined && existing.size <= SCAN_CAP_BYTES) {
        try {
          const bytes = await ops.readBytes(target.real, SCAN_CAP_BYTES, ctx.signal);
          before = looksBinary(bytes) ? undefined : bytes.toString("utf8");
        } catch (err) {
          if (ctx.signal.aborted) return {};
          return failed(describeFsError(err, target.shown));
        }
      }
      try {
        await ops.makeDirectory(dirname(target.real));
        const mode = existing?.mode;
        await ops.writeAtomic(target.real, params.content, mode === undefined ? { signal: ctx.signal } : { mode, signal: ctx.signal });
      } catch (err) {
        if (ctx.signal.aborted) return {};
        return failed(describeFsError(err, target.shown));
      }
      const bytes = Buffer.byteLength(params.content, "utf8");
      const details: WriteFileDetails = { path: target.absolute, created: existing === undefined, bytes };
      if (existing === undefined) {
        yield `Created ${target.shown} (${bytes} bytes)\n`;
        yield unifiedDiff(target.shown, "", params.content, true);
        return { details };
      }
      yield `Overwrote ${target.shown} (${bytes} bytes)\n`;
      if (before === undefined) return { note: "[no diff: the previous content was binary or too large]", details };
      if (before === params.content) return { note: "[content unchanged]", details };
      yield unifiedDiff(target.shown, before, params.content);
      return { details };
    },
  };
}
