/**
 * Files the user pasted, dropped or picked, turned into task input items: images become
 * `image_url` items with a data URL (the model sees them inline), anything else a `file`
 * item the server saves to the session's scratchpad. The per-file limit comes from
 * `/api/me` (`uploadLimits`), checked here so a too-large file is refused before upload.
 */
import type { TaskInputItem } from "../../api/types";

export interface Attachment {
  id: string;
  name: string;
  size: number;
  item: TaskInputItem;
  /** For images: the data URL, for a thumbnail. */
  preview: string | undefined;
}

let counter = 0;

export function readAsDataUrl(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => (typeof reader.result === "string" ? resolve(reader.result) : reject(new Error("could not read the file")));
    reader.onerror = () => reject(reader.error ?? new Error("could not read the file"));
    reader.readAsDataURL(file);
  });
}

export async function toAttachment(file: File, maxMb = 100): Promise<Attachment> {
  if (file.size > maxMb * 1024 * 1024) throw new Error(`${file.name} is larger than ${maxMb} MB`);
  const dataUrl = await readAsDataUrl(file);
  counter += 1;
  const name = file.name === "" ? (file.type.startsWith("image/") ? "pasted-image.png" : "file") : file.name;
  if (file.type.startsWith("image/")) {
    return { id: `att${counter}`, name, size: file.size, item: { type: "image_url", imageUrl: dataUrl }, preview: dataUrl };
  }
  return { id: `att${counter}`, name, size: file.size, item: { type: "file", fileName: name, dataUrl }, preview: undefined };
}

/** Back from a recalled follow-up: its items as attachments again. */
export function fromInputItem(item: TaskInputItem): Attachment | undefined {
  counter += 1;
  if (item.type === "image_url") return { id: `att${counter}`, name: "image", size: 0, item, preview: item.imageUrl };
  if (item.type === "file") return { id: `att${counter}`, name: item.fileName, size: 0, item, preview: undefined };
  return undefined;
}
