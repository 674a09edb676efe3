/**
 * edit_file (rw): replace an exact piece of text in a file.
 *
 * `old_string` must occur exactly once unless `replace_all` is set; an ambiguous or missing
 * match fails with a message that says how to fix the call, and the file is left untouched.
 * Matching is literal (no regex, no `$` replacement patterns). read_file shows CRLF files
 * without their CRs, so when a file uses CRLF and the text only matches with CRLF line ends,
 * both strings are converted and the file keeps its line ends. The file is rewritten
 * atomically and keeps its permission bits. The reply is `Replaced N occurrence(s) in
 * <path>` followed by a unified diff. Binary files, files over the 8 MiB scan cap and the
 * secret files are refused.
 */
import { Schema } from "effect";
import type { BuiltinTool } from "../tool.js";
import { NonEmptyString, required, withDefault } from "../tool-params.js";
import { failed } from "../tool.js";
import { unifiedDiff } from "../diff.js";
import { describeFsError, localFileOperations, type FileOperations } from "../file-operations.js";
import { binaryRefusal, locateFile, type FileBoundary, looksBinary, SCAN_CAP_BYTES } from "./file-target.js";

export const editFileParams = Schema.Struct({
  file_path: required(NonEmptyString, "The file to edit: absolute, or relative to the workspace."),
  old_string: required(Schema.String, "The exact text to replace, including whitespace and indentation."),
  new_string: required(Schema.String, "The text to put in its place."),
  replace_all: withDefault(Schema.Boolean, false, "Replace every occurrence instead of exactly one."),
});

export type EditFileParams = Schema.Schema.Type<typeof editFileParams>;

export interface EditFileDetails {
  path: string;
  occurrences: number;
}

export interface EditFileToolOptions {
  workspaceDir: string;
  operations?: FileOperations;
  /** The session's boundary (file-target.ts); absent: unconfined. */
  boundary?: FileBoundary | undefined;
}

/** Non-overlapping occurrences of `needle`, scanning left to right. */
export function countOccurrences(haystack: string, needle: string): number {
  if (needle === "") return 0;
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) count += 1;
  return count;
}

/**
 * The strings to use against this file: as given, or with LF line ends turned into CRLF
 * when only that spelling occurs in a CRLF file.
 */
export function adaptLineEndings(text: string, from: string, to: string): { from: string; to: string } {
  if (text.includes(from) || !text.includes("\r\n") || !from.includes("\n")) return { from, to };
  const crlf = (s: string): string => s.replace(/\r?\n/g, "\r\n");
  return text.includes(crlf(from)) ? { from: crlf(from), to: crlf(to) } : { from, to };
}

/** Literal replacement of the first occurrence, or of all. */
export function replaceLiteral(text: string, from: string, to: string, all: boolean): string {
  if (all) return text.split(from).join(to);
  const at = text.indexOf(from);
  return at === -1 ? text : text.slice(0, at) + to + text.slice(at + from.length);
}

export function createEditFileTool(options: EditFileToolOptions): BuiltinTool<EditFileParams, EditFileDetails> {
  const ops = options.operations ?? localFileOperations;
  return {
    name: "edit_file",
    description:
      "Replace exact text in a file. `old_string` must match the file exactly (whitespace included) and occur once, unless `replace_all` is true. Read the file first. Returns a unified diff of the change.",
    permission: "rw",
    params: editFileParams,
    takesDescription: false,
    async *execute(params, ctx) {
      if (params.old_string === "") return failed("old_string is empty. To create or overwrite a whole file, use write_file.");
      if (params.old_string === params.new_string) {
        return failed("old_string and new_string are identical; there is nothing to change.");
      }
      const target = await locateFile(ops, options.workspaceDir, params.file_path, { allowMissing: false, write: true, boundary: options.boundary });
      if (!target.ok) return failed(target.error);
      const info = target.info;
      if (info === undefined) return failed(`File not found: ${target.shown}`);
      if (info.size > SCAN_CAP_BYTES) {
        return failed(`${target.shown} is too large to edit (${info.size} bytes; the limit is ${SCAN_CAP_BYTES}).`);
      }
      let before: string;
      try {
        const bytes = await ops.readBytes(target.real, SCAN_CAP_BYTES, ctx.signal);
        if (looksBinary(bytes)) return failed(binaryRefusal(target.shown, info.size));
        before = bytes.toString("utf8");
      } catch (err) {
        if (ctx.signal.aborted) return {};
        return failed(describeFsError(err, target.shown));
      }
      const { from, to } = adaptLineEndings(before, params.old_string, params.new_string);
      const occurrences = countOccurrences(before, from);
      const details = { path: target.absolute, occurrences };
      if (occurrences === 0) {
        return failed(
          `old_string was not found in ${target.shown}. Read the file again and copy the text exactly, whitespace and indentation included.`,
          details,
        );
      }
      if (occurrences > 1 && !params.replace_all) {
        return failed(
          `old_string occurs ${occurrences} times in ${target.shown}. Include more surrounding text to make it unique, or set replace_all to true.`,
          details,
        );
      }
      const after = replaceLiteral(before, from, to, params.replace_all);
      try {
        await ops.writeAtomic(target.real, after, { mode: info.mode, signal: ctx.signal });
      } catch (err) {
        if (ctx.signal.aborted) return {};
        return failed(describeFsError(err, target.shown), details);
      }
      const replaced = params.replace_all ? occurrences : 1;
      yield `Replaced ${replaced} occurrence(s) in ${target.shown}\n`;
      yield unifiedDiff(target.shown, before, after);
      return { details: { path: target.absolute, occurrences: replaced } };
    },
  };
}
