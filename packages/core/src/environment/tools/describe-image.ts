/**
 * describe_image (r): for models without vision, another (vision) model describes an image.
 * Offered instead of read_image when the session's model has no vision.
 *
 * The image is loaded like read_image does and handed to the host's `describeImage` service
 * (which calls the project's `vision_model`) with the optional `prompt`; its text is the
 * output. Without a configured describer the call fails with a message that says so.
 */
import { Schema } from "effect";
import type { BuiltinTool } from "../tool.js";
import { NonEmptyString, optional, required } from "../tool-params.js";
import { failed } from "../tool.js";
import { localFileOperations, type FileOperations } from "../file-operations.js";
import { loadImage, type ImageMime } from "./image-source.js";
import type { FileBoundary } from "./file-target.js";

export const describeImageParams = Schema.Struct({
  source: required(NonEmptyString, "An http(s) URL, or a path to an image file (absolute, or relative to the workspace)."),
  prompt: optional(Schema.String, "What to look for or ask about the image."),
});

export type DescribeImageParams = Schema.Schema.Type<typeof describeImageParams>;

export interface DescribeImageDetails {
  mime: ImageMime;
  bytes: number;
}

/** The host's vision service; returns the description text. May throw: that is a `failed` output. */
export type DescribeImageFn = (input: { image: string; prompt?: string; signal?: AbortSignal }) => Promise<string>;

export interface DescribeImageToolOptions {
  workspaceDir: string;
  describeImage?: DescribeImageFn;
  operations?: FileOperations;
  /** The session's boundary (file-target.ts); absent: unconfined. */
  boundary?: FileBoundary | undefined;
}

export const NO_DESCRIBER =
  "describe_image is not available: no vision model is configured to describe images (set `vision_model` in the project config).";

export function createDescribeImageTool(
  options: DescribeImageToolOptions,
): BuiltinTool<DescribeImageParams, DescribeImageDetails> {
  const operations = options.operations ?? localFileOperations;
  return {
    name: "describe_image",
    description:
      "Get a text description of an image (PNG, JPEG, GIF or WebP, up to 5 MB) from a URL or a file path. Use `prompt` to say what you need to know about it.",
    permission: "r",
    params: describeImageParams,
    takesDescription: false,
    async *execute(params, ctx) {
      const describe = options.describeImage;
      if (describe === undefined) return failed(NO_DESCRIBER);
      const loaded = await loadImage(params.source, { workspaceDir: options.workspaceDir, operations, signal: ctx.signal, boundary: options.boundary });
      if (!loaded.ok) return ctx.signal.aborted ? {} : failed(loaded.error);
      const { mime, bytes, dataUrl } = loaded.image;
      const input = params.prompt === undefined ? { image: dataUrl, signal: ctx.signal } : { image: dataUrl, prompt: params.prompt, signal: ctx.signal };
      let text: string;
      try {
        text = await describe(input);
      } catch (err) {
        if (ctx.signal.aborted) return {};
        return failed(`The image could not be described: ${err instanceof Error ? err.message : String(err)}`);
      }
      yield text;
      return { details: { mime, bytes } };
    },
  };
}
