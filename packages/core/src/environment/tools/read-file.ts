/**
 * read_file (r): a window of a text file, numbered like `cat -n`.
 *
 * Lines are numbered from 1, six columns, a tab, then the text; `offset` is the first line
 * and `limit` the line count (default 2000). A line longer than 2000 characters is cut with
 * a marker. At most the first 8 MiB of a file are scanned. Binary files and the two secret
 * files are refused. When lines remain after the window, the note says which offset
 * continues; the Environment caps the whole output at 64000 characters (archived beyond).
 */
import { Schema } from "effect";
import type { BuiltinTool } from "../tool.js";
import { NonEmptyString, required, wholeNumberFrom, withDefault } from "../tool-params.js";
import { failed } from "../tool.js";
import { describeFsError, localFileOperations, type FileOperations } from "../file-operations.js";
import { binaryRefusal, locateFile, type FileBoundary, looksBinary, SCAN_CAP_BYTES } from "./file-target.js";

export const READ_FILE_LINE_CAP = 2000;
const LINES_PER_CHUNK = 500;

export const readFileParams = Schema.Struct({
  file_path: required(NonEmptyString, "The file to read: absolute, or relative to the workspace."),
  offset: withDefault(wholeNumberFrom(1), 1, "1-based number of the first line to return."),
  limit: withDefault(wholeNumberFrom(1), 2000, "How many lines to return."),
});

export type ReadFileParams = Schema.Schema.Type<typeof readFileParams>;

export interface ReadFileDetails {
  path: string;
  firstLine: number;
  lastLine: number;
  /** Lines in the scanned part of the file. */
  totalLines: number;
  /** True when the file is larger than the scan cap and only its start was read. */
  scanCapped: boolean;
}

export interface ReadFileToolOptions {
  workspaceDir: string;
  operations?: FileOperations;
  /** The session's boundary (file-target.ts); absent: unconfined. */
  boundary?: FileBoundary | undefined;
}

/** `cat -n` formatting of one line, with the line cap applied. */
export function numberLine(n: number, line: string): string {
  const text =
    line.length > READ_FILE_LINE_CAP
      ? `${line.slice(0, READ_FILE_LINE_CAP)} [… line cut, ${line.length - READ_FILE_LINE_CAP} more characters]`
      : line;
  return `${String(n).padStart(6)}\t${text}\n`;
}

/** Splits text into lines; a final newline does not start an extra line; CRs before LFs go. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  if (text.endsWith("\n")) lines.pop();
  return lines;
}

export function createReadFileTool(options: ReadFileToolOptions): BuiltinTool<ReadFileParams, ReadFileDetails> {
  const ops = options.operations ?? localFileOperations;
  return {
    name: "read_file",
    description:
      "Read a text file. Returns lines numbered like `cat -n` (line number, tab, text), starting at `offset` (1-based) for `limit` lines (default 2000). Long lines are cut at 2000 characters. Binary files are refused; use read_image for images.",
    permission: "r",
    params: readFileParams,
    takesDescription: false,
    async *execute(params, ctx) {
      const target = await locateFile(ops, options.workspaceDir, params.file_path, { allowMissing: false, boundary: options.boundary });
      if (!target.ok) return failed(target.error);
      const size = target.info?.size ?? 0;
      let bytes: Buffer;
      try {
        bytes = await ops.readBytes(target.real, SCAN_CAP_BYTES, ctx.signal, size);
      } catch (err) {
        if (ctx.signal.aborted) return {};
        return failed(describeFsError(err, target.shown));
      }
      if (looksBinary(bytes)) return failed(binaryRefusal(target.shown, size));
      const scanCapped = size > SCAN_CAP_BYTES;
      let text = bytes.toString("utf8");
      if (scanCapped && text.includes("\n")) text = text.slice(0, text.lastIndexOf("\n") + 1); // drop a cut line
      const lines = splitLines(text);
      const details = (firstLine: number, lastLine: number): ReadFileDetails => ({
        path: target.absolute,
        firstLine,
        lastLine,
        totalLines: lines.length,
        scanCapped,
      });
      if (lines.length === 0) return { note: `[${target.shown} is empty]`, details: details(0, 0) };
      if (params.offset > lines.length) {
        return failed(
          `offset ${params.offset} is past the end of ${target.shown}, which has ${lines.length} lines.`,
          details(0, 0),
        );
      }
      const first = params.offset;
      const last = Math.min(lines.length, first + params.limit - 1);
      for (let start = first; start <= last; start += LINES_PER_CHUNK) {
        let chunk = "";
        const end = Math.min(last, start + LINES_PER_CHUNK - 1);
        for (let n = start; n <= end; n++) chunk += numberLine(n, lines[n - 1] ?? "");
        yield chunk;
      }
      const notes: string[] = [];
      if (last < lines.length) {
        notes.push(`[showing lines ${first}-${last} of ${lines.length}; continue with offset=${last + 1}]`);
      }
      if (scanCapped) notes.push(`[only the first ${SCAN_CAP_BYTES} bytes of the file (${size} bytes) were scanned]`);
      return notes.length > 0 ? { note: notes.join("\n"), details: details(first, last) } : { details: details(first, last) };
    },
  };
}
