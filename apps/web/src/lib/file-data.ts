/**
 * Reading a file the user picked, for uploads that travel inside JSON (skill zips, Agent
 * State snapshots, memory exports): as base64 without the data-URL prefix, or as text.
 */
import { readAsDataUrl } from "../features/chat/attachments";

export async function fileBase64(file: Blob): Promise<string> {
  const url = await readAsDataUrl(file);
  const comma = url.indexOf(",");
  return comma < 0 ? "" : url.slice(comma + 1);
}

export function fileText(file: Blob): Promise<string> {
  return file.text();
}
