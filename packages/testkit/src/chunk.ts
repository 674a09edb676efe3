/**
 * Split a string into streaming deltas of at most `size` UTF-16 units, never cutting a
 * surrogate pair in half (a piece that would end on a high surrogate takes its low half too),
 * so every delta is valid text on its own, as a real provider's would be.
 */

export const DEFAULT_CHUNK_SIZE = 8;

export function splitText(text: string, size: number = DEFAULT_CHUNK_SIZE): string[] {
  if (!Number.isInteger(size) || size < 1) throw new Error(`testkit: chunkSize must be a positive integer, got ${size}`);
  const pieces: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + size, text.length);
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end += 1;
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
