/**
 * Loading an image for read_image and describe_image, from a web URL, a `data:` URL or a
 * file path (relative to the workspace).
 *
 * The type is decided by the file's magic bytes, never by its name or a server's
 * Content-Type: PNG, JPEG, GIF and WebP are accepted, anything else is refused. Images over
 * 5 MiB are refused before they are read whole (Content-Length, file size) and while they
 * stream. The result is a base64 `data:` URL, the form tool outputs carry images in.
 */
import type { FileOperations } from "../file-operations.js";
import { describeFsError } from "../file-operations.js";
import { locateFile, type FileBoundary } from "./file-target.js";

export const IMAGE_MAX_BYTES = 5 * 1024 * 1024;

export type ImageMime = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

export interface LoadedImage {
  mime: ImageMime;
  bytes: number;
  dataUrl: string;
}

export type ImageLoad = { ok: true; image: LoadedImage } | { ok: false; error: string };

export function sniffImageType(b: Buffer): ImageMime | undefined {
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "image/png";
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b.length >= 6 && (b.subarray(0, 6).toString("latin1") === "GIF87a" || b.subarray(0, 6).toString("latin1") === "GIF89a")) {
    return "image/gif";
  }
  if (b.length >= 12 && b.subarray(0, 4).toString("latin1") === "RIFF" && b.subarray(8, 12).toString("latin1") === "WEBP") {
    return "image/webp";
  }
  return undefined;
}

function tooLarge(size: number): string {
  return `The image is too large (${size} bytes; the limit is ${IMAGE_MAX_BYTES}).`;
}

/** Checks size and type of raw bytes and builds the data URL. */
export function imageFromBytes(bytes: Buffer, sourceLabel: string): ImageLoad {
  if (bytes.length > IMAGE_MAX_BYTES) return { ok: false, error: tooLarge(bytes.length) };
  const mime = sniffImageType(bytes);
  if (mime === undefined) {
    return { ok: false, error: `${sourceLabel} is not a PNG, JPEG, GIF or WebP image.` };
  }
  return { ok: true, image: { mime, bytes: bytes.length, dataUrl: `data:${mime};base64,${bytes.toString("base64")}` } };
}

async function readCapped(body: ReadableStream<Uint8Array>): Promise<Buffer | undefined> {
  const reader = body.getReader();
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > IMAGE_MAX_BYTES) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(Buffer.from(value));
  }
  return Buffer.concat(chunks);
}

async function fromUrl(url: string, signal: AbortSignal): Promise<ImageLoad> {
  let response: Response;
  try {
    response = await fetch(url, { signal, redirect: "follow" });
  } catch (err) {
    if (signal.aborted) return { ok: false, error: "aborted" };
    return { ok: false, error: `Could not fetch ${url}: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    return { ok: false, error: `Could not fetch ${url}: HTTP ${response.status}` };
  }
  const declared = Number(response.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > IMAGE_MAX_BYTES) {
    await response.body?.cancel().catch(() => undefined);
    return { ok: false, error: tooLarge(declared) };
  }
  if (response.body === null) return imageFromBytes(Buffer.alloc(0), url);
  try {
    const bytes = await readCapped(response.body);
    if (bytes === undefined) return { ok: false, error: `The image at ${url} is larger than ${IMAGE_MAX_BYTES} bytes.` };
    return imageFromBytes(bytes, url);
  } catch (err) {
    return { ok: false, error: `Could not read ${url}: ${err instanceof Error ? err.message : String(err)}` };
  }
}

function fromDataUrl(source: string): ImageLoad {
  const match = /^data:[^;,]*;base64,(.*)$/s.exec(source);
  if (match === null || match[1] === undefined) return { ok: false, error: "Only base64 data: URLs are supported." };
  return imageFromBytes(Buffer.from(match[1], "base64"), "The data: URL");
}

export async function loadImage(
  source: string,
  context: { workspaceDir: string; operations: FileOperations; signal: AbortSignal; boundary?: FileBoundary | undefined },
): Promise<ImageLoad> {
  if (/^https?:\/\//i.test(source)) return fromUrl(source, context.signal);
  if (source.startsWith("data:")) return fromDataUrl(source);
  const target = await locateFile(context.operations, context.workspaceDir, source, { allowMissing: false, boundary: context.boundary });
  if (!target.ok) return target;
  const size = target.info?.size ?? 0;
  if (size > IMAGE_MAX_BYTES) return { ok: false, error: tooLarge(size) };
  try {
    const bytes = await context.operations.readBytes(target.real, IMAGE_MAX_BYTES + 1, context.signal);
    return imageFromBytes(bytes, target.shown);
  } catch (err) {
    return { ok: false, error: describeFsError(err, target.shown) };
  }
}
