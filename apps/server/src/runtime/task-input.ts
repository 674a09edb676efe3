/**
 * A task's input as the API takes it, and its conversion to OmniMessages.
 *
 *   {type:"text", text}                 → a user text
 *   {type:"image_url", imageUrl}        → an image_url message (web URL or data URL ≤ 20 MB)
 *   {type:"file", fileName, dataUrl}    → the file saved under the session's scratchpad
 *                                         (`uploads/`), and an `[attached file: <path>]` line
 *
 * Limits (SPEC §9): at most 20 files, each at most `attachmentMaxMb`, together at most
 * `attachmentTotalMb` (server settings, 100 / 120 MB by default). File names are reduced to a
 * plain base name, so an upload can never be written outside its folder.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { attachedFileLine, imageUrl, userText, type OmniMessage } from "@penguin/omnimessage";
import { Schema } from "effect";
import { ApiError } from "../http/api-error.js";

const NonEmpty = Schema.String.pipe(Schema.minLength(1, { message: () => "must not be empty" }));

export const TaskInputItemSchema = Schema.Union(
  Schema.Struct({ type: Schema.Literal("text"), text: NonEmpty }).annotations({ identifier: "TextInput" }),
  Schema.Struct({ type: Schema.Literal("image_url"), imageUrl: NonEmpty }).annotations({ identifier: "ImageUrlInput" }),
  Schema.Struct({
    type: Schema.Literal("file"),
    fileName: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(255)),
    dataUrl: Schema.String.pipe(Schema.startsWith("data:", { message: () => "must be a data: URL" })),
  }).annotations({ identifier: "FileInput" }),
);

export type TaskInputItem = typeof TaskInputItemSchema.Type;

export interface AttachmentLimits {
  attachmentMaxMb: number;
  attachmentTotalMb: number;
}

export const MAX_FILES = 20;
const INLINE_IMAGE_MAX = 20 * 1024 * 1024;
const MB = 1024 * 1024;

export interface BuiltInput {
  messages: OmniMessage[];
  /** The texts, for a fallback title. */
  prompt: string;
}

/** `sender: "server"` marks texts the server wrote (scheduled tasks) rather than a person. */
export async function buildTaskMessages(items: readonly TaskInputItem[], scratchpadDir: string, limits: AttachmentLimits, now: number, sender?: "server"): Promise<BuiltInput> {
  const files = items.filter((i) => i.type === "file");
  if (files.length > MAX_FILES) throw new ApiError(400, "invalid_request", `at most ${MAX_FILES} files per task`, { field: "input" });
  const decoded = new Map<TaskInputItem, Buffer>();
  let total = 0;
  for (const [index, item] of items.entries()) {
    if (item.type === "image_url" && item.imageUrl.startsWith("data:") && item.imageUrl.length > INLINE_IMAGE_MAX * 1.4) {
      throw new ApiError(413, "payload_too_large", "an inline image may be at most 20 MB", { field: `input.${index}.imageUrl` });
    }
    if (item.type !== "file") continue;
    const data = decodeDataUrl(item.dataUrl);
    if (data === undefined) throw new ApiError(400, "invalid_request", "not a base64 data: URL", { field: `input.${index}.dataUrl` });
    if (data.length > limits.attachmentMaxMb * MB) {
      throw new ApiError(413, "payload_too_large", `${item.fileName} is larger than ${limits.attachmentMaxMb} MB`, { field: `input.${index}.dataUrl` });
    }
    total += data.length;
    decoded.set(item, data);
  }
  if (total > limits.attachmentTotalMb * MB) throw new ApiError(413, "payload_too_large", `attachments exceed ${limits.attachmentTotalMb} MB in total`, { field: "input" });

  const messages: OmniMessage[] = [];
  const texts: string[] = [];
  const uploads = join(scratchpadDir, "uploads");
  for (const item of items) {
    switch (item.type) {
      case "text":
        messages.push(sender === undefined ? userText(item.text) : userText(item.text, { sender }));
        texts.push(item.text);
        break;
      case "image_url":
        messages.push(imageUrl(item.imageUrl));
        break;
      case "file": {
        const data = decoded.get(item);
        if (data === undefined) break;
        await mkdir(uploads, { recursive: true });
        const path = join(uploads, `${now}-${safeName(item.fileName)}`);
        await writeFile(path, data, { flag: "wx" });
        messages.push(userText(attachedFileLine(path)));
        break;
      }
    }
  }
  return { messages, prompt: texts.join("\n") };
}

function safeName(name: string): string {
  const base = basename(name.replace(/\\/g, "/")).replace(/[^\w.\- ]+/g, "_").replace(/^\.+/, "");
  return base === "" ? "file" : base.slice(0, 120);
}

function decodeDataUrl(url: string): Buffer | undefined {
  const m = /^data:[^,]*?(;base64)?,(.*)$/s.exec(url);
  if (m === null) return undefined;
  const body = m[2] ?? "";
  return m[1] === undefined ? Buffer.from(decodeURIComponent(body), "utf8") : Buffer.from(body, "base64");
}
