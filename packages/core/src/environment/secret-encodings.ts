/**
 * The forms a vault value commonly takes in a command's output besides itself, so the
 * redactor (redact.ts) can hide those too: a model told to leak a token would otherwise
 * `echo $TOKEN | base64` or `| xxd -p` or `| rev` and copy it out through the trace.
 *
 * For a value of at least `MIN_ENCODED_LENGTH` characters (shorter encodings would match
 * ordinary text): reversed; its UTF-8 bytes as hex (lower and upper case); URL-encoded
 * (`encodeURIComponent`, and with lower-case escapes); base64, standard and URL-safe, with
 * and without padding; and, for a value inside a longer base64 stream (`cat file | base64`),
 * the characters that depend on the value's bytes alone, for each of the 3 positions the
 * value can start at within a 3-byte group. Forms equal to the value itself are left out.
 */

export const MIN_ENCODED_LENGTH = 8;

/** The encoded forms of `value` (none for a value shorter than `MIN_ENCODED_LENGTH`). */
export function encodedForms(value: string): string[] {
  if (value.length < MIN_ENCODED_LENGTH) return [];
  const bytes = Buffer.from(value, "utf8");
  const forms = new Set<string>();
  forms.add(Array.from(value).reverse().join(""));
  const hex = bytes.toString("hex");
  forms.add(hex);
  forms.add(hex.toUpperCase());
  const url = encodeURIComponent(value);
  forms.add(url);
  forms.add(url.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()));
  for (const base64 of [bytes.toString("base64"), ...alignedBase64(bytes)]) {
    forms.add(base64);
    forms.add(base64.replace(/=+$/, ""));
    const urlSafe = base64.replace(/\+/g, "-").replace(/\//g, "_");
    forms.add(urlSafe);
    forms.add(urlSafe.replace(/=+$/, ""));
  }
  forms.delete(value);
  forms.delete("");
  return [...forms];
}

/**
 * In a base64 stream the value may start at byte 0, 1 or 2 of a 3-byte group; the characters
 * of the groups holding only the value's bytes are the same whatever surrounds it.
 */
function alignedBase64(bytes: Buffer): string[] {
  const out: string[] = [];
  for (const skip of [0, 1, 2]) {
    const whole = Math.floor((bytes.length - skip) / 3) * 3;
    if (whole >= 6) out.push(bytes.subarray(skip, skip + whole).toString("base64"));
  }
  return out;
}
