/**
 * read_image (r): show an image to a model that has vision. Offered instead of describe_image
 * when the session's model has vision.
 *
 * The image (URL, data: URL or path; PNG, JPEG, GIF or WebP; at most 5 MiB) is returned in
 * the output's `images` as a data URL, with a one-line text saying what was loaded.
 */
import { Schema } from "effect";
import type { BuiltinTool } from "../tool.js";
import { NonEmptyString, required } from "../tool-params.js";
import { failed } from "../tool.js";
import { localFileOperations, type FileOperations } from "../file-operations.js";
import { loadImage, type ImageMime } from "./image-source.js";
import type { FileBoundary } from "./file-target.js";

export const readImageParams = Schema.Struct({
  source: required(NonEmptyString, "An http(s) URL, or a path to an image file (absolute, or relative to the workspace)."),
});

export type ReadImageParams = Schema.Schema.Type<typeof readImageParams>;

export interface ReadImageDetails {
  mime: ImageMime;
  bytes: number;
}

export interface ReadImageToolOptions {
  workspaceDir: string;
  operations?: FileOperations;
  /** The session's boundary (file-target.ts); absent: unconfined. */
  boundary?: FileBoundary | undefined;
}

export function createReadImageTool(options: ReadImageToolOptions): BuiltinTool<ReadImageParams, ReadImageDetails> {
  const operations = options.operations ?? localFileOperations;
  return {
    name: "read_image",
    description: "Look at an image (PNG, JPEG, GIF or WebP, up to 5 MB) from a URL or a file path. The image is returned to you.",
    permission: "r",
    params: readImageParams,
    takesDescription: false,
    async *execute(params, ctx) {
      const loaded = await loadImage(params.source, { workspaceDir: options.workspaceDir, operations, signal: ctx.signal, boundary: options.boundary });
      if (!loaded.ok) return ctx.signal.aborted ? {} : failed(loaded.error);
      const { mime, bytes, dataUrl } = loaded.image;
      yield `Loaded image ${params.source} (${mime}, ${bytes} bytes)`;
      return { images: [dataUrl], details: { mime, bytes } };
    },
  };
}
