/**
 * Call ids we mint ourselves: Gemini sends none, and some chat servers omit them. Random, so
 * two responses in one history can never collide.
 */
import { randomUUID } from "node:crypto";

export function mintCallId(prefix: string): string {
  return `${prefix}_${randomUUID().replace(/-/g, "").slice(0, 24)}`;
}
